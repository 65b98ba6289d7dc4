"""SqlStore: every QuizStore behaviour, on SQLite and on PostgreSQL (see database_url)."""

from __future__ import annotations

import datetime as dt
import inspect
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError

from bot.core.models import (
    AnswerDraft,
    AnswerMode,
    AnswerRecord,
    ChannelDefaults,
    ChannelSettings,
    ChannelUpdate,
    ItemResult,
    Member,
    PracticeSession,
    Review,
    Round,
    RoundStatus,
    Tally,
)
from bot.core.ports import QuizStore
from db.engine import make_engine
from db.store import SqlStore
from db.tables import RESPONSE_MAX_CHARS
from tests.conftest import CLOCK_START
from tests.fakes import FakeClock

T = TypeVar("T")
DAY = dt.date(2026, 3, 2)
T0 = CLOCK_START
HOUR = dt.timedelta(hours=1)


def _typed(engine: Engine) -> QuizStore:
    # mypy checks this assignment when it checks the tests; `mypy db` checks the same in db.store.
    store: QuizStore = SqlStore(engine)
    return store


def make_channel(
    store: SqlStore,
    external_id: str = "C1",
    platform: str = "slack",
    workspace: str = "W1",
    **defaults,
) -> ChannelSettings:
    return store.ensure_channel(platform, external_id, workspace, ChannelDefaults(**defaults))


def make_member(store: SqlStore, external_id: str = "U1", name: str = "Ada") -> Member:
    return store.ensure_member("slack", external_id, name)


def open_round(
    store: SqlStore,
    channel: ChannelSettings,
    day: dt.date = DAY,
    item: str = "tensors.view",
    opened: dt.datetime = T0,
) -> Round:
    claimed = store.claim_round(channel.id, day, item, 1, opened, opened + 23 * HOUR)
    assert claimed is not None
    return claimed


def answer(
    store: SqlStore,
    round_: Round,
    member: Member,
    attempt: int = 1,
    *,
    correct: bool = True,
    points: int = 10,
    at: dt.datetime = T0,
    response: str = "view shares storage",
) -> AnswerRecord | None:
    return store.record_answer(
        AnswerDraft(
            round_id=round_.id,
            user_id=member.id,
            attempt=attempt,
            mode=AnswerMode.TEXT,
            response=response,
            correct=correct,
            points=points,
            submitted_at=at,
        )
    )


def race(database_url: str, action: Callable[[SqlStore], T], contenders: int = 2) -> list[T]:
    """Run ``action`` at the same moment in several threads, each on its own engine."""
    engines = [make_engine(database_url) for _ in range(contenders)]
    for engine in engines:  # connect first, so the race is on the statement
        with engine.connect():
            pass
    barrier = threading.Barrier(contenders)

    def run(store: SqlStore) -> T:
        barrier.wait()
        return action(store)

    try:
        with ThreadPoolExecutor(contenders) as pool:
            return list(pool.map(run, [SqlStore(engine) for engine in engines]))
    finally:
        for engine in engines:
            engine.dispose()


# the port


def test_sql_store_has_every_port_method_with_its_signature():
    port_methods = {
        name: inspect.signature(member)
        for name, member in vars(QuizStore).items()
        if callable(member) and not name.startswith("_")
    }
    assert port_methods
    for name, signature in port_methods.items():
        assert inspect.signature(getattr(SqlStore, name)) == signature, name


# channels


def test_ensure_channel_creates_it_with_the_defaults(store):
    channel = make_channel(
        store,
        name="pytorch-study",
        post_time=dt.time(7, 30),
        timezone="Asia/Shanghai",
        locale="zh-CN",
    )
    assert channel == ChannelSettings(
        id=channel.id,
        platform="slack",
        external_id="C1",
        workspace_external_id="W1",
        name="pytorch-study",
        post_time=dt.time(7, 30),
        timezone="Asia/Shanghai",
        locale="zh-CN",
    )


