"""Admin setup of a channel: parse `key=value` changes, check them, apply them, show them."""

from __future__ import annotations

import datetime as dt
import functools
import re
import shlex
import unicodedata
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from zoneinfo import ZoneInfo, available_timezones

from bot.core.audit import AuditService, differences
from bot.core.channels.store import ChannelStore
from bot.core.kernel.errors import UserError
from bot.core.kernel.i18n import t, typed_list
from bot.core.kernel.matching import fold, nearest
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import (
    DEFAULT_KINDS,
    ROUND_KINDS,
    SUPPORTED_LOCALES,
    Actor,
    ChannelSettings,
    ChannelUpdate,
)
from bot.core.packs import DEFAULT_PACKS, SHIPPED, channel_scope, library_of
from content.loader import Bank
from content.topics import current_topics, topic_from_name

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
KEYS = ("time", "tz", "lang", "topics", "difficulty", "enabled", "leaderboard", "packs",
        "live_hosts", "live_on_board", "kinds")
# Other names an admin types for a setting (the settings block shows the short ones).
KEY_ALIASES = {"language": "lang", "locale": "lang", "timezone": "tz", "zone": "tz",
               "topic": "topics", "difficulties": "difficulty", "pack": "packs",
               "board": "leaderboard", "kind": "kinds"}
# Languages by the names people type for them, folded to lower case.
_LANGUAGE_NAMES = {"en": "en", "english": "en", "英文": "en", "英语": "en",
                   "zh-cn": "zh-CN", "zh_cn": "zh-CN", "zh": "zh-CN", "chinese": "zh-CN",
                   "中文": "zh-CN", "简体中文": "zh-CN", "汉语": "zh-CN"}
# 周五 16, 星期五 16点, 礼拜天 9 (a Chinese keyboard's weekday, optionally the hour's 点/时).
_CHINESE_SLOT = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])\s*([0-9]{1,2})\s*[点時时]?")
_CHINESE_WEEKDAYS = "一二三四五六日"
LIVE_HOSTS = ("admins", "anyone")  # who may host a live session in the channel
_ON_OFF = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}
MAX_PACKS = 20  # a channel's chosen packs: more is a paste gone wrong
_PACK_ID = re.compile(r"[a-z0-9][a-z0-9-]{1,23}")  # content/packs.py's PACK_ID, or "bank"
# ASCII digits only: str.isdigit() and \d also take "²", Arabic-Indic and full-width digits.
_TIME = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])")
_HOUR = re.compile(r"[01]?[0-9]|2[0-3]")
MAX_SETUP_CHARS = 1000  # a /setup line: every setting at its longest fits; more is a paste
# key=value, or key:value as the chat platforms' option hints write it (packs:bank,x).
_SETTING = re.compile(r"([A-Za-z_]+)[=:](.*)", re.DOTALL)
# What a Chinese keyboard types for the quotes and the list comma of a setup line.
_CHINESE_MARKS = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "、": ","})


def narrow(text: str) -> str:
    """Return ``text`` with full-width forms as ASCII (＝ ／ ： ０-９, the ideographic space).

    Only full-width characters are folded (NFKC, one by one): "²" or Arabic-Indic digits stay
    what they are, and are refused where a setting takes the digits 0-9.
    """
    return "".join(unicodedata.normalize("NFKC", ch)
                   if unicodedata.east_asian_width(ch) == "F" else ch for ch in text)


def parse_setup_text(text: str) -> dict[str, str]:
    """Return the changes typed after /setup, or raise SettingError saying what is wrong.

    ``key=value`` (or ``key:value``) pairs; a value runs on to the next ``key=``, so
    ``leaderboard=fri 16 time=09:00`` sets two things, as the docs write them. Quotes still
    group a value.
    """
    text = narrow(text).translate(_CHINESE_MARKS).strip()
    if len(text) > MAX_SETUP_CHARS:
        raise SettingError("settings.error.line_long", limit=MAX_SETUP_CHARS, given=len(text))
    try:
        words = shlex.split(text)
    except ValueError:
        raise SettingError("settings.error.quotes") from None
    changes: dict[str, str] = {}
    key = ""
    for word in words:
        setting = _SETTING.fullmatch(word)
        if setting is not None:
            key = setting.group(1).lower()
            changes[key] = setting.group(2)
        elif not key:
            raise SettingError("settings.error.format", word=repr(word[:40]))
        else:
            changes[key] = f"{changes[key]} {word}".strip()
    return changes


