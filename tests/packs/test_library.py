"""Packs in the core: each workspace sees its own, they go live without a restart, history stays.

Real stores on SQLite and PostgreSQL: packs are stored as `torchquiz pack add` stores them and
read through the same source the bot wires (bot/pack_source.py).
"""

from __future__ import annotations

import contextlib

import pytest
from sqlalchemy import event

from bot.core.desk import Desk
from bot.core.kernel.models import Actor, AnswerMode, ChannelDefaults, ChannelUpdate, Identity
from bot.core.packs.library import Library
from bot.core.quality.reports import Where
from bot.core.quiz import build_quiz
from bot.pack_source import StoredPackSource
from content.packs import parse_pack
from db.store_packs import EVERY_WORKSPACE, PackStore
from tests.packs.scoped import pack_yaml
from tests.support.core import RecordingExecutor


def add(engine, pack_id: str, scope: str, **options) -> None:
    parsed = parse_pack(pack_yaml(pack_id, **options))
    assert parsed.pack is not None and not parsed.problems, parsed.problems
    pack = parsed.pack
    PackStore(engine).add(pack.id, pack.header.version, scope, pack.header.title,
                          tuple(pack.header.locales), pack.text, pack.document)


class Ticks:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()


@pytest.fixture
def library(engine, bank, ticks) -> Library:
    add(engine, "alpha", "slack:TA")
    add(engine, "beta", "slack:TB")
    add(engine, "shared", EVERY_WORKSPACE)
    return Library(bank, StoredPackSource(engine), interval_s=5.0, monotonic=ticks)


@pytest.fixture
def packed(store, library, clock):
    return build_quiz(store, library, clock, RecordingExecutor())


def who(workspace: str = "TA", *, admin: bool = False, channel: str = "general") -> Identity:
    return Identity(platform="slack", workspace=workspace, channel=channel, user=f"U-{workspace}",
                    display_name="Ann", locale="en", is_admin=admin, channel_name=channel)


def quiz_channel(packed, workspace: str = "TA", name: str = "general"):
    return packed.rounds.channel("slack", f"{workspace}-{name}", workspace,
                                 ChannelDefaults(name=name))


@contextlib.contextmanager
def statements(engine):
    """Record every SQL statement run on ``engine`` inside the block."""
    seen: list[str] = []

    def on_execute(_conn, _cursor, statement, *_args):
        if not statement.startswith("BEGIN"):  # SQLite's own transaction start
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", on_execute)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", on_execute)


# ---------------------------------------------------------------- one workspace, one view
def test_autocomplete_lists_only_the_workspaces_own_and_shared_packs(packed):
    desk = Desk(packed)
    topics = desk.topic_choices("team", 25, who("TA"))
    assert "team-alpha" in topics and "team-shared" in topics
    assert "team-beta" not in topics
    cards = [card for _, card in desk.explain_choices("", "en", 200, who("TA"))]
    assert "p.alpha.card" in cards and "p.shared.card" in cards
    assert "p.beta.card" not in cards
    beta_side = [card for _, card in desk.explain_choices("card", "en", 200, who("TB"))]
    assert "p.beta.card" in beta_side and "p.alpha.card" not in beta_side


def test_explain_never_finds_suggests_or_shares_another_workspaces_card(packed):
    desk = Desk(packed)
    for query in ("p.beta.card", "beta secret", "beta card"):
        reply = desk.command(who("TA"), "explain", query)
        assert "The beta card's body" not in reply.message.body
        assert "p.beta" not in reply.message.body.replace(f"'{query}'", "")  # echoed back
    listing = desk.command(who("TA"), "explain", "")
    assert "p.alpha.card" in listing.message.body and "p.beta.card" not in listing.message.body
    shared = desk.click(who("TA"), "tq:share:p.beta.card:card")
    assert "no longer" in shared.message.body and not shared.public
    own = desk.command(who("TB"), "explain", "beta secret")
    assert "The beta card's body" in own.message.body


