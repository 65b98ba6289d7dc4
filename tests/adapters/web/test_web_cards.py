"""The question browser's first part: concept cards, the shipped ones and the workspace's own."""

from __future__ import annotations

import pytest

from bot.bootstrap import library
from bot.core.quiz import build_quiz
from content.loader import load_bank
from content.packs import parse_pack
from db.store_packs import PackStore
from tests.adapters.web.support import BASE, link, serve, sign_in, who
from tests.support.core import BANK


def _card_pack(pack_id: str, body: str = "A body.") -> tuple[str, object]:
    text = (f"pack:\n  id: {pack_id}\n  title: The {pack_id} pack\n  version: 1\n"
            "  locales: [en]\nitems:\n"
            f"  - id: card\n    version: 1\n    kind: explain\n    topic: team-{pack_id}\n"
            f"    title: \"{pack_id} card\"\n    body: \"{body}\"\n"
            "    example: \"print('an example')\"\n")
    pack = parse_pack(text.encode()).pack
    assert pack is not None
    return pack_id, pack


@pytest.fixture
def packed(store, clock, engine):
    """The core over the live library, with a card pack for W1 and one for another workspace."""
    shelf = PackStore(engine)
    body = "Hostile \\u202e <script>alert(1)</script> body."
    for (_, pack), scope in ((_card_pack("ours", body), "slack:W1"),
                             (_card_pack("theirs"), "slack:W2")):
        shelf.add(pack.id, 1, scope, pack.header.title, ("en",), pack.text, pack.document)
    return build_quiz(store, library(load_bank(BANK), engine), clock, web_url=BASE)


def _get(quiz, *paths):
    signin = link(quiz, who())

    async def scenario(client):
        await sign_in(client, signin)
        found = []
        for path in paths:
            response = await client.get(path)
            found.append((response.status, await response.text()))
        return found

    return serve(quiz, scenario)


def test_the_cards_page_lists_the_shipped_cards_and_the_workspaces_own(packed):
    [(status, html)] = _get(packed, "/cards")
    assert status == 200 and "/cards/detach" in html and "ours card" in html
    assert "theirs" not in html


def test_a_card_shows_its_body_and_example_as_text(packed):
    [(status, html)] = _get(packed, "/cards/p.ours.card")
    assert status == 200 and "print(&#39;an example&#39;)" in html
    assert "<script>" not in html and "&lt;script&gt;" in html and "\u202e" not in html


def test_another_workspaces_card_and_an_unknown_one_are_not_found(packed):
    found = _get(packed, "/cards/p.theirs.card", "/cards/no-such-card", "/cards/.env")
    assert [status for status, _ in found] == [404, 404, 404]
    assert "theirs card" not in found[0][1]
