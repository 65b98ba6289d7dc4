"""SqlStore pending answers: one grader at a time, each resolved exactly once; both backends."""

from __future__ import annotations

import pytest

from bot.core.kernel.models import AnswerDraft, AnswerMode, PendingDraft
from tests.db.builders import HOUR, T0, make_channel, make_member, open_round, race

CODE = "def f(x):\n    return x\n"


@pytest.fixture
def setting(store):
    channel = make_channel(store)
    return store, open_round(store, channel), make_member(store)


def keep(store, rnd, member, code=CODE, at=T0):
    return store.add_pending(PendingDraft(rnd.id, member.id, AnswerMode.CODE, code, "zh-CN", at))


def draft(rnd, member, attempt=1, at=T0):
    return AnswerDraft(round_id=rnd.id, user_id=member.id, attempt=attempt, mode=AnswerMode.CODE,
                       response=CODE, correct=True, points=25, submitted_at=at,
                       verdict_status="passed")


def test_a_pending_answer_keeps_the_whole_code_its_language_and_time(setting):
    store, rnd, member = setting
    long_code = "# " + "x" * 16_000 + "\n" + CODE
    kept = keep(store, rnd, member, long_code, T0 + HOUR)
    assert store.pending_for(rnd.id, member.id) == [kept]
    assert (kept.response, kept.locale, kept.submitted_at, kept.claim) == (
        long_code, "zh-CN", T0 + HOUR, None)


def test_only_the_oldest_of_a_members_answers_can_be_claimed(setting):
    store, rnd, member = setting
    first, _second = keep(store, rnd, member), keep(store, rnd, member)
    claimed = store.claim_pending(None, T0, T0 - HOUR)
    assert claimed.id == first.id and claimed.claim
    # The second waits behind the first, claimed or not, so their order is kept.
    assert store.claim_pending(None, T0, T0 - HOUR) is None


def test_claims_are_per_platform(setting):
    store, rnd, member = setting
    keep(store, rnd, member)
    assert store.claim_pending("discord", T0, T0 - HOUR) is None
    assert store.claim_pending("slack", T0, T0 - HOUR) is not None


def test_a_released_answer_can_be_claimed_again(setting):
    store, rnd, member = setting
    keep(store, rnd, member)
    claimed = store.claim_pending(None, T0, T0 - HOUR)
    store.release_pending(claimed.id, claimed.claim)
    again = store.claim_pending(None, T0, T0 - HOUR)
    assert again.id == claimed.id and again.claim != claimed.claim


def test_an_abandoned_claim_is_taken_over_after_the_lease(setting):
    store, rnd, member = setting
    keep(store, rnd, member)
    dead = store.claim_pending(None, T0, T0 - HOUR)
    assert store.claim_pending(None, T0 + HOUR / 2, T0 - HOUR / 2) is None
    taken = store.claim_pending(None, T0 + 2 * HOUR, T0 + HOUR)
    assert taken.id == dead.id
    # The replica that died and came back cannot resolve it any more.
    assert store.resolve_pending(dead.id, dead.claim, draft(rnd, member)) is False
    assert store.answers_for(rnd.id, member.id) == []


def test_resolving_records_the_answer_and_removes_the_pending_one_together(setting):
    store, rnd, member = setting
    keep(store, rnd, member, at=T0 + HOUR)
    claimed = store.claim_pending(None, T0 + 3 * HOUR, T0)
    assert store.resolve_pending(claimed.id, claimed.claim, draft(rnd, member, at=T0 + HOUR))
    [recorded] = store.answers_for(rnd.id, member.id)
    assert recorded.submitted_at == T0 + HOUR and recorded.verdict_status == "passed"
    assert store.pending_for(rnd.id, member.id) == []
    assert store.resolve_pending(claimed.id, claimed.claim, draft(rnd, member)) is False


def test_resolving_onto_an_attempt_recorded_meanwhile_changes_nothing(setting):
    store, rnd, member = setting
    keep(store, rnd, member)
    claimed = store.claim_pending(None, T0, T0 - HOUR)
    assert store.record_answer(draft(rnd, member)) is not None
    assert store.resolve_pending(claimed.id, claimed.claim, draft(rnd, member)) is False
    assert len(store.answers_for(rnd.id, member.id)) == 1
    assert [p.id for p in store.pending_for(rnd.id, member.id)] == [claimed.id]


def test_resolving_without_an_answer_only_removes_it(setting):
    store, rnd, member = setting
    keep(store, rnd, member)
    claimed = store.claim_pending(None, T0, T0 - HOUR)
    assert store.resolve_pending(claimed.id, claimed.claim, None)
    assert store.pending_for(rnd.id, member.id) == []
    assert store.answers_for(rnd.id, member.id) == []


def test_two_replicas_claiming_at_once_get_one_answer_each_at_most(database_url, setting):
    store, rnd, member = setting
    keep(store, rnd, member)
    other = make_member(store, "U2", "Grace")
    keep(store, rnd, other)
    claims = race(database_url, lambda s: s.claim_pending(None, T0, T0 - HOUR), contenders=3)
    got = sorted(c.id for c in claims if c is not None)
    assert len(got) == 2 and len(set(got)) == 2
