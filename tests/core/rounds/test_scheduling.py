"""Scheduling from channel settings: local time zones, DST, catch-up after downtime."""

import asyncio
import datetime as dt
from dataclasses import dataclass, field, replace

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

from bot.core.kernel.models import Actor, AnswerMode, ChannelDefaults, ChannelUpdate
from bot.core.kernel.ports import ThreadGone
from bot.core.live import LiveOptions
from bot.core.quiz import build_quiz
from bot.core.rounds.schedule import missed_board, missed_post
from bot.scheduling import QuizScheduler, post_trigger


@dataclass
class RecordingPublisher:
    """The platform edge: records what would have been posted."""

    rounds: list = field(default_factory=list)
    reveals: list = field(default_factory=list)
    boards: list = field(default_factory=list)
    live: list = field(default_factory=list)
    found: dict = field(default_factory=dict)  # round id -> the ref of an earlier post
    looked_for: list = field(default_factory=list)
    history_down: bool = False

    async def publish_round(self, post):
        self.rounds.append(post)
        return f"msg-{post.round.id}"

    async def find_round(self, post):
        self.looked_for.append(post.round.id)
        if self.history_down:
            raise ConnectionError("platform unreachable")
        return self.found.get(post.round.id)

    async def publish_reveal(self, reveal):
        self.reveals.append(reveal)

    async def publish_board(self, channel, message):
        self.boards.append((channel, message))

    async def publish_live(self, channel, message, thread=None, open_thread=False):
        self.live.append((channel, message))
        return None


def start_two_replicas(quiz):
    """Start two replicas' schedulers one after the other; return what each published."""
    publishers = RecordingPublisher(), RecordingPublisher()

    async def scenario():
        for publisher in publishers:
            sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC))
            await sched.start()
            sched.scheduler.shutdown(wait=False)

    asyncio.run(scenario())
    return publishers


def test_daily_trigger_keeps_local_time_across_the_dst_change(quiz):
    channel = quiz.rounds.channel("slack", "C1", "T1",
                                  ChannelDefaults(timezone="Europe/Berlin"))
    trigger = post_trigger(channel)
    before = trigger.get_next_fire_time(None, dt.datetime(2026, 3, 27, 12, tzinfo=dt.UTC))
    after = trigger.get_next_fire_time(None, dt.datetime(2026, 3, 29, 12, tzinfo=dt.UTC))
    assert before.astimezone(dt.UTC).hour == 8  # 09:00 CET
    assert after.astimezone(dt.UTC).hour == 7  # 09:00 CEST
    assert before.hour == after.hour == 9


@pytest.mark.parametrize(("utc_hour", "decision"), [(7, "wait"), (9, "post"), (13, "skip")])
def test_missed_post_is_made_within_grace_and_skipped_after(quiz, utc_hour, decision):
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    now = dt.datetime(2026, 3, 2, utc_hour, 30, tzinfo=dt.UTC)
    assert missed_post(channel, now, dt.timedelta(hours=3)) == decision


def test_start_catches_up_once_and_two_replicas_post_once(quiz, clock):
    clock.set(dt.datetime(2026, 3, 2, 10, tzinfo=dt.UTC))
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    first, second = start_two_replicas(quiz)
    assert len(first.rounds) + len(second.rounds) == 1
    posted = (first.rounds or second.rounds)[0]
    assert quiz.rounds.store.get_round(posted.round.id).message_ref == f"msg-{posted.round.id}"
    assert posted.channel.id == channel.id


def test_a_post_missed_beyond_the_grace_is_skipped_and_logged_once_not_posted(
        quiz, clock, caplog):
    clock.set(dt.datetime(2026, 3, 2, 13, tzinfo=dt.UTC))  # four hours after 09:00
    late = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    due = quiz.rounds.channel("slack", "C2", "T1", ChannelDefaults(timezone="Asia/Tokyo",
                                                                   post_time=dt.time(21, 30)))
    posts = quiz.rounds.catch_up("slack", dt.timedelta(hours=3))
    assert [p.channel.id for p in posts] == [due.id]  # 22:00 in Tokyo: half an hour late
    assert [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()] == [
        f"missed post skipped channel={late.id} (more than 3:00:00 late)"]
    assert quiz.rounds.catch_up("slack", dt.timedelta(hours=3)) == []  # claimed once


