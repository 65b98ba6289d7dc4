"""The item analytics' storage on SQLite and PostgreSQL: open reports, pausing, unpausing."""

import datetime as dt

import pytest

from bot.core.insights import InsightsService
from content.loader import load_bank
from db.store_insights import _REPORTS
from tests.core.conftest import BANK
from tests.fakes import CLOCK_START


@pytest.fixture(scope="module")
def bank():
    return load_bank(BANK)


@pytest.fixture
def reports(engine):
    """The reports table as agreed with the reports work, until its migration lands."""
    _REPORTS.metadata.create_all(engine)
    yield engine
    _REPORTS.metadata.drop_all(engine)


def report(engine, item, version, reason, status="open", user=1):
    with engine.begin() as connection:
        connection.execute(_REPORTS.insert().values(
            item_id=item, item_version=version, user_id=user, reason=reason, note="",
            status=status, created_at=CLOCK_START))


def test_without_a_reports_table_there_are_no_open_reports(store):
    assert store.open_report_counts() == {}


def test_open_reports_are_counted_per_version_and_reason(store, reports):
    for user in (1, 2):
        report(reports, "t.text-detach", 1, "incorrect", user=user)
    report(reports, "t.text-detach", 1, "ambiguous", user=3)
    report(reports, "t.text-detach", 1, "incorrect", status="closed", user=4)
    report(reports, "t.text-detach", 2, "translation", user=1)
    assert store.open_report_counts() == {
        ("t.text-detach", 1): {"incorrect": 2, "ambiguous": 1},
        ("t.text-detach", 2): {"translation": 1},
    }


def test_three_open_incorrect_reports_pause_the_version_without_any_answers(
        store, reports, bank, clock):
    for user in (1, 2, 3):
        report(reports, "t.text-detach", 1, "incorrect", user=user)
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
