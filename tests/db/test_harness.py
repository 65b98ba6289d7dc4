"""The test harness itself: the fake clock, and PostgreSQL never skipped silently in CI."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes import FakeClock

ROOT = Path(__file__).resolve().parents[2]
START = dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC)


def test_fake_clock_stands_still():
    clock = FakeClock(START)
    assert clock.now() == clock.now() == START


def test_fake_clock_advances_by_a_timedelta_or_keywords():
    clock = FakeClock(START)
    clock.advance(dt.timedelta(hours=1))
    assert clock.advance(minutes=30) == START + dt.timedelta(hours=1, minutes=30)


def test_fake_clock_refuses_to_go_backwards():
    with pytest.raises(ValueError, match="forward"):
        FakeClock(START).advance(hours=-1)


def test_fake_clock_set_converts_to_utc():
    clock = FakeClock(START)
    clock.set(dt.datetime(2026, 3, 2, 17, 0, tzinfo=dt.timezone(dt.timedelta(hours=9))))
    assert (clock.now(), clock.now().tzinfo) == (START, dt.UTC)


def test_fake_clock_refuses_naive_datetimes():
    with pytest.raises(ValueError, match="aware"):
        FakeClock(dt.datetime(2026, 3, 2, 8, 0))  # noqa: DTZ001 - the point of the test


def _run_one_postgres_test(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "TORCHQUIZ_TEST_PG_URL")}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/db/test_engine.py::test_database_runs_migrated_and_connectable[postgres]",
        ],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_missing_postgres_fails_the_run_in_ci():
    result = _run_one_postgres_test(CI="1")
    assert result.returncode != 0
    assert "CI must run the PostgreSQL tests" in result.stdout


def test_missing_postgres_skips_outside_ci():
    result = _run_one_postgres_test()
    assert result.returncode == 0
    assert "1 skipped" in result.stdout


def test_each_test_starts_with_empty_tables_and_ids_at_one(store):
    # Earlier tests in this process created channels and members on the same database.
    assert store.list_channels(enabled_only=False) == []
    assert store.ensure_member("slack", "U1", "Ada").id == 1
