"""Every parser of what members and platforms send, fed anything: only its documented outcome."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.core.channels.setup import KEYS, SettingError, narrow, parse_changes, parse_setup_text
from bot.core.kernel.errors import UserError
from bot.core.kernel.matching import as_number, match_choice, match_text
from bot.core.kernel.messages import (
    ACTION_KINDS,
    MAX_ROUND_ID,
    SUBMIT_KINDS,
    Form,
    form_action,
    parse_action,
    parse_submit,
    round_id_of,
    submit_id,
)
from bot.core.kernel.models import AnswerMode, ChannelUpdate
from bot.core.questions.answers import check_input
from content.loader import load_bank
from tests.support.core import BANK

TOPICS = {"autograd", "tensors"}
SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
# Digits that str.isdigit() or \d take and int() may not: superscripts, Arabic-Indic, full-width.
UNICODE_DIGITS = ["²", "٣", "１", "߃", "𝟗"]

ids = st.one_of(
    st.text(max_size=300),
    st.builds(lambda kind, target, key: f"tq:{kind}:{target}:{key}",
              st.sampled_from([*ACTION_KINDS, *SUBMIT_KINDS, "x"]),
              st.one_of(st.integers(-10, 2**70).map(str), st.text(max_size=30)),
              st.one_of(st.sampled_from(["A", "B", "code", "text", "card"]),
                        st.text(max_size=20))),
)


@SETTINGS
@given(ids)
@example("tq:answer:99999999999999999999999:A")
@example("tq:answer:1e3:A")
@example("tq:answer:abc:A")
@example("tq:answer:²:A")
@example("tq:answer:０１:A")
def test_parse_action_returns_none_or_a_round_within_int32(action_id):
    parsed = parse_action(action_id)
    if parsed is None:
        return
    kind, target, key = parsed
    assert kind in ACTION_KINDS and key.isascii() and key.isalpha()
    if kind in ("answer", "form"):
        assert 1 <= int(target) <= MAX_ROUND_ID and target.isascii()


@SETTINGS
@given(ids)
def test_parse_submit_returns_none_or_our_three_parts(text):
    parsed = parse_submit(text)
    if parsed is not None:
        kind, target, mode = parsed
        assert kind in SUBMIT_KINDS and mode in ("text", "code")
        if kind == "submit":
            assert 1 <= int(target) <= MAX_ROUND_ID


@SETTINGS
@given(st.one_of(st.text(max_size=40), st.integers(-(2**80), 2**80).map(str)))
@example("2147483648")
@example("2147483647")
@example("٣")
@example("0")
def test_round_id_of_is_none_or_a_positive_int32(target):
    value = round_id_of(target)
    assert value is None or (1 <= value <= MAX_ROUND_ID and str(value) == target)


@SETTINGS
@given(st.integers(1, MAX_ROUND_ID), st.booleans())
def test_a_submit_id_parses_back_to_its_round(round_id, code):
    form = Form(action_id=form_action(round_id), label="l", title="t", field_label="l",
                code=code)
    assert parse_submit(submit_id(form)) == ("submit", str(round_id), "code" if code else "text")


setting_values = st.one_of(
    st.text(max_size=40),
    st.builds(lambda h, m: f"{h}:{m}", st.text("0123456789²٣１", max_size=3),
              st.text("0123456789²٣１", max_size=3)),
    st.builds(lambda d, h: f"{d} {h}", st.sampled_from(["fri", "mon", "someday"]),
              st.text("0123456789²٣１ ", max_size=4)),
)


@SETTINGS
@given(st.dictionaries(st.sampled_from([*KEYS, "colour"]), setting_values, max_size=4))
def test_parse_changes_returns_an_update_or_a_user_error(changes):
    try:
        update = parse_changes(changes, TOPICS)
    except UserError as exc:
        assert str(exc)
        return
    assert isinstance(update, ChannelUpdate)
    if update.leaderboard_hour is not None:
        assert 0 <= update.leaderboard_hour <= 23
    if "time" in changes:
        assert narrow(changes["time"]).strip().isascii()


@SETTINGS
@given(st.text(alphabet=st.sampled_from("ab=＝ \u3000\"'“”:：/／1１,、"), max_size=60)
       | st.text(max_size=200))
def test_a_setup_line_reads_as_changes_or_a_setting_error(typed):
    try:
        changes = parse_setup_text(typed)
    except SettingError as exc:
        assert exc.text("en") and exc.text("zh-CN")
        return
    assert all(key.isascii() and key == key.lower() for key in changes)


@pytest.mark.parametrize("digit", [d for d in UNICODE_DIGITS if d != "１"])
def test_settings_take_ascii_digits_only(digit):
    # Full-width digits ("１", a Chinese keyboard's) are read as 0-9; no other digits are.
    for changes in ({"leaderboard": f"fri {digit}"}, {"leaderboard": f"fri 1{digit}"},
                    {"time": f"0{digit}:30"}, {"time": f"09:{digit}0"}):
        with pytest.raises(UserError, match="0-9"):
            parse_changes(changes, TOPICS)


@SETTINGS
@given(st.text(max_size=400), st.sampled_from(list(AnswerMode)), st.sampled_from(["en", "zh-CN"]))
def test_check_input_returns_a_reason_or_none(response, mode, locale):
    reason = check_input(response, mode, locale)
    assert reason is None or (isinstance(reason, str) and reason)


@pytest.fixture(scope="module")
def items():
    bank = load_bank(BANK)
    return [bank.question(i) for i in ("t.text-detach", "t.text-shape", "t.text-number",
                                       "t.choice-view")]


numberish = st.one_of(
    st.text(max_size=200),
    st.from_regex(r"[-+]?[0-9]{1,400}(/[0-9]{1,400})?( ?[a-z%]{0,5})?", fullmatch=True),
    st.from_regex(r"[0-9]{1,30}(\.[0-9]{0,5})?e[-+]?[0-9]{1,6}", fullmatch=True),
)


@SETTINGS
@given(numberish)
@example("1" * 400 + "/3")
@example("9" * 199 + "/1")
@example("1e999999")
@example("²/0")
def test_as_number_reads_a_number_or_nothing_never_overflows(text):
    parsed = as_number(text)
    assert parsed is None or isinstance(parsed[0], float)


@SETTINGS
@given(numberish)
def test_the_answer_matcher_always_gives_a_match(items, response):
    response = response[:200]  # check_input refuses anything longer before matching
    for item in items:
        if item.kind == "choice":
            match = match_choice(item, response, "en")
        else:
            match = match_text(item, response)
        assert match.understood or not match.correct
