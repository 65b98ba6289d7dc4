"""Requests exactly as Slack sends them to an app, over HTTP (signed) or over Socket Mode.

Slash commands are form-encoded fields; clicks, modal submissions and menu searches are a
form-encoded ``payload`` of JSON; events are JSON. Over HTTP each is signed with the signing
secret (``v0=`` HMAC-SHA256 of ``v0:<timestamp>:<body>``) as Slack does; over Socket Mode the
same payload travels in an envelope on the fake's websocket. Each request gets a fresh
trigger id and response URL from the fake, so what the app does with them can be checked.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import aiohttp
from slack_sdk.signature import SignatureVerifier

from tests.fake_slack import (
    APP_ID,
    BOT_ID,
    CHANNELS,
    GENERAL,
    SIGNING_SECRET,
    TEAM,
    FakeSlack,
    Shown,
    user,
)

_event_ids = itertools.count(1)


@dataclass
class Delivery:
    """One request sent to the app, and how the app acknowledged it."""

    kind: str
    who: str
    user_id: str
    mark: int  # how much the fake had shown when this was sent
    trigger_id: str = ""
    response_url: str = ""
    status: int = 0
    body: Any = None
    ack_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)


class Sender:
    """Send requests to the app as Slack would, over ``transport`` ("http" or "socket")."""

    def __init__(self, fake: FakeSlack, app_url: str = "", *, transport: str = "http",
                 signing_secret: str = SIGNING_SECRET) -> None:
        self.fake = fake
        self.app_url = app_url
        self.transport = transport
        self.verifier = SignatureVerifier(signing_secret)
        self.session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()

    # ------------------------------------------------------------ transport

    def sign(self, body: str, timestamp: int | None = None) -> dict[str, str]:
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        signature = self.verifier.generate_signature(timestamp=stamp, body=body) or ""
        return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature}

    async def post(self, body: str, content_type: str, *, headers: dict[str, str] | None = None,
                   signed: bool = True, timestamp: int | None = None) -> tuple[int, Any, float]:
        """POST a raw body to /slack/events; return (status, body, seconds to the answer)."""
        if self.session is None:
            self.session = aiohttp.ClientSession()
        sent = {"Content-Type": content_type, **(self.sign(body, timestamp) if signed else {}),
                **(headers or {})}
        started = time.monotonic()
        async with self.session.post(self.app_url, data=body.encode(), headers=sent) as answer:
            text = await answer.text()
            elapsed = time.monotonic() - started
            try:
                parsed: Any = json.loads(text) if text else ""
            except ValueError:
                parsed = text
            return answer.status, parsed, elapsed

    async def _send(self, delivery: Delivery, kind: str, payload: dict[str, Any], *,
                    retry: int | None = None, retry_reason: str = "http_timeout",
                    **http: Any) -> Delivery:
        delivery.payload = payload
        if self.transport == "socket":
            envelope = {"command": "slash_commands", "event": "events_api"}.get(kind,
                                                                                "interactive")
            started = time.monotonic()
            future = await self.fake.envelope(envelope, payload, retry_attempt=retry,
                                              retry_reason=retry_reason if retry else None)
            ack = await asyncio.wait_for(future, 10)
            delivery.status, delivery.body = 200, ack.get("payload")
            delivery.ack_s = time.monotonic() - started
            return delivery
        headers = dict(http.pop("headers", {}) or {})
        if retry is not None:
            headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": retry_reason})
        if kind == "command":
            body, content_type = urlencode(payload), "application/x-www-form-urlencoded"
        elif kind == "event":
            body, content_type = json.dumps(payload), "application/json"
        else:
            body = urlencode({"payload": json.dumps(payload)})
            content_type = "application/x-www-form-urlencoded"
        delivery.headers = headers
        delivery.status, delivery.body, delivery.ack_s = await self.post(
            body, content_type, headers=headers, **http)
        return delivery

    async def resend(self, delivery: Delivery, *, retry: int = 1,
                     reason: str = "http_timeout") -> Delivery:
        """Deliver the same request again, as Slack's retry ``retry`` for ``reason``."""
        again = Delivery(delivery.kind, delivery.who, delivery.user_id, len(self.fake.shown),
                         delivery.trigger_id, delivery.response_url)
        return await self._send(again, delivery.kind, delivery.payload, retry=retry,
                                retry_reason=reason)

    def _delivery(self, kind: str, who: str, channel: str) -> Delivery:
        return Delivery(kind, who, user(who)["id"], len(self.fake.shown),
                        self.fake.issue_trigger(), self.fake.issue_response_url(channel, who))

    # ------------------------------------------------------------ what members do

    def command_payload(self, name: str, text: str, who: str, channel: str, team: str,
                        delivery: Delivery) -> dict[str, Any]:
        person = user(who)
        return {"token": "legacy-verification-token", "team_id": team,
                "team_domain": "pytorch-study", "channel_id": channel,
                "channel_name": CHANNELS.get(channel, "directmessage"), "user_id": person["id"],
                "user_name": person["name"], "command": name, "text": text,
                "api_app_id": APP_ID, "is_enterprise_install": "false",
                "response_url": delivery.response_url, "trigger_id": delivery.trigger_id}

    async def command(self, name: str, text: str = "", who: str = "alice", *,
                      channel: str = GENERAL, team: str = TEAM, **http: Any) -> Delivery:
        """Run a slash command as ``who`` in ``channel``."""
        delivery = self._delivery("command", who, channel)
        payload = self.command_payload(name, text, who, channel, team, delivery)
        return await self._send(delivery, "command", payload, **http)

    def _interaction(self, kind: str, who: str, team: str,
                     delivery: Delivery) -> dict[str, Any]:
        person = user(who)
        return {"type": kind, "team": {"id": team, "domain": "pytorch-study"},
                "user": {"id": person["id"], "username": person["name"], "name": person["name"],
                         "team_id": team},
                "api_app_id": APP_ID, "token": "legacy-verification-token",
                "trigger_id": delivery.trigger_id, "is_enterprise_install": False,
                "enterprise": None}

    async def click(self, message: Shown, action_id: str, who: str = "alice", *,
                    team: str = TEAM, **http: Any) -> Delivery:
        """Click a button on a message the member can see (a post or a private reply)."""
        assert action_id in message.actions, f"no button {action_id} on that message"
        channel = message.channel
        delivery = self._delivery("click", who, channel)
        payload = self._interaction("block_actions", who, team, delivery)
        ephemeral = message.kind in ("ephemeral", "response")
        block = next(b for b in message.blocks if b.get("type") == "actions")
        element = next(e for e in block["elements"] if e["action_id"] == action_id)
        payload.update({
            "container": {"type": "message", "message_ts": message.ts or "0.0",
                          "channel_id": channel, "is_ephemeral": ephemeral},
            "channel": {"id": channel, "name": CHANNELS.get(channel, "")},
            "response_url": delivery.response_url, "state": {"values": {}},
            "actions": [{"action_id": action_id, "block_id": block.get("block_id", "b"),
                         "text": element["text"], "value": element.get("value", ""),
                         "type": "button", "action_ts": f"{time.time():.6f}"}],
        })
        if not ephemeral:
            payload["message"] = {"type": "message", "ts": message.ts, "bot_id": BOT_ID,
                                  "text": message.text, "blocks": message.blocks}
        return await self._send(delivery, "click", payload, **http)

    def _view_payload(self, view: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
        return {**view, "state": {"values": values}}

    async def submit(self, view_id: str, values: dict[str, Any], who: str = "alice", *,
                     team: str = TEAM, **http: Any) -> Delivery:
        """Submit an open modal with ``values`` ({block_id: {action_id: state}})."""
        view = self.fake.views[view_id]
        delivery = self._delivery("submit", who, GENERAL)
        delivery.response_url = ""  # modal submissions carry none
        payload = self._interaction("view_submission", who, team, delivery)
        payload.update({"view": self._view_payload(view, values), "response_urls": []})
        return await self._send(delivery, "submit", payload, **http)

    async def answer(self, view_id: str, text: str, who: str = "alice", **http: Any) -> Delivery:
        """Type ``text`` into an answer modal and submit it."""
        view = self.fake.views[view_id]
        block = view["blocks"][0]
        limit = block["element"].get("max_length", 3000)
        assert len(text) <= limit, f"Slack's box takes {limit} characters, not {len(text)}"
        values = {block["block_id"]: {block["element"]["action_id"]: {
            "type": "plain_text_input", "value": text}}}
        return await self.submit(view_id, values, who, **http)

    async def view_action(self, view_id: str, block_id: str, state: dict[str, Any],
                          who: str = "admin", *, team: str = TEAM) -> Delivery:
        """Change an input that dispatches an action inside a modal (the settings channel)."""
        view = self.fake.views[view_id]
        block = next(b for b in view["blocks"] if b.get("block_id") == block_id)
        delivery = self._delivery("click", who, GENERAL)
        payload = self._interaction("block_actions", who, team, delivery)
        payload.update({"container": {"type": "view", "view_id": view_id},
                        "view": self._view_payload(view, {}),
                        "actions": [{"action_id": block["element"]["action_id"],
                                     "block_id": block_id, "type": block["element"]["type"],
                                     **state, "action_ts": f"{time.time():.6f}"}]})
        return await self._send(delivery, "click", payload)

    async def options(self, view_id: str, action_id: str, typed: str, who: str = "admin", *,
                      team: str = TEAM) -> Delivery:
        """Type into an external select of a modal: Slack asks the app for the options."""
        view = self.fake.views[view_id]
        delivery = self._delivery("options", who, GENERAL)
        payload = self._interaction("block_suggestion", who, team, delivery)
        block = next(b for b in view["blocks"]
                     if (b.get("element") or {}).get("action_id") == action_id)
        payload.update({"container": {"type": "view", "view_id": view_id},
                        "view": self._view_payload(view, {}), "action_id": action_id,
                        "block_id": block["block_id"], "value": typed})
        return await self._send(delivery, "options", payload)

    async def open_home(self, who: str = "alice", *, team: str = TEAM,
                        **http: Any) -> Delivery:
        """Open the app's home tab."""
        delivery = self._delivery("event", who, GENERAL)
        person = user(who)
        payload = {"token": "legacy-verification-token", "team_id": team, "api_app_id": APP_ID,
                   "event": {"type": "app_home_opened", "user": person["id"],
                             "channel": "D0HOME", "tab": "home",
                             "event_ts": f"{time.time():.6f}"},
                   "type": "event_callback", "event_id": f"Ev{next(_event_ids):08d}",
                   "event_time": int(time.time()),
                   "authorizations": [{"enterprise_id": None, "team_id": team,
                                       "user_id": "U0BOTUSER", "is_bot": True,
                                       "is_enterprise_install": False}],
                   "is_ext_shared_channel": False, "event_context": "4-fake"}
        return await self._send(delivery, "event", payload, **http)


def modal_values(view: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """Return a modal's state as Slack submits it: each input as shown, with ``changes`` made.

    A change is given by block id as a member would pick it: ``time="07:45"``,
    ``tz="Asia/Shanghai"``, ``topics=["tensors"]``, ``difficulty=["2"]``, ``enabled="on"``.
    """
    values: dict[str, Any] = {}
    for block in view.get("blocks") or []:
        if block.get("type") != "input":
            continue
        element = block["element"]
        kind, block_id = element["type"], block["block_id"]
        options = {o["value"]: o for o in element.get("options") or []}
        change = changes.get(block_id)

        def picked(value: str, options: dict[str, Any] = options) -> dict[str, Any]:
            return options.get(value) or {"text": {"type": "plain_text", "text": value},
                                          "value": value}

        state: dict[str, Any] = {"type": kind}
        if kind == "conversations_select":
            state["selected_conversation"] = change or element.get("initial_conversation")
        elif kind == "timepicker":
            state["selected_time"] = change or element.get("initial_time")
        elif kind in ("static_select", "external_select", "radio_buttons"):
            state["selected_option"] = picked(change) if change else element.get(
                "initial_option")
        elif kind in ("multi_external_select", "checkboxes", "multi_static_select"):
            state["selected_options"] = ([picked(v) for v in change] if change is not None
                                         else element.get("initial_options") or [])
        elif kind == "plain_text_input":
            state["value"] = change if change is not None else element.get("initial_value")
        values[block_id] = {element["action_id"]: state}
    return values
