import pytest

from bot.core.learning.explain import ExplainService


@pytest.fixture
def explain(bank):
    return ExplainService(bank.cards)


@pytest.mark.parametrize(("query", "card"), [
    ("detach", "detach"),
    ("Detach", "detach"),
    (".detach()", "detach"),
    ("x.detach()", "detach"),
    ("detatch", "detach"),
    ("stop gradient", "detach"),
    ("stop-gradient", "detach"),
    ("分离梯度", "detach"),
    ("view vs reshape", "view-vs-reshape"),
    ("reshape vs view", "view-vs-reshape"),
    ("view-vs-reshape", "view-vs-reshape"),
    ("view/reshape", "view-vs-reshape"),
    ("view versus reshape", "view-vs-reshape"),
    ("no_grad", "no-grad"),
    ("torch.no_grad()", "no-grad"),
    ("nograd", "no-grad"),
])
def test_lookup_resolves_ids_aliases_typos_and_comparisons(explain, query, card):
    found = explain.index.lookup(query)
    assert found.card is not None and found.card.id == card


def test_unknown_topic_suggests_the_closest_cards(explain):
    message = explain.explain("reshap", "en")
    assert message.tone == "warning"
    assert "view-vs-reshape" in message.body


def test_unrelated_query_gets_a_topic_list_not_a_wrong_card(explain):
    found = explain.index.lookup("quantum chromodynamics")
    assert found.card is None


def test_card_is_shown_in_the_members_language(explain):
    assert explain.explain("detach", "zh-CN").body == "把张量从计算图中分离。"


def test_empty_query_lists_the_cards(explain):
    assert "detach" in explain.explain("", "en").body


def test_autocomplete_offers_prefix_matches_first(explain):
    assert explain.complete("de")[0] == "detach"
    assert "view-vs-reshape" in explain.complete("resh")