class SettingError(UserError):
    """Raise for a setting an admin got wrong; shown in the channel's language (English here)."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(t("en", key, **values))
        self.key = key
        self.values = values

    def text(self, locale: str) -> str:
        """Return the message in ``locale``."""
        return t(locale, self.key, **self.values)


def parse_packs(value: str, known_packs: Collection[str]) -> tuple[str, ...]:
    """Return a channel's pack choice from ``bank,team-conv``; raise SettingError naming a bad id.

    ``bank`` is the shipped bank; empty (or ``bank`` alone) resets to the shipped bank only.
    Every other id must be a pack the workspace sees (``known_packs``).
    """
    if len(value) > 25 * MAX_PACKS:
        raise SettingError("settings.error.packs_long", limit=MAX_PACKS, given=len(value))
    if not value.isascii():
        raise SettingError("settings.error.packs_ascii")
    ids = list(dict.fromkeys(p.strip().lower() for p in value.split(",") if p.strip()))
    if len(ids) > MAX_PACKS:
        raise SettingError("settings.error.packs_many", limit=MAX_PACKS)
    for pack_id in ids:
        if pack_id != SHIPPED and (not _PACK_ID.fullmatch(pack_id)
                                   or pack_id not in known_packs):
            names = ", ".join([SHIPPED, *sorted(known_packs)])
            raise SettingError("settings.error.pack_unknown", pack=repr(pack_id[:30]),
                               names=names)
    if not ids:
        return DEFAULT_PACKS
    return tuple(sorted(ids, key=lambda p: (p != SHIPPED, p)))


def parse_kinds(value: str) -> tuple[str, ...]:
    """Return a channel's round kinds from ``choice,code,speed``; raise SettingError on a bad one.

    ``all`` is every kind (speed challenges too); empty resets to what a channel posts by
    default (choice, text and code). Kept in ROUND_KINDS order.
    """
    typed = {p.strip().lower() for p in re.split("[,，、 ]", value) if p.strip()}
    if "all" in typed:
        return ROUND_KINDS
    for kind in sorted(typed):
        if kind not in ROUND_KINDS:
            raise SettingError("settings.error.kinds", kind=repr(kind[:20]),
                               kinds=", ".join(ROUND_KINDS))
    return tuple(k for k in ROUND_KINDS if k in typed) or DEFAULT_KINDS


def parse_topics(value: str, known_topics: Collection[str]) -> tuple[str, ...]:
    """Return a channel's topics from ``autograd,tensors``; raise SettingError with the nearest.

    A topic merged into another (``masks``) is read as the one it became (``masking``), a
    Chinese name (``自动求导``) as its id, and a Chinese list separator as a comma. A name the
    bank lacks is refused with up to three near ones, never the whole list.
    """
    typed = {topic_from_name(p.strip()).lower()
             for p in re.split("[,，、]", value) if p.strip()} - {"all"}
    topics = current_topics(typed)
    bad = [p for p in topics if p not in known_topics]
    if bad:
        shown = repr(bad[0][:40])
        near = nearest(fold(bad[0]), {fold(tp): tp for tp in sorted(known_topics)})
        if near:
            raise SettingError("settings.error.topic", topic=shown, suggestions=typed_list(near))
        some = typed_list(sorted(known_topics)[:8])
        raise SettingError("settings.error.topic_none", topic=shown, count=len(known_topics),
                           names=some)
    return topics


def parse_changes(changes: Mapping[str, str], known_topics: set[str],
                  known_packs: Collection[str] = ()) -> ChannelUpdate:
    """Turn admin input into a ChannelUpdate, or raise SettingError saying exactly what is wrong."""
    changes = {KEY_ALIASES.get(key, key): value for key, value in changes.items()}
    unknown = sorted(set(changes) - set(KEYS))
    if unknown:
        raise SettingError("settings.error.unknown", setting=repr(unknown[0]), keys=", ".join(KEYS))
    update = ChannelUpdate()
    for key, raw in changes.items():
        value = narrow(raw).strip()
        if key == "time":
            match = _TIME.fullmatch(value)
            if not match:
                raise SettingError("settings.error.time")
            update = replace(update, post_time=dt.time(int(match.group(1)), int(match.group(2))))
        elif key == "tz":
            if value not in available_timezones():
                raise SettingError("settings.error.tz", zone=repr(value))
            ZoneInfo(value)
            update = replace(update, timezone=value)
        elif key == "lang":
            locale = _LANGUAGE_NAMES.get(value.lower())
            if locale is None:
                raise SettingError("settings.error.lang", locales=", ".join(SUPPORTED_LOCALES))
            update = replace(update, locale=locale)
        elif key == "topics":
            update = replace(update, topics=parse_topics(value, known_topics))
        elif key == "difficulty":
            levels = {p.strip() for p in value.split(",") if p.strip()} - {"all"}
            if not levels <= {"1", "2", "3"}:
                raise SettingError("settings.error.difficulty")
            update = replace(update, difficulties=tuple(sorted(int(p) for p in levels)))
        elif key == "enabled":
            if value.lower() not in ("on", "off", "true", "false", "yes", "no"):
                raise SettingError("settings.error.enabled")
            update = replace(update, enabled=value.lower() in ("on", "true", "yes"))
        elif key == "leaderboard":
            weekday, hour = _leaderboard_slot(value)
            update = replace(update, leaderboard_weekday=weekday, leaderboard_hour=hour)
        elif key == "packs":
            update = replace(update, packs=parse_packs(value, known_packs))
        elif key == "live_hosts":
            if value.lower() not in LIVE_HOSTS:
                raise SettingError("settings.error.live_hosts")
            update = replace(update, live_anyone=value.lower() == "anyone")
        elif key == "live_on_board":
            if value.lower() not in _ON_OFF:
                raise SettingError("settings.error.live_on_board")
            update = replace(update, live_on_board=_ON_OFF[value.lower()])
        elif key == "kinds":
            update = replace(update, kinds=parse_kinds(value))
    return update


def _leaderboard_slot(value: str) -> tuple[int, int]:
    """Return (weekday, hour) of ``fri 16``, ``Friday 16`` or ``周五 16``."""
    chinese = _CHINESE_SLOT.fullmatch(value)
    if chinese is not None:
        day_index = _CHINESE_WEEKDAYS.index(chinese.group(1).replace("天", "日"))
        hour = chinese.group(2)
    else:
        day, _, hour = value.lower().partition(" ")
        hour = hour.strip()
        day_index = WEEKDAYS.index(day[:3]) if day[:3] in WEEKDAYS else -1
    if day_index < 0 or _HOUR.fullmatch(hour) is None:
        raise SettingError("settings.error.leaderboard")
    return day_index, int(hour)


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
    """Return the channel's settings as a private message, each named as ``/setup`` takes it."""
    every = t(locale, "settings.value.all")

    def typed(value: str) -> str:  # what an admin types as is (a zone, a pack id): code
        return t(locale, "settings.value.code", value=value)

    day = t(locale, "settings.weekdays").split()[channel.leaderboard_weekday]
    values = {
        "time": channel.post_time.strftime("%H:%M"),
        "tz": typed(channel.timezone),
        "lang": typed(channel.locale),
        "topics": typed_list(channel.topics) or every,
        "difficulty": ", ".join(map(str, channel.difficulties)) or every,
        "enabled": t(locale, "settings.value.on" if channel.enabled else "settings.value.off"),
        "leaderboard": t(locale, "settings.value.leaderboard", day=day,
                         hour=channel.leaderboard_hour),
        "packs": typed(", ".join(channel.packs) or SHIPPED),
        "live_hosts": t(locale, "settings.value.live_anyone" if channel.live_anyone
                        else "settings.value.live_admins"),
        "live_on_board": t(locale, "settings.value.on" if channel.live_on_board
                           else "settings.value.off"),
        "kinds": typed(", ".join(channel.kinds)),
    }
    fields = tuple((t(locale, f"settings.field.{key}"), values[key]) for key in KEYS)
    return Message(title=t(locale, "settings.title"), fields=fields)


