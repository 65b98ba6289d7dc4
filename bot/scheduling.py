"""APScheduler jobs built from channel settings: the daily post, closing rounds, the weekly board.

Cron triggers run in each channel's own time zone, so 09:00 stays 09:00 across DST changes.
Jobs live in memory and are rebuilt from the database at start and after every settings
change; the database, not the scheduler, remembers what was posted (claim-then-post), so a
restart or a second replica never posts a day twice. Every 30 seconds (and once at start, for
answers kept across a restart) it grades code answers that waited for an executor and hands
each result to the adapter that took the answer.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from typing import Protocol
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.charts import leaderboard_chart, week_range
from bot.core.i18n import t
from bot.core.messages import Audience, Message
from bot.core.models import ChannelSettings
from bot.core.pending import PrivateDelivery
from bot.core.quiz import Quiz
from bot.core.scoring import week_start
from bot.core.service import Reveal, RoundPost

log = logging.getLogger(__name__)

DEFAULT_GRACE = dt.timedelta(hours=3)
CLOSE_CHECK_SECONDS = 60
PENDING_CHECK_SECONDS = 30
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class Publisher(Protocol):
    """What a platform adapter offers the scheduler: post into a channel, return a reference.

    Each method sends one thing and raises on failure; the scheduler logs the failure with
    ids and carries on, so one platform error never stops the other channels' jobs.
    """

    async def publish_round(self, post: RoundPost) -> str:
        """Post a new round and return the platform's reference to the message."""
        ...

    async def publish_reveal(self, reveal: Reveal) -> None:
        """Post the reveal in the round's thread."""
        ...

    async def publish_board(self, channel: ChannelSettings, message: Message) -> None:
        """Post the weekly leaderboard to the channel."""
        ...

    async def deliver_private(self, delivery: PrivateDelivery) -> None:
        """Send ``delivery.message`` to the member privately, where they answered.

        ``delivery`` names the platform's own channel and member ids. Show it the way the
        adapter shows a private answer reply (Discord: a DM or an ephemeral follow-up; Slack:
        chat.postEphemeral in the channel), with ``detail`` and ``output`` through the
        sanitiser like any verdict. It is called after the answer was recorded: a failure
        loses the message, never the answer.
        """
        ...


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


def missed_post(channel: ChannelSettings, now: dt.datetime, grace: dt.timedelta) -> str:
    """Say what to do at start-up about today's post: "post", "skip" (too late) or "wait"."""
    zone = ZoneInfo(channel.timezone)
    local = now.astimezone(zone)
    due = dt.datetime.combine(local.date(), channel.post_time, tzinfo=zone)
    if local < due:
        return "wait"
    return "post" if local - due <= grace else "skip"


def weekly_board(quiz: Quiz, channel: ChannelSettings) -> Message:
    """Return the weekly leaderboard post: the table as text and the chart as a PNG."""
    locale = channel.locale
    start = week_start(quiz.rounds.clock.now(), channel.timezone).astimezone(
        ZoneInfo(channel.timezone)).date()
    title = t(locale, "leaderboard.weekly", week=week_range(start))
    board = quiz.board.leaderboard(channel, "week", locale)
    chart = leaderboard_chart(quiz.board.rows(channel, "week"),
                              title=t(locale, "leaderboard.title.week"), week_start=start,
                              locale=locale)
    return Message(title=title, body=board.body, code=board.code, audience=Audience.CHANNEL,
                   image_png=chart.png, image_name=chart.name)


