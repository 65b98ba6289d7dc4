"""How a channel's draw mixes a team's pack with the bank, an admin's preview of a pack, the
topic a practice question is named by, and when a pack's reference solution is shown."""

from __future__ import annotations

import pytest

from bot.core.desk import Desk
from bot.core.kernel.models import ChannelDefaults, ChannelUpdate, Identity
from bot.core.learning import daily_pick
from bot.core.packs.library import Library
from bot.core.quiz import build_quiz
from bot.pack_source import StoredPackSource
from content.packs import SCAFFOLD, parse_pack
from db.store_packs import EVERY_WORKSPACE, PackStore
from tests.packs.scoped import pack_yaml
from tests.support.core import RecordingExecutor

SOLUTION_LINE = "return x / x.sum(dim=1, keepdim=True)"


def add_text(engine, data: bytes, scope: str) -> None:
    parsed = parse_pack(data)
    assert parsed.pack is not None and not parsed.problems, parsed.problems
    pack = parsed.pack
    PackStore(engine).add(pack.id, pack.header.version, scope, pack.header.title,
                          tuple(pack.header.locales), pack.text, pack.document)


def code_pack(*, show_solutions: bool | None = None) -> bytes:
    """The scaffold's code challenge alone, on a topic of its own."""
    head, rest = SCAFFOLD.split("items:\n", 1)
    item = rest[rest.index("  - id: row-normalise"):].replace("topics: [tensors]",
                                                             "topics: [team-rows]")
    if show_solutions is not None:
        head += f"  show_solutions: {str(show_solutions).lower()}\n"
    return (head + "items:\n" + item).encode()


@pytest.fixture
def library(engine, bank):
    add_text(engine, pack_yaml("alpha", items=("one", "two", "three", "four", "five")),
             "slack:TA")
    add_text(engine, pack_yaml("shared"), EVERY_WORKSPACE)
    mixed = pack_yaml("mixed").replace(b"topics: [team-mixed]", b"topics: [tensors, prefix-sum]")
    add_text(engine, mixed, "slack:TA")
    return Library(bank, StoredPackSource(engine), interval_s=5.0)


@pytest.fixture
def packed(store, library, clock):
    return build_quiz(store, library, clock, RecordingExecutor())


def who(workspace: str = "TA", *, admin: bool = False, channel: str = "TA-general") -> Identity:
    return Identity(platform="slack", workspace=workspace, channel=channel, user=f"U-{workspace}",
                    display_name="Ann", locale="en", is_admin=admin, channel_name=channel)


def quiz_channel(packed, workspace: str = "TA", packs: tuple[str, ...] = ("bank",)):
    channel = packed.rounds.channel("slack", f"{workspace}-general", workspace,
                                    ChannelDefaults(name="general"))
    return packed.rounds.store.update_channel(channel.id, ChannelUpdate(packs=packs))


# ---------------------------------------------------------------- the daily draw
def test_daily_pick_takes_the_first_items_until_each_was_used():
    eligible = [f"bank{i}" for i in range(50)] + ["p.t.a", "p.t.b"]
    first = {"p.t.a", "p.t.b"}
    used: dict = {}
    picked = [daily_pick(eligible, used, salt="s", first=first)]
    used[picked[0]] = 1
    picked.append(daily_pick(eligible, used, salt="s", first=first))
    assert set(picked) == first
    used[picked[1]] = 2
    assert daily_pick(eligible, used, salt="s", first=first).startswith("bank")


def test_a_channel_posts_each_of_its_teams_items_before_the_bank_again(packed, clock):
    channel = quiz_channel(packed, packs=("bank", "alpha"))
    posted = []
    for _ in range(6):
        post = packed.rounds.post_round(channel.id)
        posted.append(post.round.item_id)
        clock.advance(days=1)
    # About 270 bank items against 5 of the team's: without the rule, the team's came rarely.
    assert set(posted[:5]) == {f"p.alpha.{i}" for i in ("one", "two", "three", "four", "five")}
    assert not posted[5].startswith("p.")


# ---------------------------------------------------------------- /quiz TOPIC
def test_quiz_on_a_packs_topic_names_that_topic(packed):
    reply = Desk(packed).command(who("TA"), "quiz", "prefix-sum")
    message = reply.message
    assert "mixed question one?" in message.body
    assert message.title == "Practice · prefix-sum"  # not the item's first topic, tensors
    assert "prefix-sum" in message.body.split("\n")[0]