def test_ensure_channel_returns_the_existing_channel_unchanged(store):
    first = make_channel(store, name="first", timezone="Europe/Berlin")
    again = make_channel(store, name="second", timezone="UTC")
    assert again == first


def test_channels_of_one_workspace_share_it(store):
    a = make_channel(store, "C1", workspace="W9")
    b = make_channel(store, "C2", workspace="W9")
    assert (a.workspace_external_id, b.workspace_external_id) == ("W9", "W9")
    assert a.id != b.id


def test_same_external_id_on_two_platforms_is_two_channels(store):
    slack = make_channel(store, "X", platform="slack")
    discord = make_channel(store, "X", platform="discord")
    assert slack.id != discord.id


def test_find_channel_by_platform_and_external_id(store):
    channel = make_channel(store, "C7")
    assert store.find_channel("slack", "C7") == channel


def test_find_unknown_channel_returns_none(store):
    make_channel(store, "C7")
    assert store.find_channel("discord", "C7") is None


def test_get_unknown_channel_returns_none(store):
    assert store.get_channel(404) is None


def test_update_channel_round_trips_every_field(store):
    channel = make_channel(store)
    update = ChannelUpdate(
        post_time=dt.time(18, 45),
        timezone="America/Los_Angeles",
        locale="zh-CN",
        topics=("autograd", "tensors"),
        difficulties=(1, 3),
        enabled=False,
        leaderboard_weekday=0,
        leaderboard_hour=9,
    )
    updated = store.update_channel(channel.id, update)
    expected = ChannelSettings(
        id=channel.id,
        platform="slack",
        external_id="C1",
        workspace_external_id="W1",
        name="",
        post_time=dt.time(18, 45),
        timezone="America/Los_Angeles",
        locale="zh-CN",
        topics=("autograd", "tensors"),
        difficulties=(1, 3),
        enabled=False,
        leaderboard_weekday=0,
        leaderboard_hour=9,
    )
    assert (updated, store.get_channel(channel.id)) == (expected, expected)


def test_update_channel_leaves_unset_fields_alone(store):
    channel = make_channel(store, timezone="Asia/Tokyo")
    store.update_channel(channel.id, ChannelUpdate(topics=("nn",)))
    updated = store.update_channel(channel.id, ChannelUpdate(locale="zh-CN"))
    assert (updated.timezone, updated.topics, updated.locale) == ("Asia/Tokyo", ("nn",), "zh-CN")


def test_update_channel_with_empty_topics_means_every_topic(store):
    channel = make_channel(store)
    store.update_channel(channel.id, ChannelUpdate(topics=("nn",), difficulties=(2,)))
    cleared = store.update_channel(channel.id, ChannelUpdate(topics=(), difficulties=()))
    assert (cleared.topics, cleared.difficulties) == ((), ())


def test_update_unknown_channel_raises_lookup_error(store):
    with pytest.raises(LookupError):
        store.update_channel(404, ChannelUpdate(locale="en"))


def test_list_channels_skips_disabled_ones(store):
    on = make_channel(store, "C1")
    off = make_channel(store, "C2")
    store.update_channel(off.id, ChannelUpdate(enabled=False))
    assert [c.id for c in store.list_channels()] == [on.id]


def test_list_channels_can_include_disabled_ones_in_id_order(store):
    ids = [make_channel(store, f"C{n}").id for n in range(3)]
    store.update_channel(ids[1], ChannelUpdate(enabled=False))
    assert [c.id for c in store.list_channels(enabled_only=False)] == ids


# members


def test_ensure_member_returns_the_same_member_twice(store):
    assert make_member(store) == make_member(store)


def test_ensure_member_refreshes_the_display_name(store):
    before = make_member(store, name="Ada")
    after = make_member(store, name="Ada L.")
    assert (after.id, after.display_name) == (before.id, "Ada L.")
    assert store.get_member(before.id) == after


def test_get_unknown_member_returns_none(store):
    assert store.get_member(404) is None


# rounds


