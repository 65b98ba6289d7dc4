"""APScheduler jobs built from channel settings: the daily post, closing rounds, the weekly board.

The scheduler holds triggers only: what to post is the core's (QuizService, BoardService),
where it goes is the Publisher port's.

Cron triggers run in each channel's own time zone, so 09:00 stays 09:00 across DST changes.
Jobs live in memory and are rebuilt from the database at start and after every settings
change, whichever process made it: a change in this process reschedules its channel at once,
and every 5 seconds the settings stamp (one row) is read, so a change made elsewhere (the web
page's form) rebuilds the jobs too. The database, not the scheduler, remembers what was
posted (claim-then-post), so a restart or a second replica never posts a day twice. Every
30 seconds (and once at start, for answers kept across a restart) it grades code answers
that waited for an executor and hands each result to the adapter that took the answer. Every
minute it sends the review reminders whose time came (claimed in batches by the core) as
direct messages.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from zoneinfo import ZoneInfo

import apscheduler.executors.base
import apscheduler.schedulers.base
import apscheduler.triggers.date
import apscheduler.triggers.interval
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.core.kernel.clock import ScaledClock
from bot.core.kernel.errors import PlatformRefused
from bot.core.kernel.models import ChannelSettings, PrivateDelivery, RoundPost
from bot.core.kernel.ports import Publisher, ThreadGone
from bot.core.learning.reminders import MemberUnreachable
from bot.core.live import LivePost
from bot.core.quiz import Quiz
from bot.core.rounds.schedule import BOARD_GRACE, DEFAULT_GRACE, missed_board

__all__ = ["DEFAULT_GRACE", "Publisher", "QuizScheduler", "board_job_id", "board_trigger",
           "clocked_scheduler", "post_job_id", "post_trigger"]
log = logging.getLogger(__name__)

CLOSE_CHECK_SECONDS = 60
PENDING_CHECK_SECONDS = 30
REMIND_CHECK_SECONDS = 60
# Live sessions move by deadlines of a few seconds: their posts are checked this often.
LIVE_CHECK_SECONDS = 2
# A settings change made by another process (the web page's form) reaches the jobs this fast:
# one read of the settings stamp's row.
SETTINGS_CHECK_SECONDS = 5
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def post_job_id(channel_id: int) -> str:
    """Return the job id of a channel's daily post."""
    return f"post:{channel_id}"


def board_job_id(channel_id: int) -> str:
    """Return the job id of a channel's weekly leaderboard."""
    return f"board:{channel_id}"


def post_trigger(channel: ChannelSettings) -> CronTrigger:
    """Return the daily trigger at the channel's local post time."""
    return CronTrigger(hour=channel.post_time.hour, minute=channel.post_time.minute,
                       timezone=ZoneInfo(channel.timezone))


def board_trigger(channel: ChannelSettings) -> CronTrigger:
    """Return the weekly trigger at the channel's leaderboard weekday and hour."""
    return CronTrigger(day_of_week=_WEEKDAYS[channel.leaderboard_weekday],
                       hour=channel.leaderboard_hour, minute=0,
                       timezone=ZoneInfo(channel.timezone))