def test_practice_draws_only_from_what_the_workspace_sees(packed):
    desk = Desk(packed)
    refused = desk.command(who("TA"), "quiz", "team-beta")
    assert "beta question" not in refused.message.body
    assert "team-beta" not in refused.message.body.split("Topics:")[-1]
    own = desk.command(who("TA"), "quiz", "team-alpha")
    assert "alpha question one?" in own.message.body
    shared = desk.command(who("TB"), "quiz", "team-shared")
    assert "shared question one?" in shared.message.body


def test_the_daily_pick_of_a_channel_never_takes_another_workspaces_pack(packed):
    channel = quiz_channel(packed, "TA")
    everything = packed.rounds.store.update_channel(
        channel.id, ChannelUpdate(packs=("alpha", "bank", "beta", "shared")))
    eligible = packed.rounds.eligible_items(everything)
    assert any(i.startswith("p.alpha.") for i in eligible)
    assert any(i.startswith("p.shared.") for i in eligible)
    assert not any(i.startswith("p.beta.") for i in eligible)


def test_setup_topics_and_pack_ids_are_the_workspaces_own(packed):
    desk = Desk(packed)
    quiz_channel(packed, "TA")
    bad_topic = desk.settings(who("TA", admin=True, channel="TA-general"), "", "",
                              {"topics": "team-beta"})
    assert "Unknown topic 'team-beta'" in bad_topic.message.body
    assert "team-beta" not in bad_topic.message.body.split("Did you mean:")[-1]  # not suggested
    bad_pack = desk.settings(who("TA", admin=True, channel="TA-general"), "", "",
                             {"packs": "bank,beta"})
    assert "Unknown pack 'beta'" in bad_pack.message.body
    assert "beta" not in bad_pack.message.body.split("Packs:")[-1]
    ok = desk.settings(who("TA", admin=True, channel="TA-general"), "", "",
                       {"topics": "team-alpha"})
    assert "Settings saved" in ok.message.body


def test_team_stats_and_insights_name_only_the_workspaces_cards_and_items(packed, clock):
    desk = Desk(packed)
    for workspace, pack in (("TA", "alpha"), ("TB", "beta")):
        channel = quiz_channel(packed, workspace)
        channel = packed.rounds.store.update_channel(
            channel.id, ChannelUpdate(packs=(pack,)))
        rnd = packed.rounds.post_round(channel.id).round
        assert rnd.item_id == f"p.{pack}.one"
        member = packed.rounds.member("slack", f"U-{workspace}", "Ann")
        packed.rounds.answer(rnd, channel, Actor(member), "B", AnswerMode.BUTTON)
        reported = desk.reports.file_for_item(member, Where("slack", workspace),
                                              f"p.{pack}.one", "ambiguous", "", "en")
        assert reported.tone.value == "success", reported.body
    team = desk.command(who("TA", admin=True, channel="TA-general"), "stats", "team")
    assert "p.alpha.card" in team.message.body and "p.beta" not in team.message.body
    theirs = desk.command(who("TB", admin=True, channel="TB-general"), "insights")
    assert "p.beta.one" in theirs.message.body  # listed where it belongs
    ours = desk.command(who("TA", admin=True, channel="TA-general"), "insights")
    assert "p.alpha.one" in ours.message.body and "p.beta" not in ours.message.body
    forged = desk.click(who("TA", admin=True), "tq:unpause:p.beta.one:item")
    assert "p.beta" not in forged.message.body


# ---------------------------------------------------------------- a channel's choice
def test_a_channel_draws_from_the_packs_it_chose_and_bank_names_the_shipped_bank(packed):
    desk = Desk(packed)
    channel = quiz_channel(packed, "TA")
    admin = who("TA", admin=True, channel="TA-general")
    assert channel.packs == ("bank",)
    assert not any(i.startswith("p.") for i in packed.rounds.eligible_items(channel))
    saved = desk.settings(admin, "", "", {"packs": "alpha"})
    assert "Settings saved" in saved.message.body
    assert ("packs", "alpha") in saved.message.fields
    channel = packed.rounds.find_channel("slack", "TA-general")
    assert channel.packs == ("alpha",)
    assert set(packed.rounds.eligible_items(channel)) == {"p.alpha.one"}
    desk.settings(admin, "", "", {"packs": "alpha, bank"})
    channel = packed.rounds.find_channel("slack", "TA-general")
    assert channel.packs == ("bank", "alpha")
    eligible = packed.rounds.eligible_items(channel)
    assert "p.alpha.one" in eligible and any(not i.startswith("p.") for i in eligible)
    desk.settings(admin, "", "", {"packs": ""})
    assert packed.rounds.find_channel("slack", "TA-general").packs == ("bank",)


