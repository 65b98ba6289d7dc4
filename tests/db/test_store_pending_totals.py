"""A code answer graded later counts on the boards like any other, once, even across a blip."""

from __future__ import annotations

import pytest

from bot.core.kernel.models import AnswerDraft, AnswerMode, PendingDraft, week_start
from tests.db.builders import (
    HOUR,
    T0,
    lose_the_first_commits_answer,
    make_channel,
    make_member,
    open_round,
)


@pytest.fixture
def claimed(store):
    channel = make_channel(store)
    rnd, member = open_round(store, channel), make_member(store)
    store.add_pending(PendingDraft(rnd.id, member.id, AnswerMode.CODE, "code", "en", T0))
    pending = store.claim_pending(None, T0, T0 - HOUR)
    assert pending is not None
    graded = AnswerDraft(round_id=rnd.id, user_id=member.id, attempt=1, mode=AnswerMode.CODE,
                         response="code", correct=True, points=25, submitted_at=T0,
                         verdict_status="passed")
    return store, channel, pending, graded


def test_an_answer_graded_later_counts_on_both_boards(claimed):
    store, channel, pending, graded = claimed
    assert store.resolve_pending(pending.id, pending.claim, graded)
    week = week_start(T0, channel.timezone)
    assert [row.points for row in store.scores(channel.id)] == [25]
    assert store.top_scores(channel.id, None, None) == store.scores(channel.id)
    assert store.top_scores(channel.id, week, None) == store.scores(channel.id, week)


@pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_a_resolution_committed_before_the_connection_dropped_counts_once(claimed):
    store, channel, pending, graded = claimed
    lost = lose_the_first_commits_answer(store)

    # True: the grader replies with the verdict instead of taking it for another's.
    assert store.resolve_pending(pending.id, pending.claim, graded)
    assert lost, "the commit's answer was not lost"
    assert [a.attempt for a in store.answers_for(graded.round_id, graded.user_id)] == [1]
    assert store.pending_for(graded.round_id, graded.user_id) == []
    assert store.top_scores(channel.id, None, None) == store.scores(channel.id)