def _quiet_on_stop(job: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """Return ``job`` ending quietly when the stopping process cancels it mid-run.

    A job in flight at SIGTERM (the live sweep runs every 2 s) is cancelled with the loop, and
    the scheduler logged that as a failure with a traceback. Nothing is lost: every step a job
    stores is a claim, done once, and the next start (or another replica) takes up the rest.
    """
    @functools.wraps(job)
    async def run(*args: object) -> None:
        try:
            await job(*args)
        except asyncio.CancelledError:
            log.info("job %s cut short: the process is stopping", job.__name__)

    return run

# Under a compressed clock the scheduler wakes at most this often (wall seconds): the 2-second
# live sweep would otherwise run every few milliseconds at 720x and take a core per replica.
MIN_WAKE_S = 0.25


class _ScaledScheduler(AsyncIOScheduler):  # type: ignore[misc]
    """APScheduler waiting in compressed time: a wait of N clock seconds is N/speed real ones."""

    def __init__(self, clock: ScaledClock, **options: object) -> None:
        super().__init__(**options)
        self._clock = clock

    def _start_timer(self, wait_seconds: float | None) -> None:
        if wait_seconds is not None:
            wait_seconds = max(self._clock.real_seconds(wait_seconds), MIN_WAKE_S)
        super()._start_timer(wait_seconds)


def clocked_scheduler(clock: ScaledClock) -> AsyncIOScheduler:
    """Return a scheduler whose triggers, waits and misfire checks all read ``clock``.

    For the soak run only (one scheduler per process): APScheduler 3 reads ``datetime.now``
    in four modules, which are pointed at the clock here. The interval and date triggers are
    among them: an interval trigger starts at its own "now" plus the interval, so pointed at
    the wall clock it would first fire months after the soak's simulated days (the minute's
    sweep, reminders, late deliveries and live sweeps never ran in a soak process). Cron
    triggers still do their own time-zone arithmetic, so DST changes are APScheduler's as in
    production.
    """
    class ClockedDatetime(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> dt.datetime:  # type: ignore[override]
            now = clock.now()
            return now.astimezone(tz) if tz is not None else now.replace(tzinfo=None)

    for module in (apscheduler.schedulers.base, apscheduler.executors.base,
                   apscheduler.triggers.interval, apscheduler.triggers.date):
        module.datetime = ClockedDatetime
    return _ScaledScheduler(clock, timezone=dt.UTC)


class QuizScheduler:
    """Keep one job per channel for its post and its weekly board, plus a closing sweep."""

    def __init__(
        self,
        quiz: Quiz,
        publisher: Publisher,
        platform: str,
        scheduler: AsyncIOScheduler | None = None,
        grace: dt.timedelta = DEFAULT_GRACE,
        is_outage: Callable[[BaseException], bool] = lambda _: False,
    ) -> None:
        self.quiz = quiz
        # Whether an error says the database could not be reached (the composition root knows
        # the driver; this module does not): a job it ends is one warning line, not a traceback,
        # and the next sweep that reaches the database makes the posts missed meanwhile.
        self._is_outage = is_outage
        self._missed_during_outage = False
        self.publisher = publisher
        self.platform = platform
        self.scheduler = scheduler or AsyncIOScheduler(timezone=dt.UTC)
        self.grace = grace
        self._post_batch: tuple[list[int], asyncio.Future[None]] | None = None
        self._stamp: int | None = None  # the settings stamp the jobs were built from
        # One sweep of a kind at a time in this process: a sweep that finds its work claimed by
        # the one still publishing waits for it, so when a sweep returns, every post due when it
        # was called has gone out (the interval job and a console tick or a test's call overlap).
        self._closing = asyncio.Lock()
        self._advancing_live = asyncio.Lock()

    def _channels(self) -> list[ChannelSettings]:
        return self.quiz.rounds.platform_channels(self.platform)

    async def start(self) -> None:
        """Catch up on a post missed during downtime, schedule every channel, start ticking."""
        self._stamp = await asyncio.to_thread(self.quiz.setup.stamp)
        self.rebuild()
        sweeps = (("close", self.tick, CLOSE_CHECK_SECONDS),
                  ("remind", self.remind, REMIND_CHECK_SECONDS),
                  ("pending", self.deliver_pending, PENDING_CHECK_SECONDS),
                  ("live", self.advance_live, LIVE_CHECK_SECONDS),
                  ("settings", self.follow_settings, SETTINGS_CHECK_SECONDS))
        for job_id, sweep, seconds in sweeps:
            # A sweep that starts late (a busy loop, a compressed clock) still runs, once:
            # APScheduler's default would skip a run more than a second late.
            self.scheduler.add_job(self._job(sweep), IntervalTrigger(seconds=seconds),
                                   id=job_id, replace_existing=True, coalesce=True,
                                   max_instances=1, misfire_grace_time=None)
        if not self.scheduler.running:
            self.scheduler.start()
        await self.close_due()
        await self.post_unposted()
        await self.catch_up()
        await self.deliver_pending()
        log.info("scheduler started platform=%s jobs=%d", self.platform,
                 len(self.scheduler.get_jobs()))

    def shutdown(self) -> None:
        """Stop every job without waiting for running ones (the process is stopping)."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def rebuild(self, channels: list[ChannelSettings] | None = None) -> None:
        """Replace every channel's jobs with ones built from the current settings."""
        for job in self.scheduler.get_jobs():
            if job.id.startswith(("post:", "board:")):
                job.remove()
        for channel in self._channels() if channels is None else channels:
            self.schedule(channel)

    async def follow_settings(self) -> None:
        """Rebuild the jobs when the settings stamp moved on (another process changed them)."""
        stamp = await asyncio.to_thread(self.quiz.setup.stamp)
        if stamp == self._stamp:
            return
        channels = await asyncio.to_thread(self._channels)
        self._stamp = stamp
        self.rebuild(channels)
        log.info("settings changed elsewhere: jobs rebuilt platform=%s", self.platform)

    def schedule(self, channel: ChannelSettings) -> None:
        """(Re)schedule one channel; a disabled channel gets no jobs. Call on settings change."""
        for job_id in (post_job_id(channel.id), board_job_id(channel.id)):
            if self.scheduler.get_job(job_id) is not None:
                self.scheduler.remove_job(job_id)
        if channel.platform != self.platform or not channel.enabled:
            return
        self.scheduler.add_job(self._job(self.post), post_trigger(channel), args=[channel.id],
                               id=post_job_id(channel.id), coalesce=True,
                               misfire_grace_time=int(self.grace.total_seconds()))
        self.scheduler.add_job(self._job(self.post_board), board_trigger(channel),
                               args=[channel.id],
                               id=board_job_id(channel.id), coalesce=True,
                               misfire_grace_time=int(BOARD_GRACE.total_seconds()))

    async def catch_up(self) -> None:
        """Make what came due while the bot (or its database) was down, each once.

        Today's question within the grace; this week's board within BOARD_GRACE (its claim
        keeps a board already posted, by this replica or another, from going out twice).
        """
        posts = await asyncio.to_thread(self.quiz.rounds.catch_up, self.platform, self.grace)
        await asyncio.gather(*(self._publish(post) for post in posts))
        channels = await asyncio.to_thread(self._channels)
        now = self.quiz.rounds.clock.now()
        for channel in channels:
            if channel.enabled and missed_board(channel, now):
                await self.post_board(channel.id)

    async def post(self, channel_id: int) -> None:
        """Claim and publish today's round; a lost claim means another replica posted it.

        Channels due in the same minute are claimed together: APScheduler starts every due
        job before any of them runs, so each joins the batch the first one opened, and the
        batch is claimed once they all have (``QuizService.post_rounds``). Each call returns
        when its batch is claimed and published.
        """
        if self._post_batch is None:
            batch = self._post_batch = ([], asyncio.get_running_loop().create_future())
            asyncio.get_running_loop().create_task(self._post_batched(batch))
        channel_ids, done = self._post_batch
        channel_ids.append(channel_id)
        await asyncio.shield(done)  # a cancelled caller must not cancel the others' batch

    async def _post_batched(self, batch: tuple[list[int], asyncio.Future[None]]) -> None:
        channel_ids, done = batch
        await asyncio.sleep(0)  # the jobs already started join before the batch is claimed
        self._post_batch = None
        try:
            posts = await asyncio.to_thread(self.quiz.rounds.post_rounds, channel_ids)
            await asyncio.gather(*(self._publish(post) for post in posts))
        except Exception as exc:
            done.set_exception(exc)  # raised in every waiting job, which APScheduler logs
        else:
            done.set_result(None)

    async def post_unposted(self) -> None:
        """Post rounds that were claimed but never went out (a crash, a platform outage)."""
        for post in await asyncio.to_thread(self.quiz.rounds.unposted_rounds, self.platform):
            await self._publish(post)

    async def _publish(self, post: RoundPost) -> None:
        try:
            # A taken-over claim may have posted already (a crash or a client timeout after
            # the platform accepted it): adopt that post rather than show the round twice.
            ref = await self.publisher.find_round(post) if post.repost else None
            if ref is not None:
                log.warning("round %s was already posted in channel=%s; keeping that post",
                            post.round.id, post.channel.id)
            else:
                ref = await self.publisher.publish_round(post)
        except PlatformRefused as exc:
            log.warning("publishing round refused channel=%s round=%s (%s): tried again once "
                        "its claim runs out", post.channel.id, post.round.id, exc)
            return
        except Exception:
            # The claim stays: once its lease runs out, post_unposted tries again.
            log.exception("publishing round failed channel=%s round=%s", post.channel.id,
                          post.round.id)
            return
        await asyncio.to_thread(self.quiz.rounds.round_posted, post.round.id, ref)

    def _job(self, job: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        """Return ``job`` as the scheduler runs it: quiet when cut short or the database is down.

        A daily post that found the database down is made by the first minute's sweep after
        it is back (``catch_up``, within the grace), as after a restart.
        """
        quiet = _quiet_on_stop(job)

        @functools.wraps(job)
        async def run(*args: object) -> None:
            try:
                await quiet(*args)
            except Exception as exc:
                if not self._is_outage(exc):
                    raise
                self._missed_during_outage = True
                log.warning("job %s: the database is unreachable (%s); the next sweep tries "
                            "again", job.__name__, str(exc).partition("\n")[0][:200])

        return run

    async def tick(self) -> None:
        """Do the minute's housekeeping: close due rounds, retry posts that did not go out."""
        await self.close_due()
        await self.post_unposted()
        if self._missed_during_outage:
            self._missed_during_outage = False
            await self.catch_up()

    async def close_due(self) -> None:
        """Close rounds past their time and publish each reveal once."""
        async with self._closing:
            await self._close_due()

    async def _close_due(self) -> None:
        reveals = await asyncio.to_thread(self.quiz.rounds.close_due_rounds, self.platform)
        for reveal in reveals:
            try:
                await self.publisher.publish_reveal(reveal)
            except PlatformRefused as exc:
                log.warning("publishing reveal refused channel=%s round=%s (%s)",
                            reveal.channel.id, reveal.round.id, exc)
            except Exception:
                log.exception("publishing reveal failed channel=%s round=%s",
                              reveal.channel.id, reveal.round.id)

    async def advance_live(self) -> None:
        """Post what live sessions are due to post: each question, reveal and final board once."""
        async with self._advancing_live:
            await self._advance_live()

    async def _advance_live(self) -> None:
        posts = await asyncio.to_thread(self.quiz.live.advance, self.platform)
        # A thread started by this sweep's lobby post takes the same sweep's later posts too
        # (lobby=0 posts the lobby and the first question together).
        threads: dict[int, str | None] = {}
        for post in posts:
            if post.private is not None:
                await self._deliver(post.private)
                continue
            thread = threads.get(post.session_id, post.thread)
            try:
                await self._publish_live(post, thread, threads)
            except Exception:
                # The transition is stored: the session goes on; only this post is lost.
                log.exception("publishing live post failed channel=%s session=%s",
                              post.channel.id, post.session_id)

    async def _publish_live(self, post: LivePost, thread: str | None,
                            threads: dict[int, str | None]) -> None:
        try:
            started = await self.publisher.publish_live(post.channel, post.message, thread,
                                                        post.open_thread)
        except ThreadGone:
            # Deleted mid-session: the session goes on in the channel, this post included.
            threads[post.session_id] = None
            notice = await asyncio.to_thread(self.quiz.live.thread_gone,
                                             replace(post, thread=thread))
            if notice is not None:
                await self.publisher.publish_live(post.channel, notice)
            await self.publisher.publish_live(post.channel, post.message)
            return
        if post.open_thread and started:
            threads[post.session_id] = started
            await asyncio.to_thread(self.quiz.live.thread_started, post.session_id, started)

    async def deliver_pending(self) -> None:
        """Grade code answers that waited for an executor and deliver each result privately."""
        deliveries = await asyncio.to_thread(self.quiz.rounds.grade_pending, self.platform)
        for delivery in deliveries:
            await self._deliver(delivery)

    async def _deliver(self, delivery: PrivateDelivery) -> None:
        """Send one member a graded answer's result privately; a failure is logged, not raised."""
        try:
            await self.publisher.deliver_private(delivery)
        except Exception:
            log.exception("delivering a graded answer failed channel=%s member=%s round=%s",
                          delivery.channel_external_id, delivery.member_external_id,
                          delivery.round_id)

    async def remind(self) -> None:
        """Send this minute's review reminders, each claimed first, privately (never a channel)."""
        nudges = await asyncio.to_thread(self.quiz.reminders.due, self.platform)
        for nudge in nudges:
            try:
                await self.publisher.deliver_reminder(nudge)
            except MemberUnreachable:
                # Closed DMs: turned off (they are told at their next command), never retried.
                await asyncio.to_thread(self.quiz.reminders.unreachable, nudge.user_id)
            except Exception:
                log.exception("delivering a reminder failed member=%s", nudge.member_external_id)

    async def post_board(self, channel_id: int) -> None:
        """Publish the channel's weekly leaderboard once (claimed): the table and its chart."""
        if not await asyncio.to_thread(self.quiz.board.claim_weekly, channel_id):
            log.info("weekly board of channel=%s already claimed by another replica", channel_id)
            return
        board = await asyncio.to_thread(self.quiz.board.weekly_post, channel_id)
        try:
            await self.publisher.publish_board(board.channel, board.message)
        except PlatformRefused as exc:
            log.warning("publishing leaderboard refused channel=%s (%s)", channel_id, exc)
        except Exception:
            log.exception("publishing leaderboard failed channel=%s", channel_id)