class QuizScheduler:
    """Keep one job per channel for its post and its weekly board, plus a closing sweep."""

    def __init__(
        self,
        quiz: Quiz,
        publisher: Publisher,
        platform: str,
        scheduler: AsyncIOScheduler | None = None,
        grace: dt.timedelta = DEFAULT_GRACE,
    ) -> None:
        self.quiz = quiz
        self.publisher = publisher
        self.platform = platform
        self.scheduler = scheduler or AsyncIOScheduler(timezone=dt.UTC)
        self.grace = grace
        self._post_batch: tuple[list[int], asyncio.Future[None]] | None = None

    def _channels(self) -> list[ChannelSettings]:
        return [c for c in self.quiz.rounds.store.list_channels() if c.platform == self.platform]

    async def start(self) -> None:
        """Catch up on a post missed during downtime, schedule every channel, start ticking."""
        self.rebuild()
        self.scheduler.add_job(self.tick, IntervalTrigger(seconds=CLOSE_CHECK_SECONDS),
                               id="close", replace_existing=True, coalesce=True)
        self.scheduler.add_job(self.deliver_pending,
                               IntervalTrigger(seconds=PENDING_CHECK_SECONDS), id="pending",
                               replace_existing=True, coalesce=True, max_instances=1)
        if not self.scheduler.running:
            self.scheduler.start()
        await self.close_due()
        await self.post_unposted()
        await self.catch_up()
        await self.deliver_pending()

    def shutdown(self) -> None:
        """Stop every job without waiting for running ones (the process is stopping)."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def rebuild(self) -> None:
        """Replace every channel's jobs with ones built from the current settings."""
        for job in self.scheduler.get_jobs():
            if job.id.startswith(("post:", "board:")):
                job.remove()
        for channel in self._channels():
            self.schedule(channel)

    def schedule(self, channel: ChannelSettings) -> None:
        """(Re)schedule one channel; a disabled channel gets no jobs. Call on settings change."""
        for job_id in (post_job_id(channel.id), board_job_id(channel.id)):
            if self.scheduler.get_job(job_id) is not None:
                self.scheduler.remove_job(job_id)
        if channel.platform != self.platform or not channel.enabled:
            return
        self.scheduler.add_job(self.post, post_trigger(channel), args=[channel.id],
                               id=post_job_id(channel.id), coalesce=True,
                               misfire_grace_time=int(self.grace.total_seconds()))
        self.scheduler.add_job(self.post_board, board_trigger(channel), args=[channel.id],
                               id=board_job_id(channel.id), coalesce=True,
                               misfire_grace_time=3600)

    async def catch_up(self) -> None:
        """Post today's question once if the bot was down at post time, within the grace."""
        now = self.quiz.rounds.clock.now()
        for channel in self._channels():
            if not channel.enabled:
                continue
            decision = missed_post(channel, now, self.grace)
            if decision == "post":
                await self.post(channel.id)
            elif decision == "skip" and self.quiz.rounds.store.round_for_date(
                channel.id, self.quiz.rounds.local_date(channel, now)
            ) is None:
                log.warning("missed post skipped channel=%s (more than %s late)",
                            channel.id, self.grace)

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
            ref = await self.publisher.publish_round(post)
        except Exception:
            # The claim stays: once its lease runs out, post_unposted tries again.
            log.exception("publishing round failed channel=%s round=%s", post.channel.id,
                          post.round.id)
            return
        await asyncio.to_thread(self.quiz.rounds.round_posted, post.round.id, ref)

    async def tick(self) -> None:
        """Do the minute's housekeeping: close due rounds, retry posts that did not go out."""
        await self.close_due()
        await self.post_unposted()

    async def close_due(self) -> None:
        """Close rounds past their time and publish each reveal once."""
        reveals = await asyncio.to_thread(self.quiz.rounds.close_due_rounds, self.platform)
        for reveal in reveals:
            try:
                await self.publisher.publish_reveal(reveal)
            except Exception:
                log.exception("publishing reveal failed channel=%s round=%s",
                              reveal.channel.id, reveal.round.id)

    async def deliver_pending(self) -> None:
        """Grade code answers that waited for an executor and deliver each result privately."""
        deliveries = await asyncio.to_thread(self.quiz.rounds.grade_pending, self.platform)
        for delivery in deliveries:
            try:
                await self.publisher.deliver_private(delivery)
            except Exception:
                log.exception("delivering a graded answer failed channel=%s member=%s round=%s",
                              delivery.channel_external_id, delivery.member_external_id,
                              delivery.round_id)

    async def post_board(self, channel_id: int) -> None:
        """Publish the channel's weekly leaderboard: the table and its chart."""
        channel = await asyncio.to_thread(self.quiz.rounds.get_channel, channel_id)
        message = await asyncio.to_thread(weekly_board, self.quiz, channel)
        try:
            await self.publisher.publish_board(channel, message)
        except Exception:
            log.exception("publishing leaderboard failed channel=%s", channel_id)
