"""Slack views: the answer modal, the admin's settings modal, and the home tab.

A modal carries what its submission needs in its ``callback_id`` (what it answers and how:
``tq:submit:<round>:code``, the same ids the Discord modals use) and its ``private_metadata``
(the channel it was opened from), because a submission may reach any replica, after a restart,
and Slack sends no channel with it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.adapters.slack.blocks import MAX_VIEW_BLOCKS, Block, mrkdwn, plain, render, section, within
from bot.core.channels.setup import WEEKDAYS
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Form, Message, submit_id
from bot.core.kernel.models import DEFAULT_KINDS, ROUND_KINDS, ChannelSettings
from content.topics import topic_label

ANSWER_BLOCK = "answer"
CHOICE_BLOCK = "choice"
SETTINGS_CALLBACK = "tq:settings"
SETTINGS_CHANNEL_ACTION = "tq-settings-channel"
TZ_ACTION = "tq-settings-tz"
TOPICS_ACTION = "tq-settings-topics"
PACKS_BLOCK = "packs"
PACKS_CHARS = 500  # the core's settings parser takes at most 20 pack ids
# Slack's limits: a modal title and its buttons take 24 characters, a text input 3000.
TITLE_CHARS = 24
INPUT_CHARS = 3000
METADATA_CHARS = 3000
OPTION_CHARS = 75
MAX_OPTIONS = 100
VALUE_CHARS = 200  # no setting's value is longer; a longer one is cut before it is echoed
LANGUAGES = (("en", "English"), ("zh-CN", "简体中文"))


@dataclass(frozen=True)
class Origin:
    """Where a modal was opened: the channel to answer in, and a response URL if there was one."""

    channel: str = ""
    channel_name: str = ""
    response_url: str = ""

    def dump(self) -> str:
        """Return the origin as a modal's private_metadata."""
        data = {"c": self.channel, "n": self.channel_name[:80], "r": self.response_url}
        text = json.dumps(data, separators=(",", ":"))
        return text if len(text) <= METADATA_CHARS else json.dumps({"c": self.channel})

    @classmethod
    def load(cls, metadata: str) -> Origin:
        """Read a modal's private_metadata back (an unreadable one is an empty origin)."""
        try:
            data = json.loads(metadata or "{}")
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            return cls()
        if not isinstance(data, dict):
            return cls()
        return cls(str(data.get("c") or ""), str(data.get("n") or ""), str(data.get("r") or ""))


def answer_modal(form: Form, origin: Origin, locale: str) -> dict[str, Any]:
    """Return the modal for a form: a line for text, a tall box prefilled for code.

    A form with choices (a report's reason) gets a static_select above its text field.
    """
    element: dict[str, Any] = {
        "type": "plain_text_input", "action_id": ANSWER_BLOCK, "multiline": form.code,
        "max_length": min(form.max_chars, INPUT_CHARS),
    }
    if form.prefill:
        element["initial_value"] = form.prefill[:INPUT_CHARS]
    blocks: list[Block] = []
    if form.choices:
        blocks.append(_input(CHOICE_BLOCK, form.choice_label, {
            "type": "static_select",
            "options": [option(label, value) for value, label in form.choices[:MAX_OPTIONS]],
        }))
    blocks.append({"type": "input", "block_id": ANSWER_BLOCK, "element": element,
                   "label": plain(form.field_label, 2000), "optional": form.optional})
    return {
        "type": "modal", "callback_id": submit_id(form), "private_metadata": origin.dump(),
        "title": plain(form.title, TITLE_CHARS), "submit": plain(t(locale, "ui.submit"), 24),
        "close": plain(t(locale, "ui.cancel"), 24), "blocks": blocks,
    }


def submitted_text(view: dict[str, Any]) -> str:
    """Return what the member typed into the answer modal."""
    value = _value(view, ANSWER_BLOCK).get("value")
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    # A submitted value is a string in Slack's payloads; anything else is nothing.
    return value[:VALUE_CHARS] if isinstance(value, str) else ""


def submitted_choice(view: dict[str, Any]) -> str:
    """Return the value picked in the modal's list (a report's reason), or ""."""
    picked = _value(view, CHOICE_BLOCK).get("selected_option") or {}
    return str(picked.get("value") or "")[:64] if isinstance(picked, dict) else ""


