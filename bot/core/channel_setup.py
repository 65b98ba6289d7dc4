"""Admin setup of a channel: parse `key=value` changes, check them, apply them, show them."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from zoneinfo import ZoneInfo, available_timezones

from bot.core.errors import UserError
from bot.core.i18n import t
from bot.core.messages import Message, Tone
from bot.core.models import SUPPORTED_LOCALES, Actor, ChannelSettings, ChannelUpdate
from bot.core.ports import QuizStore

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
KEYS = ("time", "tz", "lang", "topics", "difficulty", "enabled", "leaderboard")
# ASCII digits only: str.isdigit() and \d also take "²", Arabic-Indic and full-width digits.
_TIME = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])")
_HOUR = re.compile(r"[01]?[0-9]|2[0-3]")


def parse_changes(changes: Mapping[str, str], known_topics: set[str]) -> ChannelUpdate:
    """Turn admin input into a ChannelUpdate, or raise UserError saying exactly what is wrong."""
    unknown = sorted(set(changes) - set(KEYS))
    if unknown:
        raise UserError(f"Unknown setting {unknown[0]!r}. Settings: {', '.join(KEYS)}.")
    update = ChannelUpdate()
    for key, raw in changes.items():
        value = raw.strip()
        if key == "time":
            match = _TIME.fullmatch(value)
            if not match:
                raise UserError("time must be HH:MM in 24-hour form with digits 0-9, "
                                "e.g. time=09:30.")
            update = replace(update, post_time=dt.time(int(match.group(1)), int(match.group(2))))
        elif key == "tz":
            if value not in available_timezones():
                raise UserError(
                    f"Unknown time zone {value!r}; use an IANA name like Asia/Shanghai."
                )
            ZoneInfo(value)
            update = replace(update, timezone=value)
        elif key == "lang":
            if value not in SUPPORTED_LOCALES:
                raise UserError(f"lang must be one of {', '.join(SUPPORTED_LOCALES)}.")
            update = replace(update, locale=value)
        elif key == "topics":
            topics = tuple(sorted({p.strip() for p in value.split(",") if p.strip()} - {"all"}))
            bad = [p for p in topics if p not in known_topics]
            if bad:
                names = ", ".join(sorted(known_topics))
                raise UserError(f"Unknown topic {bad[0]!r}. Topics: {names}.")
            update = replace(update, topics=topics)
        elif key == "difficulty":
            levels = {p.strip() for p in value.split(",") if p.strip()} - {"all"}
            if not levels <= {"1", "2", "3"}:
                raise UserError("difficulty must be a list of 1, 2 and 3, e.g. difficulty=1,2.")
            update = replace(update, difficulties=tuple(sorted(int(p) for p in levels)))
        elif key == "enabled":
            if value.lower() not in ("on", "off", "true", "false", "yes", "no"):
                raise UserError("enabled must be on or off.")
            update = replace(update, enabled=value.lower() in ("on", "true", "yes"))
        elif key == "leaderboard":
            day, _, hour = value.lower().partition(" ")
            hour = hour.strip()
            if day[:3] not in WEEKDAYS or _HOUR.fullmatch(hour) is None:
                raise UserError("leaderboard takes a weekday and an hour from 0 to 23 in digits "
                                "0-9: leaderboard=fri 16.")
            update = replace(
                update, leaderboard_weekday=WEEKDAYS.index(day[:3]), leaderboard_hour=int(hour)
            )
    return update


@functools.cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(available_timezones()))


def matching_zones(typed: str, limit: int = 25) -> list[str]:
    """Return IANA zone names for what an admin typed: a part starting with it, then inside."""
    needle = typed.strip().lower().replace(" ", "_")
    starts = [z for z in _zones() if any(p.lower().startswith(needle) for p in z.split("/"))]
    inside = [z for z in _zones() if needle in z.lower() and z not in starts]
    return (starts + inside)[:limit]


def describe(channel: ChannelSettings, locale: str) -> Message:
    """Return the channel's settings as a private message."""
    fields = (
        ("time", channel.post_time.strftime("%H:%M")),
        ("tz", channel.timezone),
        ("lang", channel.locale),
        ("topics", ", ".join(channel.topics) or "all"),
        ("difficulty", ", ".join(map(str, channel.difficulties)) or "all"),
        ("enabled", "on" if channel.enabled else "off"),
        ("leaderboard", f"{WEEKDAYS[channel.leaderboard_weekday]} {channel.leaderboard_hour}"),
    )
    return Message(title=t(locale, "settings.title"), fields=fields)


def _fill_leaderboard(changes: Mapping[str, str], channel: ChannelSettings) -> Mapping[str, str]:
    """Let a front end change only the day or only the hour: "keep" takes the current one."""
    value = changes.get("leaderboard")
    if value is None or "keep" not in value.split():
        return changes
    day, _, hour = value.partition(" ")
    day = WEEKDAYS[channel.leaderboard_weekday] if day == "keep" else day
    hour = str(channel.leaderboard_hour) if hour.strip() == "keep" else hour
    return {**changes, "leaderboard": f"{day} {hour}"}


class SetupService:
    """Let admins change a channel's schedule, language and content; everyone may look."""

    def __init__(
        self,
        store: QuizStore,
        known_topics: set[str],
        on_changed: Callable[[ChannelSettings], None] | None = None,
    ) -> None:
        self.store = store
        self.known_topics = known_topics
        self.on_changed = on_changed

    def apply(self, channel: ChannelSettings, actor: Actor, changes: Mapping[str, str]) -> Message:
        """Apply ``changes`` when the actor is an admin; show the settings either way."""
        locale = actor.locale or channel.locale
        if not changes:
            return describe(channel, locale)
        if not actor.is_admin:
            return Message(body=t(locale, "settings.denied"), tone=Tone.WARNING)
        changes = _fill_leaderboard(changes, channel)
        try:
            update = parse_changes(changes, self.known_topics)
        except UserError as exc:
            return Message(body=str(exc), tone=Tone.WARNING)
        updated = self.store.update_channel(channel.id, update)
        if self.on_changed is not None:
            self.on_changed(updated)
        saved = describe(updated, updated.locale)
        return Message(title=saved.title, body=t(updated.locale, "settings.saved"),
                       fields=saved.fields, tone=Tone.SUCCESS)