# ---------------------------------------------------------------- an admin's preview
def test_an_admin_previews_their_own_pack(packed):
    reply = Desk(packed).command(who("TA", admin=True), "quiz", "alpha")
    assert reply.message.title == "Preview · pack alpha"
    assert "alpha question" in reply.message.body


def test_a_preview_is_refused_to_a_member_who_is_not_an_admin(packed):
    reply = Desk(packed).command(who("TA"), "quiz", "alpha")
    assert "Only admins can preview a team pack" in reply.message.body
    assert "alpha question" not in reply.message.body


def test_a_preview_is_refused_in_chinese_too(packed, store):
    channel = quiz_channel(packed)
    store.update_channel(channel.id, ChannelUpdate(locale="zh-CN"))
    reply = Desk(packed).command(who("TA"), "quiz", "alpha")
    assert "只有管理员可以预览团队题包" in reply.message.body


@pytest.mark.parametrize("workspace, pack", [("TB", "alpha"), ("TA", "shared")])
def test_only_the_workspaces_own_packs_are_previewed(packed, workspace, pack):
    reply = Desk(packed).command(who(workspace, admin=True), "quiz", pack)
    assert "Preview" not in reply.message.title
    assert "alpha question" not in reply.message.body


def test_a_preview_never_serves_an_open_rounds_question(engine, packed, library):
    add_text(engine, pack_yaml("solo"), "slack:TA")
    library.refresh()
    channel = quiz_channel(packed, packs=("solo",))
    assert packed.rounds.post_round(channel.id).round.item_id == "p.solo.one"
    reply = Desk(packed).command(who("TA", admin=True), "quiz", "solo")
    assert "solo question one?" not in reply.message.body
    assert "no question to preview now" in reply.message.body


# ---------------------------------------------------------------- reference solutions
@pytest.mark.parametrize("shown", [None, False])
def test_the_reveal_shows_a_packs_solution_unless_the_pack_says_not(
        engine, packed, library, clock, shown):
    add_text(engine, code_pack(show_solutions=shown), "slack:TA")
    library.refresh()
    channel = quiz_channel(packed, packs=("my-team",))
    rnd = packed.rounds.post_round(channel.id).round
    assert SOLUTION_LINE not in (packed.rounds.round_message(rnd, channel).code or "")
    clock.advance(hours=24)
    (reveal,) = packed.rounds.close_due_rounds()
    code = reveal.message.code or ""
    assert (SOLUTION_LINE in code) is (shown is None)
    assert "reference solution" not in reveal.message.body.lower() or shown is None


@pytest.mark.parametrize("shown", [None, False])
def test_practice_shows_a_packs_solution_once_its_tries_are_spent_unless_hidden(
        engine, packed, library, shown):
    add_text(engine, code_pack(show_solutions=shown), "slack:TA")
    library.refresh()
    desk = Desk(packed)
    question = desk.command(who("TA"), "quiz", "team-rows")
    assert "row_normalise" in question.message.body
    assert SOLUTION_LINE not in question.message.body + (question.message.code or "")
    skipped = desk.practice_skip(who("TA"), "p.my-team.row-normalise")
    assert (SOLUTION_LINE in skipped.message.body) is (shown is None)


# ---------------------------------------------------------------- re-adding a removed pack
class NoCheck:
    """A checker that must not be reached: the shelf refuses the pack from its header."""

    def check(self, data):
        raise AssertionError("the sandbox check ran for a pack the shelf refuses")


@pytest.mark.parametrize("locale, expected", [
    ("en", "was removed at version 1"), ("zh-CN", "在第 1 版时已被移除")])
def test_readding_a_removed_pack_from_chat_is_refused_before_the_check(
        engine, packed, store, locale, expected):
    from bot.core.kernel.ports import PackTools
    from bot.pack_tools import StorePackShelf
    from tests.support.packs import choice_pack

    add_text(engine, choice_pack("team"), "slack:TA")
    assert PackStore(engine).remove("team", "slack:TA")
    channel = quiz_channel(packed)
    store.update_channel(channel.id, ChannelUpdate(locale=locale))
    desk = Desk(packed, PackTools(NoCheck(), StorePackShelf(PackStore(engine))))
    reply = desk.pack_add(who("TA", admin=True), "team.yaml", choice_pack("team"))
    assert expected in reply.message.body
