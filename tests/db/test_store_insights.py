"""The item analytics' storage on SQLite and PostgreSQL: open reports, pausing, unpausing."""

import datetime as dt

import pytest

from bot.core.kernel.models import ReportDraft
from bot.core.quality.insights import InsightsService
from content.loader import load_bank
from tests.db.builders import make_member
from tests.fakes import CLOCK_START
from tests.support.core import BANK


@pytest.fixture(scope="module")
def bank():
    return load_bank(BANK)


@pytest.fixture
def reports(store):
    """File reports the way members do (the store's own add and close)."""
    members = {}

    def file(item, version, reason, status="open", user=1):
        if user not in members:
            members[user] = make_member(store, f"U{user}", f"Member {user}")
        stored = store.add_report(ReportDraft(
            user_id=members[user].id, item_id=item, item_version=version, reason=reason,
            note="", platform="slack", workspace="T1", created_at=CLOCK_START))
        if status == "closed":
            store.close_report(stored.id, "fixed", CLOCK_START)

    return file


def open_counts(store):
    return {(c.item_id, c.item_version): dict(c.by_reason) for c in store.open_reports()}


def test_without_reports_there_are_no_open_reports(store):
    assert open_counts(store) == {}


def test_open_reports_are_counted_per_version_and_reason(store, reports):
    for user in (1, 2):
        reports("t.text-detach", 1, "incorrect", user=user)
    reports("t.text-detach", 1, "ambiguous", user=3)
    reports("t.text-detach", 1, "incorrect", status="closed", user=4)
    reports("t.text-detach", 2, "translation", user=1)
    assert open_counts(store) == {
        ("t.text-detach", 1): {"incorrect": 2, "ambiguous": 1},
        ("t.text-detach", 2): {"translation": 1},
    }


def test_three_open_incorrect_reports_pause_the_version_without_any_answers(
        store, reports, bank, clock):
    for user in (1, 2, 3):
        reports("t.text-detach", 1, "incorrect", user=user)
    found = {s.item_id: s for s in InsightsService(store, bank, clock).stats()}
    assert found["t.text-detach"].flags == ("suspect_key",)
    assert (found["t.text-detach"].reports, found["t.text-detach"].paused) == (3, True)
    assert store.paused_items() == {("t.text-detach", 1)}


def test_pausing_twice_pauses_once_and_an_unpaused_version_stays_unpaused(store):
    at = CLOCK_START
    assert store.pause_items([("a", 1), ("b", 2)], "suspect_key", at) == [("a", 1), ("b", 2)]
    assert store.pause_items([("a", 1)], "suspect_key", at) == []
    assert store.unpause_item("a", at + dt.timedelta(hours=1)) == [1]
    assert store.pause_items([("a", 1), ("a", 2)], "suspect_key", at) == [("a", 2)]
    assert store.paused_items() == {("a", 2), ("b", 2)}
    assert store.unpause_item("zzz", at) == []


def test_an_admins_pause_pauses_once_and_pauses_an_unpaused_version_again(store):
    at = CLOCK_START
    assert store.pause_item("a", 1, "admin", at) is True
    assert store.pause_item("a", 1, "admin", at) is False  # paused already: nothing changed
    assert store.unpause_item("a", at + dt.timedelta(hours=1)) == [1]
    assert store.pause_item("a", 1, "admin", at + dt.timedelta(hours=2)) is True
    assert store.paused_items() == {("a", 1)}
    # The statistics' own pause still leaves an admin's versions alone.
    assert store.pause_items([("a", 1)], "suspect_key", at) == []
