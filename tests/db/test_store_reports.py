"""Reports of question versions, and the first-try counts, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt

from bot.core.kernel.models import ReportCounts, ReportDraft
from tests.db.builders import DAY, HOUR, T0, answer, make_channel, make_member, open_round, race


def draft(member, item="tensors.view", version=1, reason="incorrect", note="", *,
          workspace="W1", round_id=None):
    return ReportDraft(member.id, item, version, reason, note, "slack", workspace, T0,
                       round_id=round_id)


def test_a_member_reports_an_item_version_once(store):
    ada = make_member(store)
    first = store.add_report(draft(ada, note="the key is B"))
    assert first is not None and first.status == "open" and first.note == "the key is B"
    assert store.add_report(draft(ada, reason="ambiguous", note="changed my mind")) is None
    [kept] = store.reports()
    assert (kept.id, kept.reason, kept.note) == (first.id, "incorrect", "the key is B")


def test_two_replicas_filing_the_same_report_at_once_store_it_once(database_url, store):
    ada = make_member(store)
    results = race(database_url, lambda s: s.add_report(draft(ada)), contenders=2)
    assert sorted(r is None for r in results) == [False, True]
    assert len(store.reports()) == 1


def test_a_fixed_question_version_starts_with_no_reports(store):
    ada, bob = make_member(store, "U1"), make_member(store, "U2", "Bob")
    store.add_report(draft(ada))
    store.add_report(draft(bob, reason="ambiguous"))
    assert store.open_reports("tensors.view") == [
        ReportCounts("tensors.view", 1, (("ambiguous", 1), ("incorrect", 1)))]
    # Version 2 fixes it: nothing is counted against it, and Ada may report it afresh.
    assert [c for c in store.open_reports() if c.item_version == 2] == []
    assert store.add_report(draft(ada, version=2)) is not None
    by_version = {c.item_version: c for c in store.open_reports("tensors.view")}
    assert by_version[1].total == 2 and by_version[2].total == 1
    assert by_version[2].count("incorrect") == 1 and by_version[2].count("ambiguous") == 0


def test_closing_a_report_takes_it_out_of_the_open_counts(store):
    ada, bob = make_member(store, "U1"), make_member(store, "U2", "Bob")
    one = store.add_report(draft(ada))
    store.add_report(draft(bob))
    closed = store.close_report(one.id, "the key was right", T0 + HOUR)
    assert (closed.status, closed.close_reason, closed.closed_at) == (
        "closed", "the key was right", T0 + HOUR)
    assert store.close_report(one.id, "again", T0 + HOUR) is None
    assert store.open_reports() == [ReportCounts("tensors.view", 1, (("incorrect", 1),))]
    assert [r.id for r in store.reports(status=None)] == [1, 2]
    assert store.count_reports() == 1


def test_a_workspace_lists_and_closes_only_its_own_reports(store):
    ada, bob = make_member(store, "U1"), make_member(store, "U2", "Bob")
    mine = store.add_report(draft(ada, workspace="W1"))
    theirs = store.add_report(draft(bob, workspace="W2"))
    assert [r.id for r in store.reports(platform="slack", workspace="W1")] == [mine.id]
    assert store.count_reports(platform="slack", workspace="W1") == 1
    assert store.close_report(theirs.id, "not yours", T0, platform="slack",
                              workspace="W1") is None
    assert store.reports(platform="slack", workspace="W2")[0].status == "open"


def test_first_tries_count_each_members_first_answer_only(store):
    channel = make_channel(store)
    rnd = open_round(store, channel)
    ada, bob, cy = (make_member(store, f"U{n}", name) for n, name in
                    enumerate(("Ada", "Bob", "Cy"), 1))
    answer(store, rnd, ada, 1, correct=False, points=0, response="A")
    answer(store, rnd, ada, 2, correct=True, response="B")
    answer(store, rnd, bob, 1, correct=False, points=0, response="A")
    answer(store, rnd, cy, 1, correct=True, response="B")
    counts = {(t.response, t.correct): t.count for t in store.first_tries(rnd.id)}
    assert counts == {("A", False): 2, ("B", True): 1}


def test_a_weeks_first_tries_leave_out_open_rounds_and_other_weeks(store):
    channel = make_channel(store)
    ada = make_member(store)
    monday = open_round(store, channel, DAY)
    tuesday = open_round(store, channel, DAY + dt.timedelta(days=1), item="autograd.detach",
                         opened=T0 + 24 * HOUR)
    next_week = open_round(store, channel, DAY + dt.timedelta(days=7), opened=T0 + 168 * HOUR)
    for rnd in (monday, tuesday, next_week):
        answer(store, rnd, ada, 1, correct=False, points=0, response="A")
    for rnd in (monday, next_week):
        assert store.close_round(rnd.id, T0 + 200 * HOUR)
    week = store.week_first_tries(channel.id, DAY, DAY + dt.timedelta(days=7))
    assert [(t.round_id, t.item_id, t.count) for t in week] == [(monday.id, "tensors.view", 1)]
