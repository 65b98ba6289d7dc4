"""The soak run's compressed clock, and APScheduler following it (bot/scheduling.py)."""

from __future__ import annotations

import asyncio
import datetime as dt

import apscheduler.executors.base
import apscheduler.schedulers.base
import apscheduler.triggers.date
import apscheduler.triggers.interval
import pytest
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.bootstrap import settings_clock
from bot.core.kernel.clock import BadClock, ScaledClock, SystemClock
from bot.scheduling import clocked_scheduler
from bot.settings import Settings

START = dt.datetime(2026, 3, 7, 6, 0, tzinfo=dt.UTC)


def test_it_runs_speed_times_faster_from_its_anchor():
    wall = [1000.0]
    clock = ScaledClock(START, 720.0, 1000.0, wall=lambda: wall[0])
    assert clock.now() == START
    wall[0] += 5.0
    assert clock.now() == START + dt.timedelta(hours=1)
    assert clock.real_seconds(3600) == 5.0


def test_it_stands_at_its_start_until_its_anchor():
    wall = [900.0]
    clock = ScaledClock(START, 720.0, 1000.0, wall=lambda: wall[0])
    assert clock.now() == START
    wall[0] = 1000.5
    assert clock.now() == START + dt.timedelta(minutes=6)


def test_every_process_given_the_same_setting_reads_the_same_time():
    text = "2026-03-07T06:00:00+00:00 x720 @1000.5"
    first, second = ScaledClock.parse(text), ScaledClock.parse(text)
    assert (first.start, first.speed, first.anchor) == (second.start, second.speed, 1000.5)
    assert first.start == START


@pytest.mark.parametrize("text", [
    "", "2026-03-07T06:00:00+00:00", "2026-03-07T06:00:00+00:00 720 @1",
    "2026-03-07T06:00:00 x720 @1", "2026-03-07T06:00:00+00:00 x0 @1",
    "2026-03-07T06:00:00+00:00 xfast @1", "yesterday x2 @1",
])
def test_an_unreadable_setting_is_refused(text):
    with pytest.raises(BadClock):
        ScaledClock.parse(text)


def test_the_composition_root_reads_the_setting_and_defaults_to_the_system_clock(tmp_path):
    assert isinstance(settings_clock(Settings(data_dir=tmp_path)), SystemClock)
    clock = settings_clock(Settings(data_dir=tmp_path,
                                    soak_clock="2026-03-07T06:00:00+00:00 x60 @0"))
    assert isinstance(clock, ScaledClock) and clock.speed == 60


def test_a_cron_job_an_hour_ahead_fires_in_compressed_time(monkeypatch):
    # The scheduler is pointed at the clock process-wide: put APScheduler back afterwards.
    for module in (apscheduler.schedulers.base, apscheduler.executors.base,
                   apscheduler.triggers.interval, apscheduler.triggers.date):
        monkeypatch.setattr(module, "datetime", dt.datetime)

    async def run() -> list[dt.datetime]:
        import time

        clock = ScaledClock(START, 7200.0, time.time())  # an hour in half a second
        scheduler = clocked_scheduler(clock)
        fired: list[dt.datetime] = []
        done = asyncio.Event()

        async def job() -> None:
            fired.append(clock.now())
            done.set()

        scheduler.add_job(job, CronTrigger(hour=7, minute=0, timezone=dt.UTC),
                          misfire_grace_time=3600)
        scheduler.start()
        try:
            await asyncio.wait_for(done.wait(), 60)
        finally:
            scheduler.shutdown(wait=False)
        return fired

    fired = asyncio.run(run())
    # It fired at (or after) 07:00 of the compressed clock, within a minute of wall time where
    # the system clock would have taken an hour.
    assert len(fired) == 1 and START + dt.timedelta(hours=1) <= fired[0]


def test_an_interval_job_fires_in_compressed_time(monkeypatch):
    # The minute's sweep (and reminders, late deliveries, live) are interval jobs: their
    # trigger starts at its own "now", which must be the clock's, not the wall clock's.
    for module in (apscheduler.schedulers.base, apscheduler.executors.base,
                   apscheduler.triggers.interval, apscheduler.triggers.date):
        monkeypatch.setattr(module, "datetime", dt.datetime)

    async def run() -> list[dt.datetime]:
        import time

        clock = ScaledClock(START, 7200.0, time.time())
        scheduler = clocked_scheduler(clock)
        fired: list[dt.datetime] = []
        done = asyncio.Event()

        async def job() -> None:
            fired.append(clock.now())
            if len(fired) == 3:
                done.set()

        scheduler.add_job(job, IntervalTrigger(seconds=600), coalesce=True,
                          misfire_grace_time=None)
        scheduler.start()
        try:
            await asyncio.wait_for(done.wait(), 60)
        finally:
            scheduler.shutdown(wait=False)
        return fired

    fired = asyncio.run(run())
    assert len(fired) == 3 and fired[0] >= START + dt.timedelta(minutes=10)
