"""A member's own data: the export holds every row about them and nothing of anyone else's;
forgetting deletes exactly their rows, and the boards stay equal to a recount."""

from __future__ import annotations

import datetime as dt
import random
import threading
import time

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.exc import IntegrityError

from bot.core.kernel.i18n import t
from bot.core.kernel.models import (
    AnswerDraft,
    AnswerMode,
    Attempts,
    ChannelUpdate,
    LiveAnswer,
    LiveDraft,
    PendingDraft,
    PracticeSession,
    Reminder,
    ReportDraft,
    Review,
    SpeedShapeFigure,
    SpeedVerdictRecord,
)
from bot.core.kernel.models import week_start as week_of
from bot.core.people.service import SECTION_ORDER
from db.engine import make_engine
from db.forgotten import forgotten_mark
from db.store import SqlStore
from db.store_members import SECTIONS
from db.tables import AnswerRow, Base, UserRow
from tests.db.builders import (
    DAY,
    HOUR,
    T0,
    answer,
    make_channel,
    make_member,
    open_round,
    race,
)

TABLES_WITH_MEMBERS = sorted(t.name for t in Base.metadata.sorted_tables if "user_id" in t.c)


def _play(store, member, channel, rnd, tag, *, day_offset=0):
    """Give ``member`` a row in every section: answers, a pending answer, practice, a review."""
    at = T0 + dt.timedelta(days=day_offset)
    answer(store, rnd, member, 1, correct=False, points=0, at=at, response=f"{tag} first")
    answer(store, rnd, member, 2, correct=True, points=8, at=at + HOUR, response=f"{tag} second")
    store.add_pending(PendingDraft(rnd.id, member.id, AnswerMode.CODE, f"def f(): return '{tag}'",
                                   "en", at + 2 * HOUR))
    store.start_practice(PracticeSession(member.id, "autograd.detach", 1, at, attempts=1))
    store.record_practice_result(member.id, "tensors.view", 1, True, at)
    store.save_review(Review(member.id, "tensors.view", state=2, step=None, stability=3.2,
                             difficulty=5.0, due_at=at + 72 * HOUR, reviewed_at=at,
                             last_correct=True))
    store.add_report(ReportDraft(member.id, f"item-{tag}", 1, "incorrect", f"{tag} note",
                                 "slack", "W1", at))
    store.save_reminder(Reminder(member.id, "slack", member.external_id, channel.id,
                                 dt.time(18), "UTC", True, at + 10 * HOUR))
    # A live session's join and answer (the first member in a channel hosts its session).
    live = store.active_live(channel.id) or store.create_live(
        LiveDraft(channel.id, member.id, at, at, (("tensors.view", 1, 20),)))
    store.open_live_question(live.id, 0, at, at + HOUR)
    store.join_live(live.id, member.id, at)
    store.record_live_answer(LiveAnswer(live.id, 0, member.id, "B", True, 10, at, 1500))
    # A speed challenge served and answered (db/store_speed.py).
    store.open_speed(member.id, "speed.test-row-norms", 1, at)
    store.add_speed_verdict(SpeedVerdictRecord(
        member.id, channel.id, "slack:W1", "speed.test-row-norms", 1, "released", True, False,
        2.5, (SpeedShapeFigure("small", 2.5, 2.1, 2.9),), "", at))


@pytest.fixture
def world(store):
    """Ada plays in two workspaces' channels, Bob in the first; both practise."""
    c1 = make_channel(store, "C1", workspace="W1", name="general")
    c2 = make_channel(store, "C2", workspace="W2", name="ml")
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    r1, r2 = open_round(store, c1), open_round(store, c2)
    _play(store, ada, c1, r1, "ada-c1")
    _play(store, ada, c2, r2, "ada-c2")
    _play(store, bob, c1, r1, "bob-c1")
    return {"c1": c1, "c2": c2, "ada": ada, "bob": bob, "r1": r1, "r2": r2}


def _counts(store, user_id):
    """Return the rows each table holds about a member, counted straight from the tables."""
    with store.engine.connect() as connection:
        return {
            table.name: connection.scalar(
                select(func.count()).select_from(table).where(table.c.user_id == user_id))
            for table in Base.metadata.sorted_tables if "user_id" in table.c
        }


