"""SqlStore rounds and answers, races included, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy.exc import IntegrityError

from bot.core.kernel.models import (
    AnswerDraft,
    AnswerMode,
    Round,
    RoundClaim,
    RoundStatus,
    Tally,
)
from db.tables import RESPONSE_MAX_CHARS
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round, race

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


@pytest.mark.parametrize("shared", [False, True], ids=["two-engines", "one-engine"])
def test_concurrent_claims_have_exactly_one_winner(store, database_url, shared):
    channel = make_channel(store)
    for offset in range(5):
        day = DAY + dt.timedelta(days=offset)
        results = race(
            database_url,
            lambda s, d=day: s.claim_round(channel.id, d, "a", 1, T0, T0),
            shared=shared,
        )
        assert sorted(r is None for r in results) == [False, True]
    assert len(store.round_dates(channel.id)) == 5


def test_set_round_message_is_remembered(store):
    round_ = open_round(store, make_channel(store))
    store.set_round_message(round_.id, "1712.0042")
    assert store.get_round(round_.id).message_ref == "1712.0042"


def test_posting_a_round_ends_its_post_claim(store):
    round_ = store.claim_rounds([RoundClaim(make_channel(store).id, DAY, "a", 1, T0,
                                            T0 + 23 * HOUR, post_claimed_at=T0)])[0]
    store.set_round_message(round_.id, "C1:1712.0042")
    posted = store.get_round(round_.id)
    assert (posted.message_ref, posted.post_claimed_at) == ("C1:1712.0042", None)
    assert store.unposted_rounds(T0, T0 + HOUR) == []


def test_unposted_rounds_are_those_unclaimed_or_claimed_before_the_lease(store):
    ids = [make_channel(store, f"C{n}").id for n in range(3)]
    claims = [RoundClaim(c, DAY, "a", 1, T0, T0 + 23 * HOUR, post_claimed_at=at)
              for c, at in zip(ids, (None, T0, T0 + HOUR), strict=True)]
    rounds = store.claim_rounds(claims)
    stale = store.unposted_rounds(T0 + 2 * HOUR, stale_before=T0 + HOUR)
    assert [r.channel_id for r in stale] == ids[:2]
    assert store.unposted_rounds(T0 + 23 * HOUR, stale_before=T0 + 2 * HOUR) == []  # closed
    assert len(rounds) == 3


def test_a_stale_post_claim_is_taken_over_once(store):
    round_ = store.claim_rounds([RoundClaim(make_channel(store).id, DAY, "a", 1, T0,
                                            T0 + 23 * HOUR, post_claimed_at=T0)])[0]
    later = T0 + HOUR
    assert store.claim_round_post(round_.id, T0, later)
    assert not store.claim_round_post(round_.id, T0, later + HOUR)  # it moved meanwhile
    assert store.get_round(round_.id).post_claimed_at == later


def test_a_posted_round_cannot_be_claimed_again(store):
    round_ = open_round(store, make_channel(store))
    store.set_round_message(round_.id, "C1:1712.0042")
    assert not store.claim_round_post(round_.id, None, T0)


@pytest.mark.parametrize("shared", [False, True], ids=["two-engines", "one-engine"])
def test_concurrent_post_takeovers_have_exactly_one_winner(store, database_url, shared):
    round_ = store.claim_rounds([RoundClaim(make_channel(store).id, DAY, "a", 1, T0,
                                            T0 + 23 * HOUR, post_claimed_at=T0)])[0]
    results = race(database_url, lambda s: s.claim_round_post(round_.id, T0, T0 + HOUR),
                   shared=shared)
    assert sorted(results) == [False, True]


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