def _value(view: dict[str, Any], block_id: str) -> dict[str, Any]:
    values = _dict(_dict(_dict(_dict(view).get("state")).get("values")).get(block_id))
    return _dict(next(iter(values.values()), {}))


def option(text: str, value: str) -> dict[str, Any]:
    """Return a select option."""
    return {"text": plain(text, OPTION_CHARS), "value": value[:150]}


def _input(block_id: str, label: str, element: dict[str, Any], *,
           optional: bool = False, dispatch: bool = False) -> Block:
    block: Block = {"type": "input", "block_id": block_id, "label": plain(label, 2000),
                    "element": {**element, "action_id": element.get("action_id", block_id)},
                    "optional": optional}
    if dispatch:
        block["dispatch_action"] = True
    return block


def _static(block_id: str, label: str, choices: Sequence[tuple[str, str]], current: str) -> Block:
    options = [option(text, value) for value, text in choices[:MAX_OPTIONS]]
    chosen = next((o for o in options if o["value"] == current), options[0])
    return _input(block_id, label, {"type": "static_select", "options": options,
                                    "initial_option": chosen})


def settings_modal(channel_id: str, current: ChannelSettings | None, origin: Origin,
                   locale: str) -> dict[str, Any]:
    """Return the admin's settings modal for a channel, showing its current settings."""
    time = current.post_time.strftime("%H:%M") if current else "09:00"
    zone = current.timezone if current else "UTC"
    lang = current.locale if current else locale
    topics = current.topics if current else ()
    levels = current.difficulties if current else ()
    day = WEEKDAYS[current.leaderboard_weekday if current else 4]
    hour = current.leaderboard_hour if current else 16
    enabled = current.enabled if current else True
    live_anyone = current.live_anyone if current else False
    live_on_board = current.live_on_board if current else False
    kinds = current.kinds if current else DEFAULT_KINDS
    kind_options = [option(t(locale, f"ui.settings.kind.{k}"), k) for k in ROUND_KINDS]
    packs = ",".join(current.packs) if current else "bank"
    difficulty: dict[str, Any] = {"type": "checkboxes",
                                  "options": [option(str(n), str(n)) for n in (1, 2, 3)]}
    if levels:
        difficulty["initial_options"] = [option(str(n), str(n)) for n in levels]
    topic_select: dict[str, Any] = {"type": "multi_external_select", "action_id": TOPICS_ACTION,
                                    "min_query_length": 0}
    if topics:
        # Named in the channel's language; the value is the id the search options carry too.
        topic_select["initial_options"] = [option(topic_label(tp, lang), tp)
                                           for tp in topics[:MAX_OPTIONS]]
    on_off = [option(t(locale, "ui.settings.on"), "on"),
              option(t(locale, "ui.settings.off"), "off")]
    blocks = [
        _input("channel", t(locale, "ui.settings.channel"),
               {"type": "conversations_select", "action_id": SETTINGS_CHANNEL_ACTION,
                "initial_conversation": channel_id,
                "filter": {"include": ["public", "private"], "exclude_bot_users": True}},
               dispatch=True),
        _input("time", t(locale, "ui.settings.time"),
               {"type": "timepicker", "initial_time": time}),
        _input("tz", t(locale, "ui.settings.tz"),
               {"type": "external_select", "action_id": TZ_ACTION, "min_query_length": 1,
                "initial_option": option(zone, zone)}),
        _static("lang", t(locale, "ui.settings.lang"), LANGUAGES, lang),
        _input("topics", t(locale, "ui.settings.topics"), topic_select, optional=True),
        _input("difficulty", t(locale, "ui.settings.difficulty"), difficulty, optional=True),
        _static("day", t(locale, "ui.settings.day"),
                list(zip(WEEKDAYS, t(locale, "settings.weekdays").split(), strict=True)), day),
        _static("hour", t(locale, "ui.settings.hour"),
                [(str(h), f"{h:02d}:00") for h in range(24)], str(hour)),
        _input("enabled", t(locale, "ui.settings.enabled"),
               {"type": "radio_buttons", "options": on_off,
                "initial_option": on_off[0] if enabled else on_off[1]}),
        _static("live_hosts", t(locale, "ui.settings.live_hosts"),
                [("admins", t(locale, "ui.settings.live_admins")),
                 ("anyone", t(locale, "ui.settings.live_anyone"))],
                "anyone" if live_anyone else "admins"),
        _input("live_on_board", t(locale, "ui.settings.live_on_board"),
               {"type": "radio_buttons", "options": on_off,
                "initial_option": on_off[0] if live_on_board else on_off[1]}),
        # Ticking none leaves the kinds as they are (the core refuses a channel without one).
        _input("kinds", t(locale, "ui.settings.kinds"),
               {"type": "checkboxes", "options": kind_options,
                "initial_options": [o for o in kind_options if o["value"] in kinds]},
               optional=True),
        # Free text, checked by the core's one settings parser (ids this workspace sees).
        _input(PACKS_BLOCK, t(locale, "ui.settings.packs"),
               {"type": "plain_text_input", "initial_value": packs[:PACKS_CHARS],
                "max_length": PACKS_CHARS,
                "placeholder": plain(t(locale, "ui.settings.packs_hint"), 150)},
               optional=True),
        {"type": "context", "elements": [{"type": "mrkdwn",
                                          "text": mrkdwn(t(locale, "ui.settings.invite"))}]},
    ]
    return {"type": "modal", "callback_id": SETTINGS_CALLBACK,
            "private_metadata": origin.dump(), "title": plain(t(locale, "ui.settings.title"), 24),
            "submit": plain(t(locale, "ui.save"), 24), "close": plain(t(locale, "ui.cancel"), 24),
            "blocks": blocks}


