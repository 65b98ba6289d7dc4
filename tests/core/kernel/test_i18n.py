import re
import string

import pytest

from bot.core.kernel import i18n
from bot.core.kernel.i18n import t
from bot.core.kernel.sentences import described
from tests.support.prose import ascii_marks, english_words


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


def _chinese_templates() -> dict[str, str]:
    # A value filled in ({n}, {topic}) is not the sentence's own words.
    return {k: re.sub(r"\{[^{}]*\}", " ", i18n._STRINGS[k]["zh-CN"]) for k in i18n.all_keys()}


def test_chinese_sentences_take_full_width_punctuation():
    # "函数签名: " or "（数字 0-9)": a colon, comma or parenthesis of Chinese prose is full-width.
    found = {k: marks for k, text in _chinese_templates().items() if (marks := ascii_marks(text))}
    assert found == {}


def test_chinese_sentences_hold_no_english_words():
    # What members type (key=value, hidden, .yaml) is shown as code; names stay as they are.
    # Discord's command picker shows plain text: what members type there stays as typed.
    found = {k: words for k, text in _chinese_templates().items()
             if (words := english_words(text, names=described.TYPED if k.startswith(
                 "discord.") else ()))}
    assert found == {}


@pytest.mark.parametrize("text", ["函数签名: `f`", "示例,", "用法 (小时)", "好;"])
def test_ascii_punctuation_in_chinese_prose_is_found(text):
    assert ascii_marks(text) != []


@pytest.mark.parametrize("text", ["`函数签名: f`", "time: 09:00", "函数签名：`def f(x): ...`",
                                  "（`on [小时]` 或 `off`）"])
def test_ascii_punctuation_in_code_or_english_is_left_alone(text):
    assert ascii_marks(text) == []
