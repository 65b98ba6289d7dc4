import string

import pytest

from bot.core.kernel import i18n
from bot.core.kernel.i18n import t


def test_every_sentence_exists_in_both_languages():
    assert [k for k in i18n.all_keys() if i18n.locales_of(k) != ["en", "zh-CN"]] == []


def test_both_languages_of_a_sentence_take_the_same_values():
    def fields(text: str) -> set[str]:
        # A count's word ({n|try|tries}) reads the value n: English only, nothing to fill.
        text = i18n._PLURAL.sub(r"{\1}", text)
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    differing = [k for k in i18n.all_keys()
                 if fields(i18n._STRINGS[k]["en"]) != fields(i18n._STRINGS[k]["zh-CN"])]
    assert differing == []


def test_a_missing_locale_falls_back_to_english():
    assert i18n.t("fr", "ui.submit") == "Submit"


@pytest.mark.parametrize(("key", "values", "said"), [
    ("practice.wrong", {"left": 1}, "Not quite. 1 try left."),
    ("practice.wrong", {"left": 2}, "Not quite. 2 tries left."),
    ("leaderboard.hidden", {"count": 1}, "+1 member hidden"),
    ("leaderboard.hidden", {"count": 3}, "+3 members hidden"),
])
def test_a_count_of_one_takes_the_singular_in_english(key, values, said):
    assert t("en", key, **values) == said


def test_chinese_sentences_have_no_english_count_words():
    assert t("zh-CN", "practice.wrong", left=1) == "不太对。还剩 1 次机会。"
