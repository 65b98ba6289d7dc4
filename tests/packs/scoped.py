"""Small packs for tests of what each workspace sees (core, Discord, Slack)."""

from __future__ import annotations

from typing import Any

from bot.bootstrap import database_url
from content.packs import parse_pack
from db.engine import make_engine
from db.store_packs import PackStore

# Another workspace on the same platform as a chat driver's fake one.
FOREIGN = {"discord": "discord:123456789", "slack": "slack:T0OTHERS"}


def pack_yaml(pack_id: str, *, version: int = 1, items: tuple[str, ...] = ("one",),
              topic: str = "") -> bytes:
    topic = topic or f"team-{pack_id}"
    parts = [f"pack:\n  id: {pack_id}\n  title: The {pack_id} pack\n  version: {version}\n"
             "  locales: [en]\nitems:\n"]
    for local in items:
        parts.append(
            f"  - id: {local}\n    version: {version}\n    kind: choice\n"
            f"    topics: [{topic}]\n    difficulty: 1\n"
            f"    prompt: \"{pack_id} question {local}?\"\n"
            "    choices:\n"
            "      - {key: A, text: \"right one\", correct: true}\n"
            "      - {key: B, text: \"wrong one\", why: \"Because.\"}\n"
            f"    explanation: \"{pack_id} {local} explained.\"\n")
    parts.append(
        f"  - id: card\n    version: 1\n    kind: explain\n    topic: {topic}\n"
        f"    aliases: [\"{pack_id} secret\"]\n    title: \"{pack_id} card\"\n"
        f"    body: \"The {pack_id} card's body.\"\n    example: \"print('an example')\"\n")
    return "".join(parts).encode()


def store_packs(d: Any) -> None:
    """Store a pack for the driver's workspace ("ours") and one for another ("theirs")."""
    engine = make_engine(database_url(d.config))  # as `torchquiz pack add` reaches it
    try:
        store = PackStore(engine)
        for pack_id, scope in (("ours", d.pack_scope()), ("theirs", FOREIGN[d.platform])):
            pack = parse_pack(pack_yaml(pack_id)).pack
            assert pack is not None
            store.add(pack.id, 1, scope, pack.header.title, ("en",), pack.text, pack.document)
    finally:
        engine.dispose()
    d.quiz.rounds.bank.invalidate()  # the replica that stored them sees them at once
