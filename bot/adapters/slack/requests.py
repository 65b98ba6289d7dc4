"""Read who did what where out of Slack's payloads: commands, clicks, submissions, events."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from bot.adapters.slack.views import Origin
from bot.core.kernel.messages import round_id_of

_USER_REF = re.compile(r"^<@([UW][A-Z0-9]{1,31})(?:\|[^>]*)?>$")
# Slack's ids are short upper-case alphanumerics (T…, U…, C…, E…); what a request claims is
# held to that before it reaches the core, the database or a log line.
_SLACK_ID = re.compile(r"[A-Za-z0-9]{1,32}")
_URL = re.compile(r"https?://[^\s\x00-\x1f\x7f]{1,2000}")
_VIEW_HASH = re.compile(r"[A-Za-z0-9._-]{1,64}")
NAME_CHARS = 80
TRIGGER_CHARS = 200


class BadRequest(ValueError):
    """A payload whose ids are not Slack's: dropped at the boundary, never passed on."""


@dataclass(frozen=True)
class Request:
    """The ids of one request, for the core call, the reply and the logs."""

    team: str
    user: str
    user_name: str = ""
    channel: str = ""
    channel_name: str = ""
    response_url: str = ""
    trigger_id: str = ""
    round_id: int | None = None  # the daily round a click or a submission is about


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def first_action(body: dict[str, Any]) -> dict[str, Any]:
    """Return the first of a click's actions (an empty one when there is none)."""
    actions = body.get("actions")
    return _dict(actions[0]) if isinstance(actions, list) and actions else {}


def action_id_of(body: dict[str, Any]) -> str:
    """Return the id of the button a click was on ("" when it has none)."""
    return _str(first_action(body).get("action_id"))


def picked_channel(body: dict[str, Any]) -> str:
    """Return the conversation an admin picked in the settings modal, or raise BadRequest."""
    picked = _str(first_action(body).get("selected_conversation"))
    if _SLACK_ID.fullmatch(picked) is None:
        raise BadRequest("bad selected conversation")
    return picked


def is_slack_id(value: str) -> bool:
    """Say whether ``value`` looks like one of Slack's ids (T…, U…, C…)."""
    return _SLACK_ID.fullmatch(value) is not None


def view_ref(body: dict[str, Any]) -> tuple[str, str]:
    """Return the (id, hash) of the modal a request came from, or raise BadRequest."""
    view = _dict(body.get("view"))
    view_id, view_hash = _str(view.get("id")), _str(view.get("hash"))
    if _SLACK_ID.fullmatch(view_id) is None or _VIEW_HASH.fullmatch(view_hash) is None:
        raise BadRequest("bad view id or hash")
    return view_id, view_hash


def round_of(action_or_callback_id: str) -> int | None:
    """Return the daily round an action or callback id names, if any (for the logs)."""
    parts = action_or_callback_id.split(":")
    if len(parts) != 4 or parts[1] not in ("answer", "form", "submit"):
        return None
    return round_id_of(parts[2])


def _checked(request: Request) -> Request:
    """Return ``request`` when its ids are Slack's, or raise BadRequest."""
    for name in ("team", "user"):
        if _SLACK_ID.fullmatch(getattr(request, name)) is None:
            raise BadRequest(f"bad {name} id")
    if request.channel and _SLACK_ID.fullmatch(request.channel) is None:
        raise BadRequest("bad channel id")
    if request.response_url and _URL.fullmatch(request.response_url) is None:
        raise BadRequest("bad response_url")
    if len(request.trigger_id) > TRIGGER_CHARS or not request.trigger_id.isprintable():
        raise BadRequest("bad trigger_id")
    return replace(request, user_name=_name(request.user_name),
                   channel_name=_name(request.channel_name))


def _name(text: str) -> str:
    # A display name is data for the core and the boards: printable and short, never an id.
    return "".join(ch for ch in text if ch.isprintable())[:NAME_CHARS]


def from_command(body: dict[str, Any]) -> Request:
    """Read a slash command (form fields, as Slack posts them)."""
    return _checked(Request(
        team=_str(body.get("team_id")), user=_str(body.get("user_id")),
        user_name=_str(body.get("user_name")), channel=_str(body.get("channel_id")),
        channel_name=_str(body.get("channel_name")),
        response_url=_str(body.get("response_url")), trigger_id=_str(body.get("trigger_id"))))


def _user(body: dict[str, Any]) -> tuple[str, str, str]:
    user = _dict(body.get("user"))
    team = _str(_dict(body.get("team")).get("id")) or _str(user.get("team_id"))
    return team, _str(user.get("id")), _str(user.get("name")) or _str(user.get("username"))


def from_action(body: dict[str, Any]) -> Request:
    """Read a button click (on a post, an ephemeral reply or a modal)."""
    team, user, name = _user(body)
    channel = _dict(body.get("channel"))
    container = _dict(body.get("container"))
    action = first_action(body)
    return _checked(Request(
        team=team, user=user, user_name=name,
        channel=_str(channel.get("id")) or _str(container.get("channel_id")),
        channel_name=_str(channel.get("name")), response_url=_str(body.get("response_url")),
        trigger_id=_str(body.get("trigger_id")), round_id=round_of(_str(action.get("action_id")))))


def from_view(body: dict[str, Any]) -> tuple[Request, Origin]:
    """Read a modal submission; the channel comes from the modal's own metadata."""
    team, user, name = _user(body)
    view = _dict(body.get("view"))
    origin = Origin.load(_str(view.get("private_metadata")))
    request = _checked(Request(
        team=team, user=user, user_name=name, channel=origin.channel,
        channel_name=origin.channel_name, response_url=origin.response_url,
        trigger_id=_str(body.get("trigger_id")), round_id=round_of(_str(view.get("callback_id")))))
    return request, origin


def from_event(body: dict[str, Any]) -> Request:
    """Read an Events API event (the home tab being opened)."""
    event = _dict(body.get("event"))
    return _checked(Request(team=_str(body.get("team_id")), user=_str(event.get("user")),
                            channel=_str(event.get("channel"))))


def mentioned_user(text: str) -> str | None:
    """Return the user id of an escaped mention (``<@U123|alice>``), or None."""
    match = _USER_REF.match(text.strip())
    return match.group(1) if match else None
