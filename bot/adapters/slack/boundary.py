"""The one validation step in front of bolt: signature and timestamp, then the body's shape.

bolt parses a request's body, and reads ids out of it, before its own signature check runs:
a non-numeric timestamp, a ``payload`` that is not JSON, or a ``user`` that is a number made
it answer 500 with a traceback, to anyone, no secret needed. Every request to /slack/events
therefore passes here first, over HTTP (an aiohttp middleware) and over Socket Mode (the same
shape check on each envelope): a bad or missing signature or timestamp is 401, a body that is
not one of Slack's shapes is 400, an oversized one 413, each with one warning line. The
signature is checked with slack-sdk's ``SignatureVerifier``, as bolt's own middleware does
(bolt checks again after us); the body with bolt's own ``parse_body``, so what passes here is
exactly what bolt will see.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.request.internals import parse_body
from slack_sdk.signature import SignatureVerifier
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

log = logging.getLogger(__name__)

# Slack's bodies are a few kilobytes; a 200 KB command text still gets its polite refusal.
MAX_BODY_BYTES = 1024 * 1024
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")
# Where bolt and our listeners read a value, the type they assume: anything else is not Slack's.
_TEXT = frozenset({
    "type", "command", "callback_id", "action_id", "block_id", "trigger_id", "response_url",
    "team_id", "user_id", "channel_id", "enterprise_id", "event_id", "api_app_id", "thread_ts",
    "id", "hash", "name", "username", "subtype", "tab", "challenge", "private_metadata",
    "selected_conversation", "selected_time", "value", "function_execution_id",
    "bot_access_token", "app_installed_team_id", "user_team", "channel_type", "bot_id",
    "ssl_check", "view_id", "message_ts", "root_view_id", "previous_view_id"})
_OWNER = frozenset({"team", "user", "channel", "enterprise"})  # an id, or an object with one
_OBJECT = frozenset({"event", "view", "container", "message", "previous_message", "item",
                     "assistant_thread", "function_data", "function", "state", "values",
                     "selected_option", "workflow_step"})
_OBJECTS = frozenset({"authorizations", "actions", "response_urls", "selected_options"})
# bolt tests ``key in body`` then indexes the value: these may be missing, never null.
_NOT_NULL = frozenset({"event", "view", "actions", "response_urls"})
# bolt reads ``actions[0]`` of a click: Slack never sends a click without one.
_NOT_EMPTY = frozenset({"actions"})
MAX_DEPTH = 12  # Slack's payloads nest about six deep


class Refused(Exception):
    """A request refused at the boundary, with the HTTP status it gets."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def verify(verifier: SignatureVerifier, body: str, headers: Mapping[str, str]) -> None:
    """Raise Refused(401) unless ``body`` carries Slack's signature made within five minutes."""
    timestamp = headers.get("X-Slack-Request-Timestamp") or ""
    signature = headers.get("X-Slack-Signature") or ""
    if _TIMESTAMP.fullmatch(timestamp) is None:
        raise Refused(401, "missing or malformed timestamp")
    if _SIGNATURE.fullmatch(signature) is None:
        raise Refused(401, "missing or malformed signature")
    if not verifier.is_valid(body=body, timestamp=timestamp, signature=signature):
        raise Refused(401, "bad signature or stale timestamp")


def parse(text: str, content_type: str) -> dict[str, Any]:
    """Return the body as bolt will read it, or raise Refused(400) when it is not Slack's."""
    if content_type not in (FORM, JSON):
        raise Refused(400, f"content type {content_type[:40]!r} is neither form nor JSON")
    try:
        body = parse_body(text, content_type)
    except (ValueError, RecursionError) as exc:
        # JSON errors are ValueErrors; a payload nested thousands deep exhausts the parser.
        raise Refused(400, "body or payload is not JSON") from exc
    if not isinstance(body, dict) or not body:
        raise Refused(400, "body is not an object")
    check_shape(body)
    check_bolt_reads(body)
    return body