def test_practice_without_a_topic_draws_new_questions_from_the_channels_packs(packed):
    desk = Desk(packed)
    quiz_channel(packed, "TA")
    desk.settings(who("TA", admin=True, channel="TA-general"), "", "", {"packs": "alpha"})
    reply = desk.command(who("TA", channel="TA-general"), "quiz")
    assert "alpha question one?" in reply.message.body


@pytest.mark.parametrize("value, expected", [
    ("bank,nope", "Unknown pack 'nope'"),
    ("ALPHA;drop table", "Unknown pack"),
    ("bänk", "ASCII"),
    ("a," * 300, "at most"),
])
def test_a_bad_pack_choice_is_refused_with_a_specific_error_and_changes_nothing(
        packed, value, expected):
    desk = Desk(packed)
    quiz_channel(packed, "TA")
    reply = desk.settings(who("TA", admin=True, channel="TA-general"), "", "", {"packs": value})
    assert expected in reply.message.body
    assert packed.rounds.find_channel("slack", "TA-general").packs == ("bank",)


def test_filters_that_leave_the_chosen_packs_empty_fall_back_to_the_bank_and_say_so(packed):
    desk = Desk(packed)
    quiz_channel(packed, "TA")
    reply = desk.settings(who("TA", admin=True, channel="TA-general"), "", "",
                          {"packs": "alpha", "topics": "tensors"})
    assert "shipped bank" in reply.message.body
    channel = packed.rounds.find_channel("slack", "TA-general")
    eligible = packed.rounds.eligible_items(channel)
    assert eligible and not any(i.startswith("p.") for i in eligible)
    assert packed.rounds.post_round(channel.id) is not None


# ---------------------------------------------------------------- live across replicas
def test_a_pack_stored_elsewhere_is_drawn_after_the_check_interval_without_a_restart(
        engine, packed, library, ticks):
    desk = Desk(packed)
    assert "team-gamma" not in desk.topic_choices("", 50, who("TA"))
    add(engine, "gamma", "slack:TA")  # the command line, or another replica
    ticks.now += 4.9
    with statements(engine) as seen:
        for _ in range(3):
            assert "team-gamma" not in packed.practice.topics("slack:TA")
            assert packed.explain.explain("gamma secret", "en", "slack:TA").tone.value
    assert seen == []  # within the interval: not one query, however many requests
    ticks.now += 0.2
    with statements(engine) as seen:
        assert "team-gamma" in packed.practice.topics("slack:TA")
    assert len(seen) >= 2  # the stamp, then the packs
    assert "team-gamma" not in packed.practice.topics("slack:TB")
    ticks.now += 5.0
    with statements(engine) as seen:
        packed.practice.topics("slack:TA")
        packed.practice.topics("slack:TA")
    assert len(seen) == 1  # nothing changed: the stamp alone


def test_invalidate_makes_the_next_request_see_a_pack_at_once(engine, packed, library):
    add(engine, "delta", "slack:TA")
    assert "team-delta" not in packed.practice.topics("slack:TA")
    library.invalidate()
    assert "team-delta" in packed.practice.topics("slack:TA")


def test_a_removal_elsewhere_is_seen_after_the_interval(engine, packed, library, ticks):
    assert "team-alpha" in packed.practice.topics("slack:TA")
    assert PackStore(engine).remove("alpha", "slack:TA")
    ticks.now += 5.0
    assert "team-alpha" not in packed.practice.topics("slack:TA")


def test_the_library_keeps_its_identity_for_every_service(packed, library):
    assert packed.rounds.bank is library
    assert packed.practice.bank is library
    assert packed.board.bank is library
    assert packed.explain.library is library