def test_settings_change_moves_the_job_and_disabling_removes_it(quiz):
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    sched = QuizScheduler(quiz, RecordingPublisher(), "slack", AsyncIOScheduler(timezone=dt.UTC))
    sched.rebuild()
    moved = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(post_time=dt.time(18, 5)))
    sched.schedule(moved)
    fields = {f.name: str(f) for f in sched.scheduler.get_job(f"post:{channel.id}").trigger.fields}
    assert (fields["hour"], fields["minute"]) == ("18", "5")
    disabled = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(enabled=False))
    sched.schedule(disabled)
    assert sched.scheduler.get_job(f"post:{channel.id}") is None


def test_a_settings_change_made_by_another_process_moves_the_job(quiz, store, bank, clock):
    """The web page's process changes a post time: this scheduler sees the stamp and follows."""
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    sched = QuizScheduler(quiz, RecordingPublisher(), "slack", AsyncIOScheduler(timezone=dt.UTC))
    elsewhere = build_quiz(store, bank, clock)  # no on_changed: nothing tells this process

    def post_at():
        fields = sched.scheduler.get_job(f"post:{channel.id}").trigger.fields
        return {f.name: str(f) for f in fields}["hour"], {f.name: str(f) for f in fields}["minute"]

    async def scenario():
        sched._stamp = await asyncio.to_thread(quiz.setup.stamp)
        sched.rebuild()
        before = post_at()
        await sched.follow_settings()  # nothing changed: nothing rebuilt
        admin = Actor(elsewhere.rounds.member("slack", "ada", "Ada"), is_admin=True)
        elsewhere.setup.apply(channel, admin, {"time": "07:30"})
        unchanged = post_at()
        await sched.follow_settings()
        return before, unchanged, post_at()

    assert asyncio.run(scenario()) == (("9", "0"), ("9", "0"), ("7", "30"))


def test_the_settings_stamp_moves_on_with_every_change(quiz, store):
    channel = quiz.rounds.channel("slack", "C1", "T1")
    first = store.settings_stamp()
    store.update_channel(channel.id, ChannelUpdate(post_time=dt.time(8, 0)))
    second = store.settings_stamp()
    store.update_channel(channel.id, ChannelUpdate(enabled=False))
    assert first < second < store.settings_stamp()


def test_only_this_platforms_channels_are_scheduled(quiz):
    quiz.rounds.channel("slack", "C1", "T1")
    other = quiz.rounds.channel("discord", "42", "G1")
    sched = QuizScheduler(quiz, RecordingPublisher(), "slack", AsyncIOScheduler(timezone=dt.UTC))
    sched.rebuild()
    assert sched.scheduler.get_job(f"post:{other.id}") is None


def test_due_round_is_revealed_and_weekly_board_posted(quiz, clock):
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    publisher = RecordingPublisher()
    sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC))

    async def scenario():
        await sched.post(channel.id)
        clock.advance(days=1)
        await sched.close_due()
        await sched.post_board(channel.id)

    asyncio.run(scenario())
    assert len(publisher.rounds) == 1 and len(publisher.reveals) == 1
    assert publisher.boards[0][1].audience == "channel"


def test_channels_due_in_the_same_minute_are_claimed_in_one_batch_and_each_posted_once(
    quiz, clock
):
    channels = [quiz.rounds.channel("slack", f"C{n}", "T1", ChannelDefaults(timezone="UTC"))
                for n in range(25)]
    publisher = RecordingPublisher()
    sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC))
    batches = []
    post_rounds = quiz.rounds.post_rounds

    def counted(channel_ids):
        batches.append(list(channel_ids))
        return post_rounds(channel_ids)

    quiz.rounds.post_rounds = counted

    async def scenario():
        # The real scheduler fires every job due at that moment, as at 09:00.
        soon = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=0.3)
        for channel in channels:
            sched.scheduler.add_job(sched.post, DateTrigger(soon), args=[channel.id])
        sched.scheduler.start()
        while len(publisher.rounds) < len(channels):
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        sched.scheduler.shutdown(wait=False)

    asyncio.run(asyncio.wait_for(scenario(), timeout=30))
    assert len(batches) == 1 and sorted(batches[0]) == sorted(c.id for c in channels)
    assert sorted(p.channel.id for p in publisher.rounds) == sorted(c.id for c in channels)