def test_claim_round_returns_an_open_round(store):
    channel = make_channel(store)
    claimed = store.claim_round(channel.id, DAY, "tensors.view", 3, T0, T0 + 23 * HOUR)
    assert claimed == Round(
        id=claimed.id,
        channel_id=channel.id,
        local_date=DAY,
        item_id="tensors.view",
        item_version=3,
        status=RoundStatus.OPEN,
        opened_at=T0,
        closes_at=T0 + 23 * HOUR,
    )


def test_claiming_a_claimed_date_returns_none(store):
    channel = make_channel(store)
    open_round(store, channel, item="a")
    assert store.claim_round(channel.id, DAY, "b", 1, T0, T0 + HOUR) is None


def test_claiming_a_claimed_date_keeps_the_first_round(store):
    channel = make_channel(store)
    first = open_round(store, channel, item="a")
    store.claim_round(channel.id, DAY, "b", 1, T0, T0 + HOUR)
    assert store.round_for_date(channel.id, DAY) == first


def test_claim_round_for_an_unknown_channel_raises(store):
    with pytest.raises(IntegrityError):
        store.claim_round(404, DAY, "a", 1, T0, T0 + HOUR)


def test_concurrent_claims_have_exactly_one_winner(store, database_url):
    channel = make_channel(store)
    for offset in range(5):
        day = DAY + dt.timedelta(days=offset)
        results = race(database_url, lambda s, d=day: s.claim_round(channel.id, d, "a", 1, T0, T0))
        assert sorted(r is None for r in results) == [False, True]
    assert len(store.round_dates(channel.id)) == 5


def test_set_round_message_is_remembered(store):
    round_ = open_round(store, make_channel(store))
    store.set_round_message(round_.id, "1712.0042")
    assert store.get_round(round_.id).message_ref == "1712.0042"


def test_get_unknown_round_returns_none(store):
    assert store.get_round(404) is None


def test_round_for_a_date_without_one_returns_none(store):
    channel = make_channel(store)
    open_round(store, channel)
    assert store.round_for_date(channel.id, DAY + dt.timedelta(days=1)) is None


def test_latest_round_is_the_newest_date(store):
    channel = make_channel(store)
    open_round(store, channel, DAY + dt.timedelta(days=1), item="b")
    open_round(store, channel, DAY, item="a")
    assert store.latest_round(channel.id).item_id == "b"


def test_latest_round_of_a_new_channel_is_none(store):
    assert store.latest_round(make_channel(store).id) is None


def test_due_rounds_are_open_rounds_at_or_past_closing(store):
    channel = make_channel(store)
    early = open_round(store, channel, DAY, opened=T0)
    exact = open_round(store, channel, DAY + dt.timedelta(days=1), opened=T0 + HOUR)
    open_round(store, channel, DAY + dt.timedelta(days=2), opened=T0 + 2 * HOUR)
    due = store.due_rounds(T0 + HOUR + 23 * HOUR)
    assert [r.id for r in due] == [early.id, exact.id]


def test_closed_rounds_are_not_due(store):
    round_ = open_round(store, make_channel(store))
    store.close_round(round_.id, T0 + 23 * HOUR)
    assert store.due_rounds(T0 + 48 * HOUR) == []


def test_close_round_succeeds_once(store):
    round_ = open_round(store, make_channel(store))
    assert store.close_round(round_.id, T0 + HOUR) is True
    assert store.close_round(round_.id, T0 + 2 * HOUR) is False
    assert store.get_round(round_.id).status is RoundStatus.CLOSED


def test_concurrent_closes_have_exactly_one_winner(store, database_url):
    round_ = open_round(store, make_channel(store))
    results = race(database_url, lambda s: s.close_round(round_.id, T0 + HOUR))
    assert sorted(results) == [False, True]


def test_used_items_give_the_last_date_each_item_was_posted(store):
    channel = make_channel(store)
    open_round(store, channel, DAY, item="a")
    open_round(store, channel, DAY + dt.timedelta(days=1), item="b")
    open_round(store, channel, DAY + dt.timedelta(days=9), item="a")
    open_round(store, make_channel(store, "other"), DAY + dt.timedelta(days=20), item="a")
    assert store.used_items(channel.id) == {
        "a": DAY + dt.timedelta(days=9),
        "b": DAY + dt.timedelta(days=1),
    }