# ---------------------------------------------------------------- removed packs keep history
def test_a_round_open_on_a_removed_packs_item_is_still_shown_graded_and_revealed(
        engine, packed, library, clock):
    channel = quiz_channel(packed, "TA")
    channel = packed.rounds.store.update_channel(channel.id, ChannelUpdate(packs=("alpha",)))
    rnd = packed.rounds.post_round(channel.id).round
    assert rnd.item_id == "p.alpha.one"
    assert PackStore(engine).remove("alpha", "slack:TA")
    library.refresh()
    assert "p.alpha.one" not in packed.rounds.eligible_items(channel)
    assert "team-alpha" not in packed.practice.topics("slack:TA")
    assert "alpha question one?" in packed.rounds.round_message(rnd, channel).body
    shown = Desk(packed).settings(who("TA", channel="TA-general"), "", "", {}).message
    assert ("packs no longer available", "alpha") in shown.fields
    member = packed.rounds.member("slack", "U-TA", "Ann")
    outcome = packed.rounds.answer(rnd, channel, Actor(member), "A", AnswerMode.BUTTON)
    assert outcome.recorded
    clock.advance(hours=24)
    reveals = packed.rounds.close_due_rounds()
    assert [r.round.id for r in reveals] == [rnd.id]
    assert "alpha one explained." in reveals[0].message.body
    stats = packed.board.stats_message(channel, member, "en")
    assert "1" in stats.body


def test_a_removed_packs_reviews_are_no_longer_served(engine, packed, library, clock):
    desk = Desk(packed)
    first = desk.command(who("TA"), "quiz", "team-alpha")
    assert "alpha question one?" in first.message.body
    desk.click(who("TA"), "tq:practice:p.alpha.one:B")  # wrong: due again in a minute
    clock.advance(minutes=2)
    again = desk.command(who("TA"), "quiz")
    assert "alpha question one?" in again.message.body  # the review is served
    desk.click(who("TA"), "tq:practice:p.alpha.one:A")
    clock.advance(days=30)
    PackStore(engine).remove("alpha", "slack:TA")
    library.refresh()
    later = desk.command(who("TA"), "quiz")
    assert "alpha question" not in later.message.body


def test_a_new_version_keeps_the_answers_and_rounds_of_the_earlier_one(
        engine, packed, library, clock):
    add(engine, "eps", "slack:TA", items=("kept", "dropped"))
    library.refresh()
    channel = quiz_channel(packed, "TA")
    channel = packed.rounds.store.update_channel(
        channel.id, ChannelUpdate(packs=("eps",), topics=()))
    rounds = {}
    member = packed.rounds.member("slack", "U-TA", "Ann")
    for _ in range(2):
        rnd = packed.rounds.post_round(channel.id).round
        rounds[rnd.item_id] = rnd
        packed.rounds.answer(rnd, channel, Actor(member), "A", AnswerMode.BUTTON)
        clock.advance(days=1)
        packed.rounds.close_due_rounds()
    assert set(rounds) == {"p.eps.kept", "p.eps.dropped"}
    add(engine, "eps", "slack:TA", version=2, items=("kept",))
    library.refresh()
    assert library.question("p.eps.kept").version == 2
    assert library.question("p.eps.dropped").version == 1  # history: still resolvable
    assert packed.rounds.eligible_items(channel) == ["p.eps.kept"]
    for item_id, rnd in rounds.items():
        assert rnd.item_version == 1
        assert len(packed.rounds.store.answers_for(rnd.id, member.id)) == 1
        assert "question" in packed.rounds.round_message(rnd, channel).body, item_id
    stats = packed.board.stats(channel, member)
    assert stats.solved == 2


def test_starting_with_fifty_stored_packs_loads_them_all(engine, bank):
    for n in range(50):
        add(engine, f"many-{n}", "slack:TA")
    library = Library(bank, StoredPackSource(engine))
    assert len([p for p in library.view("slack:TA").packs if p.pack_id.startswith("many-")]) \
        == 50