def typed_values(channel: ChannelSettings) -> dict[str, str]:
    """Return each setting as an admin types it (``time``: ``09:00``), for forms and the log."""
    return {
        "time": channel.post_time.strftime("%H:%M"),
        "tz": channel.timezone,
        "lang": channel.locale,
        "topics": ",".join(channel.topics),
        "difficulty": ",".join(map(str, channel.difficulties)),
        "enabled": "on" if channel.enabled else "off",
        "leaderboard": f"{WEEKDAYS[channel.leaderboard_weekday]} {channel.leaderboard_hour}",
        "packs": ",".join(channel.packs) or SHIPPED,
        "live_hosts": "anyone" if channel.live_anyone else "admins",
        "live_on_board": "on" if channel.live_on_board else "off",
        "kinds": ",".join(channel.kinds),
    }


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
    """Let admins change a channel's schedule, language and content; everyone may look.

    ``known`` is the library (each channel's workspace sees its own packs' topics and ids),
    or a fixed set of topics (no packs).
    """

    def __init__(
        self,
        store: ChannelStore,
        known: Bank | set[str],
        on_changed: Callable[[ChannelSettings], None] | None = None,
        leaves_nothing: Callable[[ChannelSettings], bool] | None = None,
        audit: AuditService | None = None,
    ) -> None:
        self.store = store
        self.audit = audit
        self.library = library_of(known) if isinstance(known, Bank) else None
        self._topics = set(known) if isinstance(known, set) else set()
        self.on_changed = on_changed
        self._leaves_nothing = leaves_nothing

    @property
    def known_topics(self) -> set[str]:
        """Return the topics of the shipped bank and the packs shared with every workspace."""
        return self._topics_for(None)

    def _topics_for(self, scope: str | None) -> set[str]:
        if self.library is None:
            return self._topics
        return set(self.library.view(scope).topics)

    def _packs_for(self, scope: str | None) -> list[str]:
        if self.library is None:
            return []
        return [p.pack_id for p in self.library.view(scope).packs]

    def _describe(self, channel: ChannelSettings, locale: str) -> Message:
        shown = describe(channel, locale)
        if self.library is not None:
            seen = set(self._packs_for(channel_scope(channel)))
            gone = [p for p in channel.packs if p != SHIPPED and p not in seen]
            if gone:
                shown = replace(shown, fields=(*shown.fields, (
                    t(locale, "settings.packs_gone_label"), ", ".join(gone))))
        if self._leaves_nothing is not None and self._leaves_nothing(channel):
            note = t(locale, "settings.packs_fallback")
            shown = replace(shown, body=f"{shown.body}\n{note}".strip())
        return shown

    def stamp(self) -> int:
        """Return the settings stamp (a scheduler reschedules when it moved on)."""
        return self.store.settings_stamp()

    def apply(self, channel: ChannelSettings, actor: Actor, changes: Mapping[str, str]) -> Message:
        """Apply ``changes`` when the actor is an admin; show the settings either way."""
        locale = actor.locale or channel.locale
        if not changes:
            return self._describe(channel, locale)
        if not actor.is_admin:
            return Message(body=t(locale, "settings.denied"), tone=Tone.WARNING)
        changes = _fill_leaderboard(changes, channel)
        scope = channel_scope(channel)
        try:
            update = parse_changes(changes, self._topics_for(scope), self._packs_for(scope))
        except SettingError as exc:
            return Message(body=exc.text(locale), tone=Tone.WARNING)
        updated = self.store.update_channel(channel.id, update)
        if self.audit is not None:
            before, after = differences(typed_values(channel), typed_values(updated))
            self.audit.record(platform=channel.platform, workspace=channel.workspace_external_id,
                              actor=actor.member.external_id,
                              actor_name=actor.member.display_name, action="settings",
                              target=channel.name or channel.external_id,
                              before=before, after=after)
        if self.on_changed is not None:
            self.on_changed(updated)
        saved = self._describe(updated, updated.locale)
        body = "\n".join(p for p in (t(updated.locale, "settings.saved"), saved.body) if p)
        return Message(title=saved.title, body=body, fields=saved.fields, tone=Tone.SUCCESS)