def test_round_dates_are_oldest_first(store):
    channel = make_channel(store)
    days = [DAY + dt.timedelta(days=n) for n in (3, 0, 1)]
    for n, day in enumerate(days):
        open_round(store, channel, day, item=f"i{n}")
    assert store.round_dates(channel.id) == sorted(days)


# answers


def test_record_answer_returns_what_was_stored(store):
    round_ = open_round(store, make_channel(store))
    member = make_member(store)
    record = store.record_answer(
        AnswerDraft(
            round_id=round_.id,
            user_id=member.id,
            attempt=1,
            mode=AnswerMode.CODE,
            response="def f(x): return x",
            correct=False,
            points=0,
            submitted_at=T0,
            verdict_status="failed",
        )
    )
    assert record is not None
    assert store.answers_for(round_.id, member.id) == [record]
    assert (record.mode, record.verdict_status, record.correct) == (
        AnswerMode.CODE,
        "failed",
        False,
    )


def test_record_answer_truncates_long_responses(store):
    round_ = open_round(store, make_channel(store))
    record = answer(store, round_, make_member(store), response="x" * 5000)
    assert record.response == "x" * RESPONSE_MAX_CHARS


def test_recording_an_attempt_twice_stores_it_once(store):
    round_ = open_round(store, make_channel(store))
    member = make_member(store)
    answer(store, round_, member, correct=True)
    assert answer(store, round_, member, correct=False) is None
    assert [a.correct for a in store.answers_for(round_.id, member.id)] == [True]


def test_concurrent_identical_attempts_are_stored_once(store, database_url):
    round_ = open_round(store, make_channel(store))
    member = make_member(store)
    for attempt in range(1, 6):
        results = race(database_url, lambda s, n=attempt: answer(s, round_, member, n))
        assert sorted(r is None for r in results) == [False, True]
    assert [a.attempt for a in store.answers_for(round_.id, member.id)] == [1, 2, 3, 4, 5]


def test_record_answer_to_an_unknown_round_raises(store):
    ghost = Round(404, 1, DAY, "a", 1, RoundStatus.OPEN, T0, T0)
    with pytest.raises(IntegrityError):
        answer(store, ghost, make_member(store))


def test_answers_for_come_by_attempt(store):
    round_ = open_round(store, make_channel(store))
    member = make_member(store)
    for attempt in (2, 1, 3):
        answer(store, round_, member, attempt, correct=attempt == 3)
    assert [a.attempt for a in store.answers_for(round_.id, member.id)] == [1, 2, 3]


def test_tally_counts_members_not_attempts(store):
    round_ = open_round(store, make_channel(store))
    ada, bob, cy = (make_member(store, f"U{n}") for n in range(3))
    answer(store, round_, ada, 1, correct=False)
    answer(store, round_, ada, 2, correct=True)
    answer(store, round_, bob, 1, correct=False)
    answer(store, round_, bob, 2, correct=False)
    answer(store, round_, cy, 1, correct=True)
    assert store.tally(round_.id) == Tally(solved=2, attempted=3)


def test_tally_of_an_unanswered_round_is_zero(store):
    assert store.tally(open_round(store, make_channel(store)).id) == Tally(solved=0, attempted=0)


# scores


def test_scores_sum_points_and_count_solved_and_first_tries(store):
    channel = make_channel(store)
    day1, day2 = open_round(store, channel, DAY), open_round(store, channel, DAY + dt.timedelta(1))
    ada = make_member(store)
    answer(store, day1, ada, 1, correct=True, points=10, at=T0)
    answer(store, day2, ada, 1, correct=False, points=0, at=T0 + 24 * HOUR)
    answer(store, day2, ada, 2, correct=True, points=5, at=T0 + 25 * HOUR)
    [row] = store.scores(channel.id)
    assert (row.user_id, row.display_name, row.points, row.solved, row.first_try) == (
        ada.id,
        "Ada",
        15,
        2,
        1,
    )
    assert row.last_solved_at == T0 + 25 * HOUR