def _assert_boards_equal_a_recount(store, channel, now):
    for since in (None, week_of(now, channel.timezone)):
        recount = [row for row in store.scores(channel.id, since) if row.points > 0]
        assert store.top_scores(channel.id, since, None) == recount, since
    for row in store.scores(channel.id):
        assert store.member_score(channel.id, row.user_id) == row


def test_the_totals_sections_have_words_in_both_languages_for_forget_me():
    # A section without them would be shown by its English name in a zh-CN reply. (The live
    # sections have none yet: they read as "2 live answers" in every language.)
    for section in SECTIONS[2:5]:
        assert section.name in SECTION_ORDER, section.name
        for locale in ("en", "zh-CN"):
            for form in ("one", "other"):
                said = t(locale, f"data.{section.name}.{form}", n=2)
                assert said and not said.startswith("data."), (section.name, locale)


def test_every_table_that_references_members_is_a_section():
    # A table added later without its section would make forget_member fail on the foreign key.
    assert sorted(s.table.__tablename__ for s in SECTIONS) == TABLES_WITH_MEMBERS


def test_export_holds_every_section_with_the_members_rows(store, world):
    data = store.member_data("slack", "U1")
    assert data.member == world["ada"]
    assert [s.name for s in data.sections] == [s.name for s in SECTIONS]
    counts = data.counts()
    # No topic totals: the store was never given the library's topics (sync_item_topics).
    assert counts == {"answers": 4, "pending_answers": 2, "score_totals": 2, "week_totals": 2,
                      "topic_totals": 0, "practice_session": 1, "practice_results": 2,
                      "review_cards": 1, "reports": 2, "reminders": 1, "live_answers": 2,
                      "live_players": 2, "speed_verdicts": 2, "speed_challenge": 1}
    tables = _counts(store, world["ada"].id)
    assert counts == {s.name: tables[s.table.__tablename__] for s in SECTIONS}
    answers = {s.name: s for s in data.sections}["answers"].rows
    assert sorted(r["response"] for r in answers) == [
        "ada-c1 first", "ada-c1 second", "ada-c2 first", "ada-c2 second"]
    first = answers[0]
    assert (first["channel"], first["workspace"], first["round_date"], first["item_id"]) == (
        "C1", "W1", DAY, "tensors.view")
    assert first["submitted_at"] == T0


def test_export_holds_nothing_of_another_member(store, world):
    data = store.member_data("slack", "U1")
    text = repr(data)
    assert "bob" not in text.lower()
    assert str(world["bob"].id) not in {str(v) for s in data.sections for r in s.rows
                                        for k, v in r.items() if k.endswith("user_id")}


def test_export_for_a_workspace_lists_only_its_channels_and_the_members_own_sections(store, world):
    data = store.member_data("slack", "U1", "W2")
    by_name = {s.name: s for s in data.sections}
    for name in ("answers", "pending_answers", "score_totals", "week_totals"):
        assert by_name[name].by_workspace
        assert {r["workspace"] for r in by_name[name].rows} == {"W2"}, name
    assert len(by_name["answers"].rows) == 2
    # Practice and review cards are the member's wherever they are.
    assert [len(by_name[n].rows) for n in ("practice_session", "practice_results",
                                           "review_cards")] == [1, 2, 1]


@pytest.mark.parametrize(("platform", "user", "workspace"), [
    ("slack", "U9", None), ("discord", "U1", None), ("slack", "U1", "W9")])
def test_export_of_an_unknown_member_or_workspace_is_none(store, world, platform, user, workspace):
    assert store.member_data(platform, user, workspace) is None


def test_forget_deletes_exactly_the_members_rows_and_reports_them(store, world):
    ada, bob = world["ada"], world["bob"]
    expected = store.member_data("slack", "U1").counts()
    bobs = _counts(store, bob.id)
    report = store.forget_member("slack", "U1")
    # Her four answers are tries at open rounds: they stay, cut from her (db/forgotten.py).
    assert dict(report.deleted) == {**expected, "answers": 0}
    assert report.kept_anonymous == expected["answers"] == 4
    assert report.member == ada
    assert set(_counts(store, ada.id).values()) == {0}
    assert _counts(store, bob.id) == bobs
    with store.engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(UserRow).where(
            UserRow.id == ada.id)) == 0
    assert store.get_member(bob.id) == bob