class Flaky:
    """A pack source whose database goes away after the first load."""

    def __init__(self, real: StoredPackSource) -> None:
        self.real = real
        self.down = False

    def stamp(self) -> object:
        if self.down:
            raise ConnectionError("the database went away")
        return self.real.stamp()

    def load(self):
        return self.real.load()


def test_a_database_outage_keeps_the_loaded_packs_and_the_next_check_reloads(
        engine, bank, ticks):
    add(engine, "alpha", "slack:TA")
    source = Flaky(StoredPackSource(engine))
    library = Library(bank, source, interval_s=5.0, monotonic=ticks)
    assert "team-alpha" in library.view("slack:TA").topics
    source.down = True
    add(engine, "gamma", "slack:TA")
    ticks.now += 5.0
    assert "team-alpha" in library.view("slack:TA").topics  # served as loaded, no error
    source.down = False
    ticks.now += 5.0
    assert "team-gamma" in library.view("slack:TA").topics


def test_a_removed_packs_reviews_call_for_no_reminder_and_leave_the_home_tab(
        engine, packed, library, clock):
    desk = Desk(packed)
    channel = quiz_channel(packed, "TA")
    member = packed.rounds.member("slack", "U-TA", "Ann")
    packed.reminders.turn_on(member, channel, 9, "en")
    desk.command(who("TA"), "quiz", "team-alpha")
    desk.click(who("TA"), "tq:practice:p.alpha.one:B")  # a miss: due again within minutes
    clock.advance(days=1, hours=2)
    nothing = packed.reminders.home_line(member, "en", "slack:TNONE")  # alpha unseen there
    assert packed.reminders.home_line(member, "en", "slack:TA") != nothing
    PackStore(engine).remove("alpha", "slack:TA")
    library.refresh()
    assert packed.reminders.due("slack") == []
    assert packed.reminders.home_line(member, "en", "slack:TA") == nothing


def test_a_review_still_served_calls_for_a_reminder(engine, packed, library, clock):
    desk = Desk(packed)
    channel = quiz_channel(packed, "TA")
    member = packed.rounds.member("slack", "U-TA", "Ann")
    packed.reminders.turn_on(member, channel, 9, "en")
    desk.command(who("TA"), "quiz", "team-alpha")
    desk.click(who("TA"), "tq:practice:p.alpha.one:B")
    clock.advance(days=1, hours=2)
    nudges = packed.reminders.due("slack")
    assert [n.user_id for n in nudges] == [member.id]


def test_a_pack_cannot_take_the_id_that_names_the_shipped_bank():
    parsed = parse_pack(pack_yaml("bank"))
    assert parsed.pack is None
    assert "names the shipped questions" in parsed.problems[0].message


def test_the_stamp_changes_with_every_add_remove_and_revival(engine):
    store = PackStore(engine)
    stamps = [store.stamp()]
    add(engine, "zeta", "slack:TA")
    stamps.append(store.stamp())
    assert store.remove("zeta", "slack:TA")
    stamps.append(store.stamp())
    add(engine, "zeta", "slack:TA", version=2)  # a new version revives it
    stamps.append(store.stamp())
    assert store.remove("zeta", "slack:TA")
    stamps.append(store.stamp())
    assert len(set(stamps)) == len(stamps), stamps


def test_the_quiz_hands_out_its_library_to_invalidate(packed, library):
    assert packed.library is library


def test_workspaces_without_packs_of_their_own_share_one_view(library):
    shared = library.view("slack:T1")
    assert all(library.view(f"slack:T{n}") is shared for n in range(2, 50))
    assert library.view("slack:TA") is not shared
    assert library.view("slack:TA", ["bank", "gone"]) is library.view("slack:TA", ["bank"])


def test_autocomplete_answers_from_what_is_loaded_and_has_the_check_made_behind_it(
        engine, packed, library, ticks):
    desk = Desk(packed)
    add(engine, "gamma", "slack:TA")
    ticks.now += 5.0
    first = desk.topic_choices("team", 50, who("TA"))
    assert "team-gamma" not in first  # answered at once, from the loaded packs
    library._refresher.join()
    assert "team-gamma" in desk.topic_choices("team", 50, who("TA"))