def test_scores_ignore_answers_before_since(store):
    channel = make_channel(store)
    ada = make_member(store)
    answer(store, open_round(store, channel, DAY), ada, at=T0, points=10)
    answer(
        store,
        open_round(store, channel, DAY + dt.timedelta(7)),
        ada,
        at=T0 + 7 * 24 * HOUR,
        points=4,
    )
    [row] = store.scores(channel.id, since=T0 + 7 * 24 * HOUR)
    assert (row.points, row.solved) == (4, 1)


def test_scores_ignore_other_channels(store):
    ada = make_member(store)
    answer(store, open_round(store, make_channel(store, "C1")), ada, points=10)
    answer(store, open_round(store, make_channel(store, "C2")), ada, points=7)
    assert [r.points for r in store.scores(store.find_channel("slack", "C2").id)] == [7]


def test_scores_break_point_ties_by_the_earlier_last_solve(store):
    channel = make_channel(store)
    round_ = open_round(store, channel)
    late, early = make_member(store, "U1", "Late"), make_member(store, "U2", "Early")
    answer(store, round_, late, at=T0 + 2 * HOUR, points=10)
    answer(store, round_, early, at=T0 + HOUR, points=10)
    assert [r.display_name for r in store.scores(channel.id)] == ["Early", "Late"]


def test_scores_include_members_who_only_missed(store):
    channel = make_channel(store)
    round_ = open_round(store, channel)
    ada, bob = make_member(store, "U1", "Ada"), make_member(store, "U2", "Bob")
    answer(store, round_, bob, correct=False, points=0)
    answer(store, round_, ada, correct=True, points=10)
    rows = store.scores(channel.id)
    assert [(r.display_name, r.points, r.solved, r.last_solved_at) for r in rows] == [
        ("Ada", 10, 1, T0),
        ("Bob", 0, 0, None),
    ]


def test_scores_of_a_quiet_channel_are_empty(store):
    assert store.scores(make_channel(store).id) == []


# solved dates and item results


def test_solved_dates_list_rounds_with_a_correct_answer_oldest_first(store):
    channel = make_channel(store)
    ada = make_member(store)
    days = [DAY + dt.timedelta(n) for n in range(3)]
    rounds = [open_round(store, channel, day, item=f"i{n}") for n, day in enumerate(days)]
    answer(store, rounds[2], ada, 1, correct=False)
    answer(store, rounds[2], ada, 2, correct=True)
    answer(store, rounds[1], ada, 1, correct=False)
    answer(store, rounds[0], ada, 1, correct=True)
    answer(store, open_round(store, make_channel(store, "C2"), days[1]), ada, correct=True)
    assert store.solved_dates(channel.id, ada.id) == [days[0], days[2]]


def test_item_results_give_the_final_outcome_per_round(store):
    round_ = open_round(store, make_channel(store), item="autograd.leaf")
    ada = make_member(store)
    answer(store, round_, ada, 1, correct=False, at=T0)
    answer(store, round_, ada, 2, correct=True, at=T0 + HOUR)
    answer(store, round_, ada, 3, correct=False, at=T0 + 2 * HOUR)
    assert store.item_results(ada.id) == [
        ItemResult(item_id="autograd.leaf", correct=True, answered_at=T0 + 2 * HOUR)
    ]


def test_item_results_include_practice_results_oldest_first(store):
    ada = make_member(store)
    answer(
        store,
        open_round(store, make_channel(store), item="daily"),
        ada,
        correct=False,
        at=T0 + HOUR,
    )
    store.record_practice_result(ada.id, "practice", 2, True, T0)
    assert store.item_results(ada.id) == [
        ItemResult("practice", True, T0),
        ItemResult("daily", False, T0 + HOUR),
    ]


