"""Review reminders (/quiz-remind): opt-in, private, at most one a day, only when reviews are due.

A member turns them on in a quiz channel; the channel's zone is kept with the setting, and the
nudge comes at the hour they chose (the channel's post time by default). Every minute each
platform's scheduler asks :meth:`ReminderService.due`, which reads the reminders whose time
came together with each member's count of due reviews (one query per batch) and claims them
(one UPDATE per batch that moves each reminder to its next time, only where it is still due):
whichever replica moves a reminder sends its nudge, the others skip it. Claim, then send, like
the daily post: a nudge lost to a platform error is not retried that day.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from zoneinfo import ZoneInfo

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Button, Message, Tone, remind_action
from bot.core.kernel.models import (
    ChannelSettings,
    DueReminder,
    Member,
    Nudge,
    Reminder,
    ReminderClaim,
)
from bot.core.kernel.ports import Clock
from bot.core.learning.store import ReminderStore
from bot.core.packs import Library
from content.topics import topic_label

log = logging.getLogger(__name__)

BATCH = 500  # reminders read and claimed per statement: the daily post's batch size
MAX_BATCHES = 1000  # a bound on one minute's loop, far above 500,000 members
DM_CLOSED = "dm_closed"
TOPICS_SHOWN = 3


class MemberUnreachable(Exception):
    """The platform refuses direct messages to this member (a Publisher raises it)."""


def next_time(at: dt.time, zone: str, after: dt.datetime,
              not_before: dt.date | None = None) -> dt.datetime:
    """Return the first instant after ``after`` that is ``at`` local time, on or after a date.

    Computed in the zone's own calendar, so 18:00 stays 18:00 across a DST change.
    """
    tz = ZoneInfo(zone)
    day = after.astimezone(tz).date()
    if not_before is not None and not_before > day:
        day = not_before
    while True:
        local = dt.datetime.combine(day, at, tzinfo=tz)
        if local.astimezone(dt.UTC) > after:
            return local.astimezone(dt.UTC)
        day += dt.timedelta(days=1)


def parse_command(argument: str) -> tuple[str, int | None] | None:
    """Split ``on [hour]``, ``off``, ``snooze`` or nothing into (action, hour); None if bad."""
    words = argument.lower().split()
    if not words:
        return "status", None
    action, rest = words[0], words[1:]
    if action not in ("on", "off", "snooze", "stop") or (rest and action != "on") or len(rest) > 1:
        return None
    if not rest:
        return ("off" if action == "stop" else action), None
    hour = rest[0].removesuffix(":00").removesuffix("h")
    if not hour.isascii() or not hour.isdigit() or not 0 <= int(hour) <= 23:
        return None
    return "on", int(hour)


# Beyond this many withdrawn items, the nudge's count includes them (one bound parameter each).
MAX_HIDDEN = 2000


class ReminderService:
    """Opt members in and out, and find the nudges each minute owes them."""

    def __init__(self, store: ReminderStore, clock: Clock,
                 topics_of: Mapping[str, Sequence[str]] | None = None, *,
                 library: Library | None = None) -> None:
        self.store = store
        self.clock = clock
        self._topics_of = dict(topics_of or {})
        self.library = library  # live topics, and which items a workspace still sees

    # ------------------------------------------------------------ the member's setting
    def command(self, member: Member, channel: ChannelSettings | None, argument: str,
                locale: str) -> Message:
        """Handle ``/quiz-remind on [hour] | off | snooze`` (nothing: say how it stands)."""
        parsed = parse_command(argument)
        if parsed is None:
            return Message(body=t(locale, "remind.usage"), tone=Tone.WARNING)
        action, hour = parsed
        if action == "on":
            return self.turn_on(member, channel, hour, locale)
        if action == "off":
            return self.stop(member, locale)
        if action == "snooze":
            return self.snooze(member, locale)
        current = self.store.get_reminder(member.id)
        if current is None or not current.enabled:
            return Message(body=t(locale, "remind.status_off"))
        return self._on_message(current, locale)

    def turn_on(self, member: Member, channel: ChannelSettings | None, hour: int | None,
                locale: str) -> Message:
        """Opt the member in, at ``hour`` (None: the channel's post time) in the channel's zone.

        Outside a quiz channel, an earlier setting keeps its channel and zone.
        """
        current = self.store.get_reminder(member.id)
        now = self.clock.now()
        if channel is None:
            if current is None:
                return Message(body=t(locale, "remind.no_channel"), tone=Tone.WARNING)
            channel_id, zone, default = current.channel_id, current.timezone, current.at
        else:
            channel_id, zone, default = channel.id, channel.timezone, channel.post_time
        at = dt.time(hour, 0) if hour is not None else dt.time(default.hour, default.minute)
        last_sent = current.last_sent if current is not None else None
        # At most one a day: after today's nudge, a new hour starts tomorrow.
        not_before = last_sent + dt.timedelta(days=1) if last_sent is not None else None
        reminder = Reminder(
            user_id=member.id, platform=member.platform, member_external_id=member.external_id,
            channel_id=channel_id, at=at, timezone=zone, enabled=True,
            next_at=next_time(at, zone, now, not_before), last_sent=last_sent,
        )
        saved = self.store.save_reminder(reminder)
        log.info("reminder on user=%s channel=%s at=%s zone=%s", member.id, channel_id, at, zone)
        return self._on_message(saved, locale, Tone.SUCCESS)

    @staticmethod
    def _on_message(reminder: Reminder, locale: str, tone: Tone = Tone.INFO) -> Message:
        return Message(body=t(locale, "remind.on", time=reminder.at.strftime("%H:%M"),
                              zone=reminder.timezone), tone=tone)

    def stop(self, member: Member, locale: str) -> Message:
        """Opt the member out (the Stop button, ``/quiz-remind off``)."""
        self.store.stop_reminder(member.id)
        log.info("reminder off user=%s", member.id)
        return Message(body=t(locale, "remind.off"), tone=Tone.SUCCESS)

    def snooze(self, member: Member, locale: str) -> Message:
        """Skip the member's next day: no nudge tomorrow, the next one the day after."""
        current = self.store.get_reminder(member.id)
        if current is None or not current.enabled:
            return Message(body=t(locale, "remind.not_on"), tone=Tone.WARNING)
        now = self.clock.now()
        today = now.astimezone(ZoneInfo(current.timezone)).date()
        skipped = today + dt.timedelta(days=1)
        resume = today + dt.timedelta(days=2)
        next_at = next_time(current.at, current.timezone, now, resume)
        self.store.save_reminder(replace(current, snoozed_until=resume, next_at=next_at))
        return Message(body=t(locale, "remind.snoozed", skipped=skipped.isoformat(),
                              date=resume.isoformat(), time=current.at.strftime("%H:%M")),
                       tone=Tone.SUCCESS)

    def notice(self, platform: str, member_external_id: str, locale: str) -> str | None:
        """Return, once, the line that tells a member we turned their reminders off."""
        reason = self.store.take_reminder_notice(platform, member_external_id)
        return t(locale, "remind.dm_closed") if reason == DM_CLOSED else None

    def unreachable(self, user_id: int) -> None:
        """Turn off the reminder of a member who takes no direct messages, to tell them once."""
        if self.store.stop_reminder(user_id, DM_CLOSED):
            log.warning("reminder off user=%s: the platform refused a direct message", user_id)

    def due_items(self, member: Member) -> list[str]:
        """Return the items of the member's reviews due now, most overdue first."""
        return self.store.due_review_items(member.id, self.clock.now())

    # ------------------------------------------------------------ the minute's fan-out
    def due(self, platform: str, batch: int = BATCH) -> list[Nudge]:
        """Claim this minute's reminders on ``platform`` and return the nudges this replica won.

        Per batch: one read (reminders due, with each member's count of due reviews) and one
        UPDATE (the claim), whatever the number of members. A member with nothing due is
        moved on to their next time without a nudge.
        """
        now = self.clock.now()
        nudges: list[Nudge] = []
        # A removed pack's reviews are no longer served: they do not call for a nudge either.
        withdrawn = self.library.withdrawn() if self.library is not None else frozenset()
        hidden = withdrawn if len(withdrawn) <= MAX_HIDDEN else frozenset()
        for _ in range(MAX_BATCHES):
            found = self.store.due_reminders(platform, now, batch, hidden)
            if not found:
                break
            claims = [self._claim(due, now) for due in found]
            won = self.store.claim_reminders(claims, now)
            nudges += [self._nudge(due) for due, claim in zip(found, claims, strict=True)
                       if claim.sent_on is not None and due.reminder.user_id in won]
        else:
            log.error("reminders: %d batches in one minute on %s; the rest waits", MAX_BATCHES,
                      platform)
        return nudges

    @staticmethod
    def _claim(due: DueReminder, now: dt.datetime) -> ReminderClaim:
        reminder = due.reminder
        today = now.astimezone(ZoneInfo(reminder.timezone)).date()
        snoozed = reminder.snoozed_until is not None and today < reminder.snoozed_until
        sent = due.due_reviews > 0 and not snoozed and reminder.last_sent != today
        # The next nudge comes on a later local day than today's, whatever the zone did.
        next_at = next_time(reminder.at, reminder.timezone, now, today + dt.timedelta(days=1))
        return ReminderClaim(reminder.user_id, next_at, today if sent else None)

    def _nudge(self, due: DueReminder) -> Nudge:
        reminder, locale = due.reminder, due.locale
        return Nudge(platform=reminder.platform, user_id=reminder.user_id,
                     member_external_id=reminder.member_external_id,
                     workspace_external_id=due.workspace_external_id, locale=locale,
                     message=nudge_message(due.due_reviews, locale))

    def home_line(self, member: Member, locale: str, scope: str | None = None) -> str:
        """Return the line of the member's due reviews for an overview (the Slack App Home).

        With a library, only the reviews the workspace ``scope`` would serve count: none of
        another workspace's packs, none of a removed pack.
        """
        items = self.due_items(member)
        topics_of: Mapping[str, Sequence[str]] = self._topics_of
        if self.library is not None:
            view = self.library.view(scope)
            items = [i for i in items if i in view.ids]
            topics_of = self.library.topics_of()
        if not items:
            return t(locale, "home.reviews_none")
        counts: dict[str, int] = {}
        for item in items:
            for topic in topics_of.get(item, ())[:1]:
                counts[topic] = counts.get(topic, 0) + 1
        line = (t(locale, "home.review_due_one") if len(items) == 1
                else t(locale, "home.reviews_due", n=len(items)))
        if counts:
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            line += "\n" + t(locale, "remind.topics", topics=", ".join(
                f"{topic_label(topic, locale)} ({n})" for topic, n in ranked[:TOPICS_SHOWN * 2]))
        return line


def nudge_message(due_reviews: int, locale: str) -> Message:
    """Return the private nudge: how many reviews are due, and Start, Snooze and Stop."""
    body = t(locale, "remind.due_one") if due_reviews == 1 else t(locale, "remind.due",
                                                                   n=due_reviews)
    return Message(
        title=t(locale, "remind.title"), body=body,
        buttons=(Button(remind_action("start"), t(locale, "remind.start")),
                 Button(remind_action("snooze"), t(locale, "remind.snooze")),
                 Button(remind_action("stop"), t(locale, "remind.stop"))),
    )