def check_shape(body: Any, depth: int = 0) -> None:
    """Raise Refused(400) when a field bolt or a listener reads has a type Slack never sends."""
    if not isinstance(body, dict):
        raise Refused(400, "payload is not an object")
    if depth > MAX_DEPTH:
        raise Refused(400, "payload nested too deep")
    for key, value in body.items():
        if value is None:
            if key in _NOT_NULL:
                raise Refused(400, f"{key} is null")
            continue
        if key in _TEXT and not isinstance(value, str):
            raise Refused(400, f"{key} is not a string")
        if (key in _OWNER and not isinstance(value, str)) or key in _OBJECT:
            check_shape(value, depth + 1)
        elif key in _OBJECTS:
            if not isinstance(value, list):
                raise Refused(400, f"{key} is not a list")
            if not value and key in _NOT_EMPTY:
                raise Refused(400, f"{key} is empty")
            for entry in value:
                check_shape(entry, depth + 1)
    if body.get("is_ext_shared_channel") is True and not isinstance(body.get("event"), dict):
        raise Refused(400, "shared-channel event without an event")


def check_bolt_reads(body: dict[str, Any]) -> None:
    """Raise Refused(400) where bolt would index a key of a whole body that Slack always sends.

    bolt reads ``view["type"]`` of every modal submission and ``body["workflow_step"]`` of a
    workflow step's (a feature this app does not use), before any listener runs.
    """
    view = body.get("view")
    if body.get("type") in ("view_submission", "view_closed") and isinstance(view, dict):
        if not isinstance(view.get("type"), str):
            raise Refused(400, "view without a type")
        if view["type"] == "workflow_step":
            raise Refused(400, "workflow steps are not used")
    if body.get("type") == "workflow_step_edit":
        raise Refused(400, "workflow steps are not used")


async def _read(request: web.Request) -> bytes:
    if (request.content_length or 0) > MAX_BODY_BYTES:
        raise Refused(413, f"body of {request.content_length} bytes")
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge as exc:
        raise Refused(413, "body too large") from exc
    except (ConnectionError, HttpProcessingError) as exc:
        # The client stopped sending before its Content-Length (or sent a broken chunk):
        # aiohttp reports the lost connection; it is the client's fault, never a 500.
        raise Refused(400, "body ended before its declared length") from exc
    if len(raw) > MAX_BODY_BYTES:
        raise Refused(413, f"body of {len(raw)} bytes")
    return raw


async def check_request(request: web.Request, verifier: SignatureVerifier | None) -> None:
    """Raise Refused unless the request is signed by Slack and its body is one of Slack's."""
    raw = await _read(request)
    # Slack sends UTF-8; the verifier decodes the body before hashing it, so decode first.
    if (request.charset or "utf-8").lower() not in ("utf-8", "utf8"):
        raise Refused(400, "body is not UTF-8")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(400, "body is not UTF-8") from exc
    if verifier is not None:
        verify(verifier, text, request.headers)
    parse(text, request.content_type)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def middleware(path: str, signing_secret: str) -> Any:
    """Return the aiohttp middleware that checks every POST to ``path`` before bolt sees it."""
    verifier = SignatureVerifier(signing_secret) if signing_secret.strip() else None

    @web.middleware
    async def slack_boundary(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method == "POST" and request.path == path:
            try:
                await check_request(request, verifier)
            except Refused as exc:
                log.warning("slack request refused with %s: %s (from %s)", exc.status,
                            exc.reason, request.remote)
                return web.Response(status=exc.status, text=exc.reason)
        return await handler(request)

    return slack_boundary


class CheckedSocketModeHandler(AsyncSocketModeHandler):
    """bolt's Socket Mode handler with the same shape check on every envelope."""

    async def handle(self, client: Any, req: SocketModeRequest) -> None:
        """Acknowledge and drop an envelope whose payload is not Slack's; pass the rest on."""
        try:
            check_shape(req.payload)
            check_bolt_reads(req.payload)
        except Refused as exc:
            log.warning("slack envelope %s refused: %s", req.envelope_id, exc.reason)
            await client.send_socket_mode_response(SocketModeResponse(req.envelope_id))
            return
        await super().handle(client, req)