def test_item_results_of_one_channel_skip_other_channels_rounds(store):
    ada = make_member(store)
    here = make_channel(store, "C1")
    answer(store, open_round(store, here, item="here"), ada)
    answer(store, open_round(store, make_channel(store, "C2"), item="there"), ada)
    assert [r.item_id for r in store.item_results(ada.id, here.id)] == ["here"]


# practice


def _practice(member: Member, item: str = "nn.module", at: dt.datetime = T0) -> PracticeSession:
    return PracticeSession(user_id=member.id, item_id=item, item_version=2, started_at=at)


def test_started_practice_is_current(store):
    ada = make_member(store)
    store.start_practice(_practice(ada))
    assert store.current_practice(ada.id) == _practice(ada)


def test_without_practice_there_is_no_current_one(store):
    assert store.current_practice(make_member(store).id) is None


def test_start_practice_replaces_the_current_one(store):
    ada = make_member(store)
    store.start_practice(_practice(ada, "a"))
    store.bump_practice_attempts(ada.id, "a")
    store.start_practice(_practice(ada, "b", T0 + HOUR))
    assert store.current_practice(ada.id) == _practice(ada, "b", T0 + HOUR)


def test_finish_practice_succeeds_once(store):
    ada = make_member(store)
    store.start_practice(_practice(ada))
    assert store.finish_practice(ada.id, "nn.module") is True
    assert store.finish_practice(ada.id, "nn.module") is False
    assert store.current_practice(ada.id) is None


def test_finish_practice_on_a_replaced_item_keeps_the_new_one(store):
    ada = make_member(store)
    store.start_practice(_practice(ada, "old"))
    store.start_practice(_practice(ada, "new"))
    assert store.finish_practice(ada.id, "old") is False
    assert store.current_practice(ada.id).item_id == "new"


def test_bump_practice_attempts_counts_wrong_tries(store):
    ada = make_member(store)
    store.start_practice(_practice(ada))
    counts = [store.bump_practice_attempts(ada.id, "nn.module") for _ in range(3)]
    assert counts == [1, 2, 3]
    assert store.current_practice(ada.id).attempts == 3


def test_bump_practice_attempts_on_another_item_counts_nothing(store):
    ada = make_member(store)
    store.start_practice(_practice(ada, "current"))
    assert store.bump_practice_attempts(ada.id, "stale") == 0
    assert store.current_practice(ada.id).attempts == 0


# reviews


def _review(member: Member, item: str = "a", box: int = 1, due: dt.datetime = T0) -> Review:
    return Review(
        user_id=member.id, item_id=item, box=box, due_at=due, last_correct=False, reviewed_at=T0
    )


def test_saved_review_can_be_read_back(store):
    ada = make_member(store)
    store.save_review(_review(ada))
    assert store.get_review(ada.id, "a") == _review(ada)


def test_save_review_replaces_the_previous_state(store):
    ada = make_member(store)
    store.save_review(_review(ada, box=1))
    store.save_review(_review(ada, box=3, due=T0 + 72 * HOUR))
    assert store.get_review(ada.id, "a") == _review(ada, box=3, due=T0 + 72 * HOUR)


def test_unknown_review_is_none(store):
    assert store.get_review(make_member(store).id, "a") is None


def test_reviews_come_soonest_due_first(store):
    ada, bob = make_member(store, "U1"), make_member(store, "U2")
    store.save_review(_review(ada, "late", due=T0 + 48 * HOUR))
    store.save_review(_review(ada, "soon", due=T0 + HOUR))
    store.save_review(_review(bob, "other", due=T0))
    assert [r.item_id for r in store.reviews(ada.id)] == ["soon", "late"]


def test_new_channels_record_the_clock_time(store, clock: FakeClock, engine):
    from sqlalchemy import select

    from db.tables import ChannelRow

    clock.set(dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.UTC))
    channel = make_channel(store)
    with engine.connect() as connection:
        created = connection.execute(
            select(ChannelRow.created_at).where(ChannelRow.id == channel.id)
        ).scalar_one()
    assert created == dt.datetime(2026, 5, 1, 12, 0, tzinfo=dt.UTC)
