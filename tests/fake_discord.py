"""A local fake of Discord: REST API v10 and a JSON gateway on 127.0.0.1, for the real client.

The unmodified discord.py client logs in through ``DISCORD_API_URL`` (``discord.http.Route.
BASE``), asks ``GET /gateway/bot`` for the gateway, identifies, and gets READY and a
GUILD_CREATE with one guild, two text channels and three members (an admin with Manage Server,
and two members). Tests then inject INTERACTION_CREATE events (slash commands, autocomplete,
button clicks, modal submits) and read what a member would see: every REST call is recorded,
messages and threads are kept, and Discord's rules that matter here are enforced: an
interaction must be answered within three seconds and only once, follow-ups need an answer
first, and a route can be made to answer 429 with ``retry_after``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.fake_server import MAX_BODY, serve_locally, stop_serving

APP_ID = 900000000000000001
BOT_ID = 900000000000000002
GUILD_ID = 900000000000000100
GENERAL = 900000000000000201
RANDOM = 900000000000000202
# A second server, on the other shard of two ((id >> 22) % 2), with a channel of its own: the
# fake serves it only when a test adds it to ``guild_ids``.
OTHER_GUILD_ID = GUILD_ID + (1 << 22)
OTHER_GENERAL = 900000000000000301
GUILD_CHANNELS = {GUILD_ID: ((GENERAL, "general"), (RANDOM, "random")),
                  OTHER_GUILD_ID: ((OTHER_GENERAL, "general"),)}
EVERYONE_PERMS = 0x0000_0000_0006_4C40  # view, send, history, embed, attach, react
MANAGE_GUILD = 1 << 5
ACK_DEADLINE_S = 3.0
DISCORD_EPOCH_MS = 1420070400000
REJECTED_TOKEN = "rejected-token"  # the fake answers 401 to this one, as Discord does to a bad one

USERS = {
    "admin": {"id": "900000000000000301", "username": "ada", "global_name": "Ada (admin)"},
    "alice": {"id": "900000000000000302", "username": "alice", "global_name": "Alice"},
    "bob": {"id": "900000000000000303", "username": "bob", "global_name": "王小明"},
}
# The language of a member's Discord client, sent with each of their interactions.
LOCALES = {"mei": "zh-CN"}


def _json(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py parses a body as JSON only when Content-Type is exactly application/json
    # (aiohttp's json_response appends a charset, which Discord never does), and it takes a
    # 429 without Discord's "Via" header for a Cloudflare ban rather than a rate limit.
    return web.Response(body=json.dumps(data).encode(), status=status,
                        headers={**(headers or {}), "Content-Type": "application/json",
                                 "Via": "1.1 google"})


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def user(who: str) -> dict[str, str]:
    if who in USERS:
        return USERS[who]
    # Anyone else ("member17"): a plain member with a stable made-up id.
    number = int("".join(ch for ch in who if ch.isdigit()) or "0")
    return {"id": str(900000000000010000 + number), "username": who, "global_name": who}


def user_payload(who: str) -> dict[str, Any]:
    base = user(who)
    return {**base, "discriminator": "0", "avatar": None, "bot": False, "flags": 0,
            "public_flags": 0}


def bot_user() -> dict[str, Any]:
    return {"id": str(BOT_ID), "username": "torchquiz", "global_name": None,
            "discriminator": "0", "avatar": None, "bot": True, "flags": 0, "public_flags": 0,
            "verified": True, "mfa_enabled": False}


def permissions_of(who: str) -> int:
    return EVERYONE_PERMS | (MANAGE_GUILD if who == "admin" else 0)


def member_payload(who: str) -> dict[str, Any]:
    return {"user": user_payload(who), "roles": [], "nick": None, "avatar": None,
            "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False, "mute": False,
            "flags": 0, "pending": False, "permissions": str(permissions_of(who))}


def guild_of(channel_id: int) -> int:
    return next((g for g, channels in GUILD_CHANNELS.items()
                 if any(c == channel_id for c, _ in channels)), GUILD_ID)


def channel_payload(channel_id: int, name: str) -> dict[str, Any]:
    return {"id": str(channel_id), "type": 0, "guild_id": str(guild_of(channel_id)),
            "name": name,
            "position": 0, "permission_overwrites": [], "nsfw": False, "parent_id": None,
            "topic": None, "last_message_id": None, "rate_limit_per_user": 0, "flags": 0}


def guild_payload(guild_id: int = GUILD_ID) -> dict[str, Any]:
    return {
        "id": str(guild_id), "name": "PyTorch study group", "icon": None, "splash": None,
        "discovery_splash": None, "owner_id": USERS["admin"]["id"], "afk_channel_id": None,
        "afk_timeout": 300, "verification_level": 0, "default_message_notifications": 0,
        "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0,
        "system_channel_id": None, "system_channel_flags": 0, "rules_channel_id": None,
        "public_updates_channel_id": None, "safety_alerts_channel_id": None,
        "vanity_url_code": None, "description": None, "banner": None, "features": [],
        "preferred_locale": "en-US", "max_video_channel_users": 25,
        "premium_subscription_count": 0, "application_id": None, "emojis": [], "stickers": [],
        "roles": [{"id": str(guild_id), "name": "@everyone", "permissions": str(EVERYONE_PERMS),
                   "position": 0, "color": 0, "hoist": False, "managed": False,
                   "mentionable": False, "flags": 0, "icon": None, "unicode_emoji": None}],
        "member_count": len(USERS), "members": [member_payload(w) for w in USERS],
        "channels": [channel_payload(c, name) for c, name in GUILD_CHANNELS[guild_id]],
        "threads": [], "presences": [], "voice_states": [], "stage_instances": [],
        "guild_scheduled_events": [], "soundboard_sounds": [], "large": False,
        "unavailable": False, "joined_at": "2026-01-01T00:00:00+00:00", "lazy": True,
    }


@dataclass
class RestCall:
    """One request the client made."""

    method: str
    path: str
    body: Any
    files: list[str]
    status: int = 200
    data: dict[str, bytes] = field(default_factory=dict)  # each uploaded file's bytes, by name


@dataclass
class Interaction:
    """An injected interaction and everything the bot answered to it."""

    id: int
    token: str
    kind: int
    data: dict[str, Any]
    user: str
    sent_at: float
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    followups: list[dict[str, Any]] = field(default_factory=list)
    late: bool = False
    doubled: bool = False
    answered_at: float | None = None  # when the first callback came (monotonic)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def callback_type(self) -> int | None:
        return self.callbacks[0]["type"] if self.callbacks else None

    @property
    def ephemeral(self) -> bool:
        first = self.callbacks[0].get("data") or {} if self.callbacks else {}
        return bool(first.get("flags", 0) & 64)

    def replies(self) -> list[dict[str, Any]]:
        """Return what the member saw: an immediate message, or the follow-ups after a defer."""
        direct = [c["data"] for c in self.callbacks if c["type"] in (4, 7) and c.get("data")]
        return direct + self.followups

    def text(self) -> str:
        """Return every reply flattened to text: content, embed titles, bodies, fields."""
        return "\n".join(message_text(m) for m in self.replies())


def message_text(message: dict[str, Any]) -> str:
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f.get('name')}: {f.get('value')}" for f in embed.get("fields") or []]
        parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(p for p in parts if p)


def custom_ids(message: dict[str, Any]) -> list[str]:
    ids = []
    for row in message.get("components") or []:
        for component in row.get("components") or []:
            if component.get("custom_id"):
                ids.append(component["custom_id"])
    return ids


class FakeDiscord:
    """Serve Discord's REST API and gateway for one test, on an ephemeral local port."""

    def __init__(self) -> None:
        self.calls: list[RestCall] = []
        self.messages: dict[int, dict[str, Any]] = {}
        self.threads: dict[int, dict[str, Any]] = {}
        self.interactions: dict[str, Interaction] = {}
        self.commands: list[dict[str, Any]] = []
        self.command_scope: str = ""
        self.nonces: dict[str, int] = {}
        self.posted: list[int] = []  # messages the bot created with POST /channels/X/messages
        self.deleted_channels: set[int] = set()  # channels (threads) deleted: 10003 from now
        self.dm_channels: dict[str, int] = {}  # member id -> their direct-message channel
        self.attachments: dict[str, dict[str, Any]] = {}  # members' uploads, as payloads name
        self.uploads: dict[str, bytes] = {}  # ... and their bytes, served at their URL
        self.downloads: list[str] = []  # the attachment ids the bot fetched
        self.closed_dms: set[str] = set()  # members whose DMs refuse the bot (error 50007)
        # Discord drops an interaction not acknowledged in time; a test may shorten the wait.
        self.ack_deadline_s = ACK_DEADLINE_S
        self._limits: list[list[Any]] = []
        self._holds: list[list[Any]] = []  # [method, path pattern, accepted] (see hold())
        self._released = asyncio.Event()
        # Snowflakes from the wall clock, as Discord's: history's ``after`` compares them.
        self._ids = itertools.count((int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22)
        self._sockets: list[web.WebSocketResponse] = []
        self.guild_ids = [GUILD_ID]  # the servers the bot is in
        # Each connection's [shard id, shard count], as it identified: a server's events go
        # only to the connection of its shard, as Discord routes them.
        self.shard_of: dict[int, tuple[int, int]] = {}
        self._seq = itertools.count(1)
        self.ready = asyncio.Event()
        self.identifies = 0
        self.port = 0
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------ lifecycle

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._attachment)
        self._runner, self.port = await serve_locally(app)

    async def stop(self) -> None:
        self._released.set()
        await stop_serving(self._runner, self._sockets)

    def snowflake(self) -> int:
        return next(self._ids)

    def rate_limit(self, method: str, path_pattern: str, *, retry_after: float = 0.3,
                   times: int = 1) -> None:
        """Answer the next ``times`` matching requests with 429 and ``retry_after``."""
        self._limits.append([method, re.compile(path_pattern), retry_after, times])

    def hold(self, method: str, path_pattern: str, *, accepted: bool) -> None:
        """Never answer the next matching request: as if the bot died while it waited.

        ``accepted`` says whether Discord did the work first (a message that went out, its
        answer lost) or not. Held requests give up at stop().
        """
        self._holds.append([method, re.compile(path_pattern), accepted])

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        """Serve a member's upload, as Discord's CDN does (no token needed, none expected)."""
        attachment_id = request.match_info["attachment_id"]
        data = self.uploads.get(attachment_id)
        if data is None:
            return web.Response(status=404, text="not found")
        self.downloads.append(attachment_id)
        return web.Response(body=data, content_type="application/octet-stream")

    # ------------------------------------------------------------ gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 40000}}))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                payload = json.loads(msg.data)
                if payload["op"] == 1:  # heartbeat
                    await ws.send_str(json.dumps({"op": 11}))
                elif payload["op"] == 2:  # identify
                    self.identifies += 1
                    await self._send_ready(ws, payload["d"])
        finally:
            self._sockets.remove(ws)
            self.shard_of.pop(id(ws), None)
        return ws

    async def _send_ready(self, ws: web.WebSocketResponse, identify: dict[str, Any]) -> None:
        shard = identify.get("shard", [0, 1])
        self.shard_of[id(ws)] = (int(shard[0]), int(shard[1]))
        guilds = [g for g in self.guild_ids if self._serves(ws, g)]
        ready = {"v": 10, "user": bot_user(),
                 "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
                 "session_id": f"session-{self.identifies}", "shard": shard,
                 "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
                 "application": {"id": str(APP_ID), "flags": 0}, "private_channels": [],
                 "relationships": [], "presences": [], "guild_join_requests": []}
        await self._dispatch(ws, "READY", ready)
        for guild_id in guilds:
            await self._dispatch(ws, "GUILD_CREATE", guild_payload(guild_id))
        self.ready.set()

    def _serves(self, ws: web.WebSocketResponse, guild_id: int) -> bool:
        shard, count = self.shard_of.get(id(ws), (0, 1))
        return (guild_id >> 22) % count == shard

    async def _dispatch(self, ws: web.WebSocketResponse, event: str, data: Any) -> None:
        await ws.send_str(json.dumps({"op": 0, "t": event, "s": next(self._seq), "d": data}))

    async def dispatch(self, event: str, data: Any) -> None:
        guild = data.get("guild_id") if isinstance(data, dict) else None
        for ws in list(self._sockets):
            if guild is None or self._serves(ws, int(guild)):
                await self._dispatch(ws, event, data)

    # ------------------------------------------------------------ interactions

    def _interaction_base(self, kind: int, data: dict[str, Any], who: str,
                          channel_id: int, locale: str) -> tuple[Interaction, dict[str, Any]]:
        record = Interaction(id=self.snowflake(), token=f"tok{self.snowflake()}", kind=kind,
                             data=data, user=who, sent_at=time.monotonic())
        self.interactions[record.token] = record
        channel = (dict(self.threads[channel_id]) if channel_id in self.threads  # a thread's post
                   else channel_payload(channel_id, "general" if channel_id == GENERAL
                                        else "random"))
        payload = {
            "id": str(record.id), "application_id": str(APP_ID), "type": kind,
            "token": record.token, "version": 1, "guild_id": str(guild_of(channel_id)),
            "channel_id": str(channel_id), "channel": {**channel,
                                                       "permissions": str(permissions_of(who))},
            "member": member_payload(who), "locale": locale, "guild_locale": "en-US",
            "app_permissions": str(EVERYONE_PERMS | (1 << 34) | (1 << 35)), "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild_of(channel_id))}, "context": 0,
            "attachment_size_limit": 8 * 1024 * 1024, "data": data,
        }
        return record, payload

    async def _inject(self, record: Interaction, payload: dict[str, Any]) -> Interaction:
        record.sent_at = time.monotonic()
        await self.dispatch("INTERACTION_CREATE", payload)
        return record

    def _command(self, name: str) -> dict[str, Any]:
        for command in self.commands:
            if command["name"] == name:
                return command
        raise AssertionError(f"command /{name} was never registered")

    def attach(self, filename: str, data: bytes, *, declared_size: int | None = None,
               url: str | None = None) -> str:
        """Upload a file as a member's client does before a command; return its attachment id.

        Discord serves it from its CDN; here from this server, at the URL the payload names.
        ``declared_size``: what the payload claims (a lie, when it differs from the bytes);
        ``url``: another address for it (a forged one).
        """
        attachment_id = str(self.snowflake())
        self.uploads[attachment_id] = data
        url = url or f"http://127.0.0.1:{self.port}/attachments/{attachment_id}/{filename}"
        self.attachments[attachment_id] = {
            "id": attachment_id, "filename": filename, "url": url, "proxy_url": url,
            "size": len(data) if declared_size is None else declared_size,
            "content_type": "application/yaml"}
        return attachment_id

    async def slash(self, name: str, who: str = "alice", *, channel_id: int = GENERAL,
                    locale: str | None = None, sub: str | None = None,
                    **options: Any) -> Interaction:
        """Run a slash command as ``who``; options by name (a user option takes a name).

        ``sub`` names a subcommand of a command group (/quiz-pack add); an attachment option
        takes an id from :meth:`attach`.
        """
        command = self._command(name)
        declared = command.get("options", [])
        if sub is not None:
            declared = next(o for o in declared if o["name"] == sub and o["type"] == 1).get(
                "options", [])
        types = {o["name"]: o["type"] for o in declared}
        opts, resolved = [], {"users": {}, "members": {}, "channels": {}, "attachments": {}}
        for key, value in options.items():
            kind = types[key]
            if kind == 6:  # user
                user = user_payload(value)
                resolved["users"][user["id"]] = user
                resolved["members"][user["id"]] = {k: v for k, v in member_payload(value).items()
                                                   if k != "user"}
                value = user["id"]
            elif kind == 7:  # channel
                resolved["channels"][str(value)] = {**channel_payload(value, "random"),
                                                    "permissions": str(EVERYONE_PERMS)}
                value = str(value)
            elif kind == 11:  # attachment
                resolved["attachments"][value] = self.attachments[value]
            opts.append({"name": key, "type": kind, "value": value})
        if sub is not None:
            opts = [{"name": sub, "type": 1, "options": opts}]
        data = {"id": command["id"], "name": name, "type": 1, "options": opts,
                "resolved": resolved}
        if self.command_scope == "guild":
            data["guild_id"] = str(GUILD_ID)
        record, payload = self._interaction_base(2, data, who, channel_id,
                                                 locale or LOCALES.get(who, "en-US"))
        return await self._inject(record, payload)

    async def autocomplete(self, name: str, option: str, typed: str, who: str = "alice",
                           *, locale: str = "en-US") -> Interaction:
        """Ask for autocomplete choices of ``option`` while ``who`` types ``typed``."""
        command = self._command(name)
        types = {o["name"]: o["type"] for o in command.get("options", [])}
        data = {"id": command["id"], "name": name, "type": 1,
                "options": [{"name": option, "type": types[option], "value": typed,
                             "focused": True}]}
        if self.command_scope == "guild":
            data["guild_id"] = str(GUILD_ID)
        record, payload = self._interaction_base(4, data, who, GENERAL, locale)
        return await self._inject(record, payload)

    async def click(self, message_id: int, custom_id: str, who: str = "alice", *,
                    locale: str | None = None,
                    shown: dict[str, Any] | None = None) -> Interaction:
        """Click the button ``custom_id`` on a posted message.

        ``shown`` is the message as the member's client still shows it (a stale copy with
        buttons the post no longer has); by default the post as it is now.
        """
        message = shown if shown is not None else self.messages[message_id]
        assert custom_id in custom_ids(message), f"no button {custom_id} on {message_id}"
        data = {"custom_id": custom_id, "component_type": 2}
        record, payload = self._interaction_base(3, data, who, int(message["channel_id"]),
                                                 locale or LOCALES.get(who, "en-US"))
        payload["message"] = message
        return await self._inject(record, payload)

    async def click_ephemeral(self, reply: dict[str, Any], custom_id: str,
                              who: str = "alice") -> Interaction:
        """Click a button on an ephemeral reply (a practice question, a card)."""
        assert custom_id in custom_ids(reply), f"no button {custom_id} on the reply"
        data = {"custom_id": custom_id, "component_type": 2}
        record, payload = self._interaction_base(3, data, who, GENERAL,
                                                 LOCALES.get(who, "en-US"))
        payload["message"] = {**reply, "flags": 64}
        return await self._inject(record, payload)

    async def submit(self, custom_id: str, value: str, who: str = "alice", *,
                     channel_id: int = GENERAL, choice: str | None = None) -> Interaction:
        """Submit a modal whose answer field holds ``value`` (and whose menu ``choice``)."""
        data = {"custom_id": custom_id, "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "answer", "value": value}]}]}
        if choice is not None:  # a labelled select menu, as Discord sends it back
            data["components"].insert(0, {"type": 18, "id": 1, "component": {
                "type": 3, "id": 2, "custom_id": "choice", "values": [choice]}})
        record, payload = self._interaction_base(5, data, who, channel_id,
                                                 LOCALES.get(who, "en-US"))
        return await self._inject(record, payload)

    # ------------------------------------------------------------ REST

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        body, data = await self._body(request)
        call = RestCall(request.method, path, body, list(data), data=data)
        self.calls.append(call)
        if request.headers.get("Authorization") == f"Bot {REJECTED_TOKEN}":
            call.status = 401
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        for limit in self._limits:
            method, pattern, retry_after, left = limit
            if left > 0 and method == request.method and pattern.fullmatch(path):
                limit[3] -= 1
                call.status = 429
                return _json(
                    {"message": "You are being rate limited.", "retry_after": retry_after,
                     "global": False},
                    status=429, headers={"Retry-After": str(retry_after),
                                         "X-RateLimit-Remaining": "0",
                                         "X-RateLimit-Reset-After": str(retry_after),
                                         "X-RateLimit-Bucket": "fake-bucket"})
        hold = next((h for h in self._holds
                     if h[0] == request.method and h[1].fullmatch(path)), None)
        if hold is not None:
            self._holds.remove(hold)
            if not hold[2]:
                await self._released.wait()
                return _json({"message": "fake stopped", "code": 0}, status=503)
        try:
            status, answer = self._route(request.method, path, body, dict(request.query))
        except KeyError:
            status, answer = 404, {"message": "Unknown", "code": 10003}
        if hold is not None:
            await self._released.wait()
        call.status = status
        if status == 204:
            return web.Response(status=204)
        return _json(answer, status=status)

    async def _body(self, request: web.Request) -> tuple[Any, dict[str, bytes]]:
        if request.content_type.startswith("multipart/"):
            payload: Any = {}
            files = {}
            reader = await request.multipart()
            async for part in reader:
                if part.name == "payload_json":
                    payload = json.loads(await part.text())
                else:
                    files[part.filename or part.name or ""] = bytes(await part.read())
            return payload, files
        if request.can_read_body:
            text = await request.text()
            return (json.loads(text) if text else None), {}
        return None, {}

    def _message(self, channel_id: int, body: dict[str, Any], *, ephemeral: bool = False,
                 webhook: bool = False) -> dict[str, Any]:
        message_id = self.snowflake()
        message = {
            "id": str(message_id), "channel_id": str(channel_id),
            "guild_id": str(guild_of(channel_id)),
            "author": bot_user(), "content": body.get("content") or "", "timestamp": _now(),
            "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [],
            "mention_roles": [], "attachments": [{"id": str(self.snowflake()),
                                                 "filename": a.get("filename", "file"),
                                                 "size": 1, "url": "https://cdn.invalid/x",
                                                 "proxy_url": "https://cdn.invalid/x"}
                                                for a in body.get("attachments") or []],
            "embeds": body.get("embeds") or [], "pinned": False, "type": 0,
            "components": body.get("components") or [], "flags": 64 if ephemeral else 0,
            "allowed_mentions": body.get("allowed_mentions"),
        }
        if webhook:
            message["webhook_id"] = str(APP_ID)
        self.messages[message_id] = message
        return message

    def _route(self, method: str, path: str, body: Any,
               query: dict[str, str]) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        if (method, path) == ("GET", "/users/@me"):
            return 200, bot_user()
        if (method, path) == ("GET", "/oauth2/applications/@me"):
            return 200, {"id": str(APP_ID), "name": "torchquiz", "icon": None,
                         "description": "", "bot_public": True, "bot_require_code_grant": False,
                         "verify_key": "0" * 64, "owner": bot_user(), "flags": 0, "team": None,
                         "summary": "", "rpc_origins": []}
        if (method, path) == ("GET", "/gateway/bot"):
            return 200, {"url": f"ws://127.0.0.1:{self.port}/gateway", "shards": 1,
                         "session_start_limit": {"total": 1000, "remaining": 999,
                                                 "reset_after": 0, "max_concurrency": 1}}
        if method == "PUT" and parts[:1] == ["applications"] and parts[-1] == "commands":
            self.command_scope = "guild" if "guilds" in parts else "global"
            self.commands = [{**c, "id": str(self.snowflake()), "application_id": str(APP_ID),
                              "version": "1", "type": c.get("type", 1)} for c in body]
            return 200, self.commands
        if parts[:1] == ["channels"] and len(parts) >= 3 and parts[2] == "messages":
            return self._channel_messages(method, parts, body, query)
        if parts[:1] == ["interactions"] and parts[-1] == "callback":
            return self._callback(parts[2], body)
        if parts[:1] == ["webhooks"]:
            return self._webhook(method, parts, body)
        if method == "GET" and parts[:1] == ["users"] and len(parts) == 2:
            who = next((w for w, u in USERS.items() if u["id"] == parts[1]), None)
            return (200, user_payload(who)) if who else (404, {"message": "Unknown User",
                                                               "code": 10013})
        if (method, path) == ("POST", "/users/@me/channels"):
            recipient = str((body or {}).get("recipient_id"))
            dm_id = self.dm_channels.setdefault(recipient, self.snowflake())
            who = next((w for w, u in USERS.items() if u["id"] == recipient), "member0")
            return 200, {"id": str(dm_id), "type": 1, "last_message_id": None,
                         "recipients": [user_payload(who)]}
        if method == "GET" and parts[:1] == ["channels"] and len(parts) == 2:
            channel_id = int(parts[1])
            if channel_id in self.threads:
                return 200, self.threads[channel_id]
            return 200, channel_payload(channel_id, "general")
        return 404, {"message": "Unknown route", "code": 0}

    def _channel_messages(self, method: str, parts: list[str], body: Any,
                          query: dict[str, str]) -> tuple[int, Any]:
        channel_id = int(parts[1])
        if method == "GET" and len(parts) == 3:
            # Channel history: newest first, before/after a message id, at most ``limit``.
            before = int(query.get("before") or 1 << 63)
            after = int(query.get("after") or 0)
            found = sorted((m for mid, m in self.messages.items()
                            if int(m["channel_id"]) == channel_id and not m["flags"] & 64
                            and after < mid < before), key=lambda m: int(m["id"]), reverse=True)
            return 200, found[:int(query.get("limit") or 50)]
        if method == "POST" and len(parts) == 3:
            if channel_id in self.deleted_channels:
                return 404, {"message": "Unknown Channel", "code": 10003}
            if any(self.dm_channels.get(m) == channel_id for m in self.closed_dms):
                return 403, {"message": "Cannot send messages to this user", "code": 50007}
            nonce = (body or {}).get("nonce")
            if nonce and (body or {}).get("enforce_nonce") and nonce in self.nonces:
                return 200, self.messages[self.nonces[nonce]]  # Discord's dedup of a re-send
            message = self._message(channel_id, body or {})
            self.posted.append(int(message["id"]))
            if nonce:
                self.nonces[nonce] = int(message["id"])
            return 200, message
        message_id = int(parts[3])
        if method == "PATCH" and len(parts) == 4:
            message = self.messages[message_id]
            message.update({k: v for k, v in (body or {}).items()
                            if k in ("content", "embeds", "components")})
            message["edited_timestamp"] = _now()
            return 200, message
        if method == "POST" and parts[4:] == ["threads"]:
            thread_id = self.snowflake()
            thread = {"id": str(thread_id), "type": 11, "guild_id": str(guild_of(channel_id)),
                      "parent_id": str(channel_id), "name": (body or {}).get("name", ""),
                      "owner_id": str(BOT_ID), "message_count": 0, "member_count": 1,
                      "rate_limit_per_user": 0, "flags": 0, "last_message_id": None,
                      "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                                          "archive_timestamp": _now(), "locked": False},
                      "starter_message_id": str(message_id)}
            self.threads[thread_id] = thread
            return 201, thread
        return 404, {"message": "Unknown Message", "code": 10008}

    def _callback(self, token: str, body: Any) -> tuple[int, Any]:
        record = self.interactions.get(token)
        if record is None:
            return 404, {"message": "Unknown interaction", "code": 10062}
        if time.monotonic() - record.sent_at > self.ack_deadline_s:
            # Discord has dropped it: nothing more will come, so a waiting test learns now.
            record.late = True
            record.answered_at = record.answered_at or time.monotonic()
            record.finished.set()
            return 404, {"message": "Unknown interaction", "code": 10062}
        if record.callbacks:
            record.doubled = True
            return 400, {"message": "Interaction has already been acknowledged.",
                         "code": 40060}
        record.callbacks.append(body)
        record.answered_at = time.monotonic()
        record.answered.set()
        kind = body.get("type")
        if kind in (4, 7, 8, 9):  # a message, an update, choices or a modal: nothing follows
            record.finished.set()
        data = body.get("data") or {}
        message = None
        if kind in (4, 5):
            message = self._message(GENERAL, data, ephemeral=bool(data.get("flags", 0) & 64))
        answer: dict[str, Any] = {"interaction": {
            "id": str(record.id), "type": record.kind,
            "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(data.get("flags", 0) & 64),
            "response_message_id": message["id"] if message else None}}
        if message is not None:
            answer["resource"] = {"type": kind, "message": message}
        else:
            answer["resource"] = {"type": kind}
        return 200, answer

    def _webhook(self, method: str, parts: list[str], body: Any) -> tuple[int, Any]:
        token = parts[2]
        record = self.interactions.get(token)
        if record is None or not record.callbacks:
            return 404, {"message": "Unknown Webhook", "code": 10015}
        if method == "POST" and len(parts) == 3:
            flags = (body or {}).get("flags", 0)
            message = self._message(GENERAL, body or {}, ephemeral=bool(flags & 64), webhook=True)
            record.followups.append(message)
            record.finished.set()
            return 200, message
        if method in ("PATCH", "GET") and parts[3:5] == ["messages", "@original"]:
            if method == "PATCH":
                record.followups.append({**(body or {}), "id": str(self.snowflake())})
                record.finished.set()
            return 200, self._message(GENERAL, body or {}, webhook=True)
        return 404, {"message": "Unknown", "code": 0}

    # ------------------------------------------------------------ reading what happened

    def channel_posts(self, channel_id: int = GENERAL) -> list[dict[str, Any]]:
        """Return the bot's own posts in a channel or thread (not interaction replies)."""
        return [self.messages[mid] for mid in self.posted
                if int(self.messages[mid]["channel_id"]) == channel_id]

    def direct_messages(self, who: str) -> list[dict[str, Any]]:
        """Return what the bot sent ``who`` privately, outside any interaction."""
        dm = self.dm_channels.get(USERS[who]["id"])
        return [] if dm is None else self.channel_posts(dm)

    def edits_of(self, message_id: int) -> list[RestCall]:
        return [c for c in self.calls if c.method == "PATCH"
                and c.path.endswith(f"/messages/{message_id}") and c.status == 200]

    def delete_channel(self, channel_id: int) -> None:
        """Delete a channel or thread as a moderator would: posting there answers 10003."""
        self.deleted_channels.add(channel_id)
        self.threads.pop(channel_id, None)

    def thread_on(self, message_id: int) -> int | None:
        """Return the id of the thread started on a message, if any."""
        for thread_id, thread in self.threads.items():
            if thread["starter_message_id"] == str(message_id):
                return thread_id
        return None