def test_a_failed_batch_fails_every_job_in_it_and_the_next_batch_starts_afresh(quiz):
    channels = [quiz.rounds.channel("slack", f"C{n}", "T1") for n in range(3)]
    publisher = RecordingPublisher()
    sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC))
    real = quiz.rounds.post_rounds

    def down(channel_ids):
        raise ConnectionError("database unreachable")

    async def scenario():
        quiz.rounds.post_rounds = down
        failed = await asyncio.gather(*(sched.post(c.id) for c in channels),
                                      return_exceptions=True)
        quiz.rounds.post_rounds = real
        await asyncio.gather(*(sched.post(c.id) for c in channels))
        return failed

    failed = asyncio.run(scenario())
    assert [type(f) for f in failed] == [ConnectionError] * 3
    assert sorted(p.channel.id for p in publisher.rounds) == sorted(c.id for c in channels)


def test_a_fresh_post_is_not_looked_for_but_a_taken_over_one_is_and_kept_when_found(
        quiz, clock):
    first, second = (quiz.rounds.channel("slack", f"C{n}", "T1") for n in (1, 2))
    publisher = RecordingPublisher()
    sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC))
    asyncio.run(sched.post(first.id))
    assert publisher.looked_for == [] and len(publisher.rounds) == 1
    claimed = quiz.rounds.post_round(second.id)  # then that replica dies
    publisher.found[claimed.round.id] = "msg-before-the-crash"
    clock.advance(minutes=5)
    asyncio.run(sched.post_unposted())
    assert publisher.looked_for == [claimed.round.id] and len(publisher.rounds) == 1
    assert quiz.rounds.store.get_round(claimed.round.id).message_ref == "msg-before-the-crash"


def test_when_the_platform_cannot_be_asked_the_round_waits_for_the_next_lease(quiz, clock):
    channel = quiz.rounds.channel("slack", "C1", "T1")
    claimed = quiz.rounds.post_round(channel.id)  # then that replica dies
    publisher = RecordingPublisher(history_down=True)
    sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC))
    clock.advance(minutes=5)
    asyncio.run(sched.post_unposted())
    assert publisher.rounds == []
    assert quiz.rounds.store.get_round(claimed.round.id).message_ref is None
    publisher.history_down = False
    asyncio.run(sched.post_unposted())
    assert publisher.rounds == []  # within the new claim's lease
    clock.advance(minutes=5)
    asyncio.run(sched.post_unposted())
    assert [p.round.id for p in publisher.rounds] == [claimed.round.id]


def test_the_live_sweep_posts_a_sessions_due_question_once_across_replicas(quiz, clock):
    channel = quiz.rounds.channel("discord", "C1", "G1", ChannelDefaults(name="general"))
    host = Actor(quiz.rounds.member("discord", "U1", "Ada"), is_admin=True)
    quiz.live.start(channel, host, LiveOptions(questions=1, lobby=5))
    first, second = RecordingPublisher(), RecordingPublisher()

    async def scenario():
        await QuizScheduler(quiz, first, "discord").advance_live()
        clock.advance(seconds=5)
        await QuizScheduler(quiz, first, "discord").advance_live()
        await QuizScheduler(quiz, second, "discord").advance_live()

    asyncio.run(scenario())
    titles = [m.title.split(" · ")[:2] for _, m in first.live]
    assert titles == [["Live quiz"], ["Live", "question 1/1"]]
    assert first.live[0][1].buttons and (first.live[1][1].buttons or first.live[1][1].form)
    assert second.live == []


@dataclass
class SlowPublisher(RecordingPublisher):
    """A platform that takes a while to accept each post (Slack under load)."""

    async def publish_live(self, channel, message, thread=None, open_thread=False):
        await asyncio.sleep(0.2)
        self.live.append((channel, message))

    async def publish_reveal(self, reveal):
        await asyncio.sleep(0.2)
        self.reveals.append(reveal)