def settings_changes(view: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """Return the channel a settings modal was for and its values as the core's changes."""
    channel = _text(_value(view, "channel").get("selected_conversation"))

    def selected(block_id: str) -> str:
        return _text(_dict(_value(view, block_id).get("selected_option")).get("value"))

    def many(block_id: str) -> str:
        options = _value(view, block_id).get("selected_options")
        listed = options[:MAX_OPTIONS] if isinstance(options, list) else []
        chosen = [_text(_dict(o).get("value")) for o in listed]
        return ",".join(c for c in chosen if c) or "all"

    changes = {
        "packs": _packs(view),
        "time": _text(_value(view, "time").get("selected_time")),
        "tz": selected("tz"), "lang": selected("lang"), "topics": many("topics"),
        "difficulty": many("difficulty"), "enabled": selected("enabled"),
        "leaderboard": f"{selected('day')} {selected('hour')}",
        "live_hosts": selected("live_hosts"), "live_on_board": selected("live_on_board"),
        "kinds": "" if many("kinds") == "all" else many("kinds"),  # none ticked: unchanged
    }
    return channel, {key: value for key, value in changes.items() if value.strip()}


def _packs(view: dict[str, Any]) -> str:
    """Return the packs typed in the modal; emptied, the shipped bank; no such field, nothing."""
    values = _dict(_dict(_dict(view).get("state")).get("values"))
    if PACKS_BLOCK not in values:
        return ""  # a modal opened before the field existed: leave the choice as it is
    return _text(_value(view, PACKS_BLOCK).get("value"))[:PACKS_CHARS].strip() or "bank"


def home_view(sections: Sequence[tuple[str, Message]], locale: str,
              reviews: str = "") -> dict[str, Any]:
    """Return the home tab: due reviews, the member's stats in each quiz channel, the commands."""
    blocks: list[Block] = [{"type": "header", "text": plain(t(locale, "home.title"), 150)},
                           section(mrkdwn(t(locale, "home.intro"))), {"type": "divider"}]
    if reviews:
        # Our own sentence (with *bold*), topic names from the bank: kept as mrkdwn.
        blocks += [section(reviews[:3000]), {"type": "divider"}]
    if not sections:
        blocks.append(section(mrkdwn(t(locale, "home.none"))))
    for channel_id, stats in sections:
        # Our own reference to a channel id Slack gave us: it renders as the channel's name.
        blocks.append(section(f"<#{channel_id}>"))
        blocks.extend(render(stats, locale))
        blocks.append({"type": "divider"})
    # The commands the registry lists on the home tab, each with its usage and help sentence.
    helps = [(f"/{c.name('slack')} {c.usage['home']}".strip(), c.help_key)
             for c in REGISTRY.on("slack") if "home" in c.usage]
    lines = [f"`{command}`  {mrkdwn(t(locale, key))}" for command, key in helps]
    blocks.append(section(f"*{t(locale, 'home.commands')}*\n" + "\n".join(lines)))
    # Past Slack's 100 blocks: a "…" mark, and the commands still last.
    return {"type": "home", "blocks": within(blocks, MAX_VIEW_BLOCKS, keep_last=1)}