def test_forget_names_the_open_rounds_whose_tally_changed(store, world):
    before = store.tally(world["r1"].id)
    report = store.forget_member("slack", "U1")
    assert report.open_rounds == (world["r1"].id, world["r2"].id)
    assert store.tally(world["r1"].id).attempted == before.attempted - 1


def test_boards_equal_a_recount_after_forgetting(store, world, clock):
    store.forget_member("slack", "U1")
    for channel in (world["c1"], world["c2"]):
        _assert_boards_equal_a_recount(store, channel, clock.now())
    assert store.top_scores(world["c2"].id, None, None) == []
    [bob] = store.top_scores(world["c1"].id, None, None)
    assert (bob.display_name, bob.points) == ("Bob", 8)


def test_forgetting_twice_finds_nothing_the_second_time(store, world):
    assert store.forget_member("slack", "U1") is not None
    assert store.forget_member("slack", "U1") is None
    assert store.member_data("slack", "U1") is None


def test_a_forgotten_member_who_comes_back_starts_afresh(store, world):
    store.forget_member("slack", "U1")
    again = store.ensure_member("slack", "U1", "Ada")
    assert again.id != world["ada"].id
    assert set(store.member_data("slack", "U1").counts().values()) == {0}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_boards_equal_a_recount_after_forgetting_anyone_of_a_random_history(store, clock, seed):
    rng = random.Random(seed)  # noqa: S311 - a repeatable history, not a secret
    channels = [make_channel(store, f"C{n}", workspace=f"W{n % 2}",
                             timezone=rng.choice(["UTC", "Asia/Shanghai", "America/New_York"]))
                for n in range(2)]
    members = [make_member(store, f"U{n}", f"m{n}") for n in range(4)]
    for day in range(10):
        for channel in channels:
            rnd = open_round(store, channel, DAY + dt.timedelta(day),
                             opened=T0 + dt.timedelta(days=day))
            for member in rng.sample(members, rng.randint(0, len(members))):
                for attempt in range(1, rng.randint(1, 3) + 1):
                    right = rng.random() < 0.5
                    answer(store, rnd, member, attempt, correct=right,
                           points=rng.randint(1, 15) if right else 0,
                           at=T0 + dt.timedelta(days=day, minutes=rng.randint(0, 3000)))
    if seed == 2:  # a zone change recounts a week before the forgetting
        store.update_channel(channels[0].id, ChannelUpdate(timezone="Pacific/Chatham"))
        channels[0] = store.get_channel(channels[0].id)
    now = T0 + dt.timedelta(days=10)
    clock.set(now)
    gone = rng.choice(members)
    store.forget_member("slack", gone.external_id)
    for channel in channels:
        _assert_boards_equal_a_recount(store, channel, now)
        assert gone.id not in {r.user_id for r in store.scores(channel.id)}


def _in_flight_answer(database_url, store, rnd, member, at):
    """Return a thread recording an answer whose transaction stays open 0.5 s after the insert,
    and an event set once the insert ran (the answer is then in flight, uncommitted)."""
    engine = make_engine(database_url)
    inserted = threading.Event()

    @event.listens_for(engine, "after_cursor_execute")
    def linger(conn, cursor, statement, parameters, context, executemany):
        if "INSERT INTO answers" in statement and not inserted.is_set():
            inserted.set()
            time.sleep(0.5)  # hold the transaction open while the forgetting starts

    outcome = {}

    def run():
        try:
            outcome["answer"] = answer(SqlStore(engine), rnd, member, at=at)
        except IntegrityError:
            outcome["answer"] = "refused: the member was gone"
        finally:
            engine.dispose()

    return threading.Thread(target=run), inserted, outcome