def test_a_sweep_returns_only_once_what_was_due_has_gone_out(quiz, clock):
    # The interval job and a tick of the console (or a test) sweep in one process at once:
    # the sweep that finds the transition claimed must still not return before its post is out.
    channel = quiz.rounds.channel("discord", "C1", "G1", ChannelDefaults(name="general"))
    host = Actor(quiz.rounds.member("discord", "U1", "Ada"), is_admin=True)
    quiz.live.start(channel, host, LiveOptions(questions=1, lobby=5))
    publisher = SlowPublisher()
    sched = QuizScheduler(quiz, publisher, "discord")
    seen_after: dict[str, int] = {}

    async def scenario():
        await sched.post(channel.id)
        clock.advance(days=1)
        background = asyncio.create_task(sched.close_due())
        await asyncio.sleep(0.05)  # the background sweep has claimed the reveal, still posting
        await sched.close_due()
        seen_after["reveals"] = len(publisher.reveals)
        background = asyncio.create_task(sched.advance_live())
        await asyncio.sleep(0.05)
        await sched.advance_live()
        seen_after["live"] = len(publisher.live)
        await background

    asyncio.run(scenario())
    assert seen_after == {"reveals": 1, "live": 2}  # the lobby, then question 1


def test_a_job_cut_short_by_the_stopping_process_ends_quietly(caplog):
    import asyncio
    import logging

    from bot.scheduling import _quiet_on_stop

    async def main() -> None:
        started = asyncio.Event()

        async def sweep() -> None:
            started.set()
            await asyncio.sleep(60)

        task = asyncio.ensure_future(_quiet_on_stop(sweep)())
        await started.wait()
        task.cancel()  # what the stopping loop does to a job in flight
        await task  # ends: no CancelledError reaches the scheduler to be logged as a failure

    with caplog.at_level(logging.INFO):
        asyncio.run(main())
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert any("cut short" in r.getMessage() for r in caplog.records)


def test_a_post_that_found_the_database_down_is_made_by_the_first_sweep_after(
        quiz, clock, caplog, monkeypatch):
    import logging

    clock.set(dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC))
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    publisher = RecordingPublisher()
    sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC),
                          is_outage=lambda exc: isinstance(exc, ConnectionRefusedError))
    posting = sched._job(sched.post)
    real = quiz.rounds.post_rounds

    def down(*args, **kwargs):
        raise ConnectionRefusedError("the database is restarting")

    async def scenario():
        monkeypatch.setattr(quiz.rounds, "post_rounds", down)
        await posting(channel.id)  # the 09:00 job: one warning, no traceback
        monkeypatch.setattr(quiz.rounds, "post_rounds", real)
        clock.advance(minutes=2)
        await sched.tick()  # the database is back: the missed post is made
        await sched.tick()  # and only once

    with caplog.at_level(logging.INFO):
        asyncio.run(scenario())
    assert len(publisher.rounds) == 1
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage().split(":")[0] for r in warnings] == ["job post"]
    assert not any(r.exc_info for r in caplog.records)


def test_an_error_that_is_no_outage_still_reaches_the_scheduler(quiz):
    sched = QuizScheduler(quiz, RecordingPublisher(), "slack",
                          is_outage=lambda exc: isinstance(exc, ConnectionRefusedError))

    async def broken() -> None:
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        asyncio.run(sched._job(broken)())


def _board_due(channel, week_monday=dt.date(2026, 3, 2)):
    """Return when ``channel``'s board was due in the week of ``week_monday`` (UTC channel)."""
    day = week_monday + dt.timedelta(days=channel.leaderboard_weekday)
    return dt.datetime.combine(day, dt.time(channel.leaderboard_hour), tzinfo=dt.UTC)


