import string

from bot.core.kernel import i18n


def test_every_sentence_exists_in_both_languages():
    assert [k for k in i18n.all_keys() if i18n.locales_of(k) != ["en", "zh-CN"]] == []


def test_both_languages_of_a_sentence_take_the_same_values():
    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    differing = [k for k in i18n.all_keys()
                 if fields(i18n._STRINGS[k]["en"]) != fields(i18n._STRINGS[k]["zh-CN"])]
    assert differing == []


def test_a_missing_locale_falls_back_to_english():
    assert i18n.t("fr", "ui.submit") == "Submit"