def test_forgetting_a_member_while_their_answer_in_another_channel_is_in_flight(
        store, database_url):
    # Ada has no data in the second channel yet: only the lock on her own row holds the
    # forgetting until her answer there is committed, so that it is deleted with the rest.
    first, second = make_channel(store, "C1"), make_channel(store, "C2")
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    answer(store, open_round(store, first), ada)
    rnd = open_round(store, second)
    answer(store, rnd, bob)
    thread, inserted, outcome = _in_flight_answer(database_url, store, rnd, ada, T0 + HOUR)
    thread.start()
    assert inserted.wait(10)
    report = store.forget_member("slack", "U1")
    thread.join()
    # The forgetting waited for the answer, which was stored, then cut from her with the rest
    # (both rounds are open: her tries stay without her).
    assert outcome["answer"].round_id == rnd.id
    assert report.kept_anonymous == 2
    assert set(_counts(store, ada.id).values()) == {0}
    assert store.get_member(ada.id) is None
    for channel in (first, second):
        _assert_boards_equal_a_recount(store, channel, T0 + HOUR)


@pytest.mark.parametrize("repeat", range(2))
def test_forgetting_a_member_while_their_answer_is_in_flight_leaves_nothing_behind(
        store, database_url, repeat):
    channel = make_channel(store)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    rounds = [open_round(store, channel, DAY + dt.timedelta(n)) for n in range(2)]
    answer(store, rounds[0], ada)
    answer(store, rounds[0], bob)
    roles = iter(["forget", "answer"] if repeat % 2 else ["answer", "forget"])

    def act(racer):
        role = next(roles)
        if role == "forget":
            return role, racer.forget_member("slack", "U1")
        try:
            return role, answer(racer, rounds[1], ada, at=T0 + 25 * HOUR)
        except IntegrityError:
            return role, "refused: the member was gone"  # the answer came after the forgetting

    outcome = dict(race(database_url, act))
    assert outcome["forget"] is not None
    assert set(_counts(store, ada.id).values()) == {0}
    assert store.get_member(ada.id) is None
    _assert_boards_equal_a_recount(store, channel, T0 + 25 * HOUR)


def test_a_pending_answer_being_graded_when_its_member_is_forgotten_records_nothing(store, world):
    claimed = store.claim_pending("slack", T0 + 3 * HOUR, T0)
    ada = world["ada"] if claimed.user_id == world["ada"].id else world["bob"]
    store.forget_member("slack", ada.external_id)
    draft = AnswerDraft(claimed.round_id, ada.id, 3, AnswerMode.CODE, claimed.response, True, 10,
                        claimed.submitted_at, "passed")
    assert store.resolve_pending(claimed.id, claimed.claim, draft) is False
    assert set(_counts(store, ada.id).values()) == {0}


# A forgotten member's tries at an open round stay as anonymous facts (db/forgotten.py).

def _anonymous(store):
    with store.engine.connect() as connection:
        return connection.execute(
            select(AnswerRow.round_id, AnswerRow.attempt, AnswerRow.mode, AnswerRow.response,
                   AnswerRow.correct, AnswerRow.forgotten_mark)
            .where(AnswerRow.user_id.is_(None)).order_by(AnswerRow.id)).all()


def test_tries_at_an_open_round_stay_without_the_member_or_their_words(store):
    channel = make_channel(store)
    ada = make_member(store, "U1", "Ada")
    rnd, closed = open_round(store, channel), open_round(store, channel, DAY - dt.timedelta(1))
    answer(store, closed, ada, correct=False, points=0, response="my name is Ada")
    assert store.close_round(closed.id, T0)
    answer(store, rnd, ada, correct=False, points=0, response="ada typed this")
    store.record_answer(AnswerDraft(rnd.id, ada.id, 2, AnswerMode.BUTTON, "b", False, 0,
                                    T0 + HOUR, None))
    report = store.forget_member("slack", "U1")
    assert dict(report.deleted)["answers"] == 1 and report.kept_anonymous == 2
    kept = _anonymous(store)
    assert [(r.round_id, r.attempt, r.response, r.correct) for r in kept] == [
        (rnd.id, 1, "", False), (rnd.id, 2, "b", False)]  # a chosen key is no one's words
    assert {r.forgotten_mark for r in kept} == {forgotten_mark(rnd.id, "slack", "U1")}
    assert "U1" not in repr(kept) and "Ada" not in repr(kept)