@pytest.mark.parametrize(("weekday", "hour", "now", "made"), [
    (4, 16, dt.datetime(2026, 3, 6, 15, 59, tzinfo=dt.UTC), False),  # not due yet: its job fires
    (4, 16, dt.datetime(2026, 3, 6, 16, 0, tzinfo=dt.UTC), True),
    (4, 16, dt.datetime(2026, 3, 6, 21, 30, tzinfo=dt.UTC), True),  # 5.5 h late: within the grace
    (4, 16, dt.datetime(2026, 3, 6, 22, 1, tzinfo=dt.UTC), False),  # past the grace
    (6, 21, dt.datetime(2026, 3, 9, 1, 0, tzinfo=dt.UTC), False),  # Sunday 21h on Monday: new week
    (0, 9, dt.datetime(2026, 3, 8, 12, 0, tzinfo=dt.UTC), False),  # Monday's board, six days on
])
def test_a_missed_weekly_board_is_made_within_its_grace_and_its_week(
        quiz, weekday, hour, now, made):
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    channel = replace(channel, leaderboard_weekday=weekday, leaderboard_hour=hour)
    assert missed_board(channel, now) is made


def test_a_board_missed_in_a_database_outage_is_posted_by_the_next_sweep_once(
        quiz, clock, caplog, monkeypatch):
    import logging

    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    clock.set(_board_due(channel))
    publisher = RecordingPublisher()
    sched = QuizScheduler(quiz, publisher, "slack", AsyncIOScheduler(timezone=dt.UTC),
                          is_outage=lambda exc: isinstance(exc, ConnectionRefusedError))
    real = quiz.board.claim_weekly

    def down(*args, **kwargs):
        raise ConnectionRefusedError("the database is restarting")

    async def scenario():
        monkeypatch.setattr(quiz.board, "claim_weekly", down)
        await sched._job(sched.post_board)(channel.id)  # the board's job: one warning
        monkeypatch.setattr(quiz.board, "claim_weekly", real)
        clock.advance(minutes=3)
        await sched.tick()  # the database is back: the board goes out
        await sched.tick()  # and only once

    with caplog.at_level(logging.INFO):
        asyncio.run(scenario())
    assert len(publisher.boards) == 1
    assert not any(r.exc_info for r in caplog.records)


def test_two_replicas_started_after_the_boards_hour_post_it_once(quiz, clock):
    channel = quiz.rounds.channel("slack", "C1", "T1", ChannelDefaults(timezone="UTC"))
    clock.set(_board_due(channel) + dt.timedelta(hours=2))
    first, second = start_two_replicas(quiz)
    assert len(first.boards) + len(second.boards) == 1


@dataclass
class ThreadedPublisher(RecordingPublisher):
    """A platform with threads: the lobby starts one; a deleted one refuses posts."""

    deleted: set = field(default_factory=set)
    where: list = field(default_factory=list)

    async def publish_live(self, channel, message, thread=None, open_thread=False):
        if thread in self.deleted:
            raise ThreadGone(thread)
        self.live.append((channel, message))
        self.where.append(thread)
        return "T1" if open_thread else None


def test_a_sessions_posts_go_in_its_thread_and_in_the_channel_once_it_is_gone(quiz, clock):
    channel = quiz.rounds.channel("discord", "C1", "G1", ChannelDefaults(name="general"))
    host = Actor(quiz.rounds.member("discord", "U1", "Ada"), is_admin=True)
    quiz.live.start(channel, host, LiveOptions(questions=2, lobby=0, seconds=10))
    publisher = ThreadedPublisher()

    async def scenario():
        sched = QuizScheduler(quiz, publisher, "discord")
        await sched.advance_live()  # the lobby (starting T1) and question 1 in T1
        session = quiz.live.store.active_live(channel.id)
        assert session.thread_ref == "T1"
        quiz.live.answer(channel, host.member, "A", AnswerMode.TEXT, "en")
        publisher.deleted.add("T1")
        clock.advance(seconds=10)
        await sched.advance_live()  # the reveal finds T1 gone: notice, reveal, question 2
        assert quiz.live.store.active_live(channel.id).thread_ref is None

    asyncio.run(scenario())
    titles = [m.title or m.body for _, m in publisher.live]
    assert publisher.where == [None, "T1", None, None, None]
    assert "thread was deleted" in titles[2]
    assert titles[3].startswith("Live · answer to question 1/2")
    assert titles[4].startswith("Live · question 2/2")
