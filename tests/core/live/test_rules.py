"""The rules of a live session: the host's options and how speed scores."""

import pytest

from bot.core.live import LiveOptions, OptionError, live_points, parse_options


def test_no_option_gives_ten_questions_a_minute_of_lobby_and_seconds_by_kind():
    assert parse_options([]) == LiveOptions(questions=10, seconds=None, lobby=60, topics=(),
                                            code=False)


def test_options_are_read_in_any_order():
    options = parse_options(["topics=Autograd,tensors,autograd", "lobby=0", "questions=3",
                             "seconds=30"])
    assert options == LiveOptions(questions=3, seconds=30, lobby=0,
                                  topics=("autograd", "tensors"))


@pytest.mark.parametrize("word", ["questions=0", "questions=31", "seconds=4", "seconds=121",
                                  "lobby=601", "questions=-1", "questions=x", "seconds=３０",
                                  "questions=" + "9" * 100])
def test_an_option_out_of_its_range_is_refused_with_the_range(word):
    with pytest.raises(OptionError) as refused:
        parse_options([word])
    assert "must be a whole number from" in refused.value.text("en")


@pytest.mark.parametrize("words", [["rounds=3"], ["questions"], ["questions=3", "questions=4"]])
def test_an_unknown_or_repeated_option_is_refused(words):
    with pytest.raises(OptionError) as refused:
        parse_options(words)
    assert "I don't know the option" in refused.value.text("en")


def test_code_questions_are_asked_for_with_code_yes_and_off_by_default():
    assert parse_options([]).code is False
    assert parse_options(["code=yes"]).code is True
    assert parse_options(["CODE=No"]).code is False


@pytest.mark.parametrize("word", ["code=maybe", "code=", "code=1"])
def test_a_code_option_other_than_yes_or_no_is_refused_in_both_languages(word):
    with pytest.raises(OptionError) as refused:
        parse_options([word])
    assert "code= takes yes or no" in refused.value.text("en")
    assert "`code=` 须为 `yes` 或 `no`" in refused.value.text("zh-CN")


def test_empty_topics_are_refused():
    with pytest.raises(OptionError):
        parse_options(["topics=,,"])


@pytest.mark.parametrize(("elapsed_ms", "points"), [(0, 20), (10_000, 15), (20_000, 10),
                                                    (25_000, 10), (-5, 20)])
def test_a_right_answer_earns_half_to_all_of_its_points_by_time_left(elapsed_ms, points):
    assert live_points(2, True, elapsed_ms, 20) == points


def test_a_wrong_answer_earns_nothing_however_fast():
    assert live_points(3, False, 0, 20) == 0