def test_a_forgotten_member_who_comes_back_to_an_open_round_goes_on_from_their_next_try(store):
    channel = make_channel(store)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    rnd = open_round(store, channel)
    answer(store, rnd, ada, correct=False, points=0)
    store.forget_member("slack", "U1")
    back = store.ensure_member("slack", "U1", "Ada")
    assert store.attempts(rnd.id, back.id) == Attempts(solved=False, tried=1, waiting=0)
    assert store.attempts(rnd.id, bob.id) == Attempts(solved=False, tried=0, waiting=0)
    # The same id on another platform is someone else.
    other = store.ensure_member("discord", "U1", "Ada")
    assert store.attempts(rnd.id, other.id).tried == 0


def test_a_forgotten_right_answer_keeps_the_round_solved_for_that_person(store):
    channel = make_channel(store)
    ada = make_member(store, "U1", "Ada")
    rnd = open_round(store, channel)
    answer(store, rnd, ada, correct=True, points=15)
    store.forget_member("slack", "U1")
    back = store.ensure_member("slack", "U1", "Ada")
    assert store.attempts(rnd.id, back.id).solved
    assert store.top_scores(channel.id, None, None) == []  # no one's points: she was forgotten


def test_the_item_statistics_keep_a_forgotten_first_try(store):
    channel = make_channel(store)
    members = [make_member(store, f"U{n}", f"m{n}") for n in range(3)]
    rounds = [open_round(store, channel, DAY + dt.timedelta(n), item)
              for n, item in enumerate(["tensors.view", "autograd.detach"])]
    for n, member in enumerate(members):
        for rnd in rounds:
            answer(store, rnd, member, correct=n % 2 == 0, points=10 if n % 2 == 0 else 0)
    before = store.item_tallies()
    store.forget_member("slack", "U1")
    after = store.item_tallies()
    assert [(t.item_id, t.answered, t.sum_x) for t in after] == [
        (t.item_id, t.answered, t.sum_x) for t in before]
    # Her two tries are observations of their own now, with no rest score to correlate with.
    assert [t.rested for t in after] == [t.rested - 1 for t in before]


def test_closing_the_round_erases_the_mark_and_keeps_the_try(store):
    channel = make_channel(store)
    ada = make_member(store, "U1", "Ada")
    rnd = open_round(store, channel)
    answer(store, rnd, ada, correct=False, points=0)
    store.forget_member("slack", "U1")
    assert store.close_round(rnd.id, T0 + 23 * HOUR)
    [kept] = _anonymous(store)
    assert (kept.round_id, kept.attempt, kept.forgotten_mark) == (rnd.id, 1, None)


def test_the_mark_stays_while_a_code_answer_of_the_closed_round_waits(store):
    # The waiting answer, graded after the close, is numbered after the person's earlier tries.
    channel = make_channel(store)
    ada = make_member(store, "U1", "Ada")
    rnd = open_round(store, channel)
    answer(store, rnd, ada, correct=False, points=0)
    store.forget_member("slack", "U1")
    back = store.ensure_member("slack", "U1", "Ada")
    store.add_pending(PendingDraft(rnd.id, back.id, AnswerMode.CODE, "def f(): pass", "en",
                                   T0 + HOUR))
    assert store.close_round(rnd.id, T0 + 23 * HOUR)
    assert store.attempts(rnd.id, back.id).tried == 1
    claimed = store.claim_pending("slack", T0 + 24 * HOUR, T0)
    store.resolve_pending(claimed.id, claimed.claim, None)
    store.close_round(open_round(store, channel, DAY + dt.timedelta(1)).id, T0 + 47 * HOUR)
    assert [kept.forgotten_mark for kept in _anonymous(store)] == [None]


def test_a_zone_change_recounts_the_week_without_the_forgotten_tries(store, clock):
    channel = make_channel(store)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    rnd = open_round(store, channel)
    answer(store, rnd, ada, correct=True, points=15)
    answer(store, rnd, bob, correct=True, points=15)
    store.forget_member("slack", "U1")
    store.update_channel(channel.id, ChannelUpdate(timezone="Asia/Shanghai"))
    channel = store.get_channel(channel.id)
    _assert_boards_equal_a_recount(store, channel, T0)
    assert [r.display_name for r in store.top_scores(channel.id, None, None)] == ["Bob"]
