"""A local fake of Slack for one test: the Web API, response URLs, uploads, OAuth, Socket Mode.

The unmodified slack-bolt app reaches it through SLACK_API_URL (``WebClient(base_url=...)``).
Every call is recorded and answered as Slack answers: ``{"ok": true, ...}`` or ``{"ok": false,
"error": ...}``, an unknown token is ``invalid_auth``, a method whose scope the app's manifest
does not grant is ``missing_scope``, blocks Slack would refuse are ``invalid_blocks``, a
trigger id works once and for three seconds, a response URL five times, and any method can be
made to answer HTTP 429 ``ratelimited`` with ``Retry-After``. What members would see (posts,
edits, ephemeral replies, modals, home tabs, uploaded files) is kept for the test to read.
Socket Mode: ``apps.connections.open`` hands out a websocket URL on the same server, which
greets with ``hello`` and carries envelopes to the app and its acknowledgements back.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import yaml
from aiohttp import WSMsgType, web

from tests.fake_server import MAX_BODY, serve_locally, stop_serving

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "deploy" / "slack-manifest.yml"

TEAM = "T0TORCHQZ"
OTHER_TEAM = "T0SECOND"
APP_ID = "A0TORCHQZ"
BOT_USER = "U0BOTUSER"
BOT_ID = "B0BOTID"
GENERAL = "C0GENERAL"
RANDOM = "C0RANDOM"
BOT_TOKEN = "xoxb-good-token"
APP_TOKEN = "xapp-good-token"
REJECTED_TOKEN = "xoxb-rejected"
REJECTED_APP_TOKEN = "xapp-rejected"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
CLIENT_ID = "1111.2222"
CLIENT_SECRET = "client-secret-for-tests"
TRIGGER_TTL_S = 3.0
RESPONSE_URL_USES = 5

USERS: dict[str, dict[str, Any]] = {
    "admin": {"id": "U0ADMIN", "name": "ada", "display_name": "Ada (admin)", "is_admin": True},
    "owner": {"id": "U0OWNER", "name": "olga", "display_name": "Olga", "is_owner": True},
    "alice": {"id": "U0ALICE", "name": "alice", "display_name": "Alice"},
    "bob": {"id": "U0BOB", "name": "bob", "display_name": "王小明"},
    "mei": {"id": "U0MEI", "name": "mei", "display_name": "美", "locale": "zh-CN"},
}
CHANNELS = {GENERAL: "general", RANDOM: "random"}
# The scopes each Web API method needs (Slack's method reference), for missing_scope answers.
METHOD_SCOPES = {
    "chat.postMessage": "chat:write", "chat.postEphemeral": "chat:write",
    "chat.update": "chat:write", "users.info": "users:read",
    "files.getUploadURLExternal": "files:write", "files.completeUploadExternal": "files:write",
    "conversations.history": "channels:history", "conversations.info": "channels:read",
    "conversations.open": "im:write", "files.info": "files:read",
}
_NO_SCOPE = {"auth.test", "views.open", "views.update", "views.publish"}


def user(who: str) -> dict[str, Any]:
    """Return the fake's user record for a name ("member7" makes a plain member)."""
    if who in USERS:
        return USERS[who]
    number = "".join(ch for ch in who if ch.isdigit()) or "0"
    return {"id": f"U0M{int(number):04d}", "name": who, "display_name": who}


def manifest_scopes() -> set[str]:
    """Return the bot scopes the shipped manifest asks for (what an install grants)."""
    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    return set(data["oauth_config"]["scopes"]["bot"])


def text_of(blocks: list[dict[str, Any]] | None, fallback: str = "") -> str:
    """Flatten blocks to the text a member reads: headers, sections, fields, context."""
    parts: list[str] = []
    for block in blocks or []:
        text = block.get("text")
        if isinstance(text, dict):
            parts.append(text.get("text") or "")
        for f in block.get("fields") or []:
            parts.append(f.get("text") or "")
        for element in block.get("elements") or []:
            if block.get("type") == "context":
                parts.append(element.get("text") or "")
    return "\n".join(p for p in parts if p) or fallback


def action_ids(blocks: list[dict[str, Any]] | None) -> list[str]:
    """Return the action ids of the buttons in a message's blocks."""
    return [e["action_id"] for b in blocks or [] if b.get("type") == "actions"
            for e in b.get("elements") or [] if e.get("type") == "button"]


@dataclass
class ApiCall:
    """One Web API request the app made."""

    method: str
    args: dict[str, Any]
    token: str
    status: int = 200
    answer: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.monotonic)  # when the request came
    peer_port: int = 0  # the app's end of the connection (the soak run finds its process)


@dataclass
class Shown:
    """Something a member sees: a post, an edit, a private reply, a modal, a home tab."""

    seq: int
    kind: str  # post | update | ephemeral | response | modal | home | file
    channel: str
    user: str  # who alone sees it; "" for everyone in the channel
    blocks: list[dict[str, Any]]
    text: str
    ts: str = ""
    thread_ts: str = ""
    token: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def shown_text(self) -> str:
        return text_of(self.blocks, self.text)

    @property
    def actions(self) -> list[str]:
        return action_ids(self.blocks)


class InvalidBlocks(ValueError):
    """Blocks Slack itself would refuse."""


def check_blocks(blocks: list[dict[str, Any]], *, modal: bool = False) -> None:
    """Raise InvalidBlocks for what Slack's Block Kit limits refuse."""
    if len(blocks) > (100 if modal else 50):
        raise InvalidBlocks("too many blocks")
    seen: set[str] = set()
    for block in blocks:
        kind = block.get("type")
        text = block.get("text") or {}
        if kind == "header" and (text.get("type") != "plain_text" or len(text["text"]) > 150):
            raise InvalidBlocks("header")
        if kind == "section" and text and len(text.get("text", "")) > 3000:
            raise InvalidBlocks("section text over 3000")
        if kind == "section" and len(block.get("fields") or []) > 10:
            raise InvalidBlocks("more than 10 fields")
        for element in block.get("elements") or []:
            if element.get("type") == "button":
                if len(element["text"]["text"]) > 75 or len(element["action_id"]) > 255:
                    raise InvalidBlocks("button")
                if element["action_id"] in seen:
                    raise InvalidBlocks("duplicate action_id")
                seen.add(element["action_id"])
        element = block.get("element") or {}
        if element.get("type") == "plain_text_input":
            limit = element.get("max_length", 3000)
            if limit > 3000 or len(element.get("initial_value", "")) > limit:
                raise InvalidBlocks("plain_text_input")
    if not modal and any(b.get("type") == "input" for b in blocks):
        raise InvalidBlocks("input blocks belong in modals")


def check_view(view: dict[str, Any]) -> None:
    """Raise InvalidBlocks for a modal or home view Slack would refuse."""
    if view.get("type") == "modal":
        for key in ("title", "submit", "close"):
            if key in view and len(view[key]["text"]) > 24:
                raise InvalidBlocks(f"modal {key} over 24 characters")
        if len(view.get("private_metadata", "")) > 3000:
            raise InvalidBlocks("private_metadata over 3000")
    check_blocks(view.get("blocks") or [], modal=True)


class FakeSlack:
    """Serve Slack's Web API, response URLs, uploads and Socket Mode on an ephemeral port."""

    def __init__(self) -> None:
        self.calls: list[ApiCall] = []
        self.shown: list[Shown] = []
        self.messages: dict[tuple[str, str], Shown] = {}  # (channel, ts) -> the post as it is now
        self.views: dict[str, dict[str, Any]] = {}
        self.homes: dict[str, dict[str, Any]] = {}
        self.files: dict[str, dict[str, Any]] = {}
        self.triggers: dict[str, float] = {}
        self.trigger_views: dict[str, str] = {}
        self.response_urls: dict[str, dict[str, Any]] = {}
        self.tokens: dict[str, dict[str, Any]] = {
            BOT_TOKEN: {"team": TEAM, "scopes": manifest_scopes()},
            APP_TOKEN: {"team": TEAM, "scopes": {"connections:write"}},
        }
        self.oauth_codes: dict[str, str] = {}
        self.member_channels = {GENERAL, RANDOM}  # where the bot user is a member
        self.ims: dict[str, str] = {}  # user id -> the IM conversations.open gave the app
        # Files members chose in a modal's file input (files.info), their bytes, and each
        # download of one: (file id, the token that came with it).
        self.shared_files: dict[str, dict[str, Any]] = {}
        self.file_bytes: dict[str, bytes] = {}
        self.file_downloads: list[tuple[str, str]] = []
        self._limits: list[list[Any]] = []
        self._holds: dict[str, str] = {}  # method -> "before" | "after" (see hold())
        # method -> how long each next request of it spends on the way here (see slow_transit())
        self._transit: dict[str, list[float]] = {}
        self._released = asyncio.Event()
        self._ts = itertools.count(1)
        self._ids = itertools.count(1)
        self._changed = asyncio.Condition()
        self.sockets: list[web.WebSocketResponse] = []
        self.socket_acks: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.socket_opened = asyncio.Event()
        self.hellos = 0
        self.port = 0
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------ lifecycle

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.base}/api/"

    async def start(self) -> None:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/response/{rid}", self._response)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_get("/files-pri/{ref}/download/{name}", self._download)
        app.router.add_get("/socket", self._socket)
        self._runner, self.port = await serve_locally(app)

    async def stop(self) -> None:
        self._released.set()
        await stop_serving(self._runner, self.sockets)

    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):08d}"

    def rate_limit(self, method: str, *, retry_after: int = 1, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with HTTP 429 ratelimited."""
        self._limits.append([method, retry_after, times])

    def hold(self, method: str, *, accepted: bool) -> None:
        """Never answer the next call of ``method``: as if the app died while it waited.

        ``accepted`` says whether Slack did the work first (a post that went out, its answer
        lost) or not (the request never got through). Held calls give up at stop().
        """
        self._holds[method] = "after" if accepted else "before"

    def issue_trigger(self) -> str:
        trigger = f"{next(self._ids)}.{int(time.time())}.fake{next(self._ids)}"
        self.triggers[trigger] = time.monotonic()
        return trigger

    def issue_response_url(self, channel: str, who: str) -> str:
        rid = self.new_id("R")
        self.response_urls[rid] = {"channel": channel, "user": user(who)["id"], "uses": 0,
                                   "issued": time.monotonic()}
        return f"{self.base}/response/{rid}"

    def share_file(self, name: str, data: bytes, *, declared_size: int | None = None,
                   url: str | None = None) -> dict[str, Any]:
        """Upload a file as a member's client does for a file input; return Slack's record.

        ``declared_size`` is what files.info will claim (a lie, when it differs from the
        bytes); ``url`` replaces its download URL (a forged one, on another host).
        """
        file_id = self.new_id("F")
        self.file_bytes[file_id] = data
        download = url or f"{self.base}/files-pri/{TEAM}-{file_id}/download/{name}"
        record = {"id": file_id, "name": name, "title": name, "mimetype": "text/plain",
                  "filetype": "yaml", "size": len(data) if declared_size is None
                  else declared_size, "url_private": download,
                  "url_private_download": download}
        self.shared_files[file_id] = record
        return record

    def approve_install(self, team: str) -> str:
        """Act as a workspace admin approving the install: return the code Slack redirects with."""
        code = self.new_id("code-")
        self.oauth_codes[code] = team
        return code

    # ------------------------------------------------------------ reading what happened

    async def _record(self, shown: Shown) -> Shown:
        async with self._changed:
            self.shown.append(shown)
            self._changed.notify_all()
        return shown

    async def wait_for(self, predicate: Any, timeout: float = 20.0) -> Shown:
        """Return the first thing shown that matches ``predicate``, waiting for it."""
        async def find() -> Shown:
            async with self._changed:
                while True:
                    for item in self.shown:
                        if predicate(item):
                            return item
                    await self._changed.wait()

        return await asyncio.wait_for(find(), timeout)

    def slow_transit(self, method: str, *seconds: float) -> None:
        """Delay the next requests of ``method`` on their way here, one figure each.

        A request's time (ApiCall.at) is when it arrived, as Slack counts its rate limits;
        this is a busy client or network between the moment it was sent and then.
        """
        self._transit.setdefault(method, []).extend(seconds)

    def calls_of(self, method: str) -> list[ApiCall]:
        return [c for c in self.calls if c.method == method]

    def posts(self, channel: str = GENERAL, *, thread_ts: str | None = None) -> list[Shown]:
        """Return the app's posts in a channel (top level, or the replies in one thread)."""
        return [s for s in self.shown if s.kind == "post" and s.channel == channel
                and s.thread_ts == (thread_ts or "")]

    def delete_message(self, post: Shown) -> None:
        """Delete a top-level post as a member would: replies to its thread find no thread."""
        self.messages.pop((post.channel, post.ts), None)

    def current(self, post: Shown) -> Shown:
        """Return a post as it looks now (after edits)."""
        return self.messages[(post.channel, post.ts)]

    def edits_of(self, post: Shown) -> list[Shown]:
        return [s for s in self.shown if s.kind == "update" and s.ts == post.ts]

    def direct_messages(self, who: str) -> list[Shown]:
        """Return the app's posts in its IM with ``who`` (opened with conversations.open)."""
        im = self.ims.get(user(who)["id"])
        return [s for s in self.shown if s.kind == "post" and im is not None and s.channel == im]

    def private_to(self, who: str) -> list[Shown]:
        uid = user(who)["id"]
        return [s for s in self.shown if s.user == uid and s.kind in ("ephemeral", "response")]

    # ------------------------------------------------------------ the Web API

    async def _args(self, request: web.Request) -> dict[str, Any]:
        args: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            raw = await request.text()
            if request.content_type == "application/json":
                args.update(json.loads(raw or "{}"))
            else:
                args.update(dict(parse_qsl(raw, keep_blank_values=True)))
        for key in ("blocks", "view", "files"):
            if isinstance(args.get(key), str):
                args[key] = json.loads(args[key])
        return args

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if self._transit.get(method):
            await asyncio.sleep(self._transit[method].pop(0))  # it "arrives" only now
        args = await self._args(request)
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else args.pop(
            "token", "")
        call = ApiCall(method, args, token)
        peer = request.transport.get_extra_info("peername") if request.transport else None
        call.peer_port = int(peer[1]) if peer else 0
        self.calls.append(call)
        for limit in self._limits:
            if limit[0] == method and limit[2] > 0:
                limit[2] -= 1
                call.status = 429
                call.answer = {"ok": False, "error": "ratelimited"}
                return web.json_response(call.answer, status=429,
                                         headers={"Retry-After": str(limit[1])})
        hold = self._holds.pop(method, None)
        if hold == "before":
            await self._released.wait()
            return web.json_response({"ok": False, "error": "fake_stopped"})
        try:
            answer = await self._method(method, args, token, request)
        except InvalidBlocks as exc:
            answer = {"ok": False, "error": "invalid_blocks", "detail": str(exc)}
        except KeyError as exc:
            answer = {"ok": False, "error": f"missing_argument: {exc}"}
        call.answer = answer
        if hold == "after":
            await self._released.wait()
        return web.json_response(answer)

    def _grant(self, method: str, token: str) -> dict[str, Any] | None:
        if method in ("oauth.v2.access",):
            return None
        grant = self.tokens.get(token)
        if grant is None:
            return {"ok": False, "error": "invalid_auth" if token else "not_authed"}
        if method == "apps.connections.open":
            if not token.startswith("xapp-"):
                return {"ok": False, "error": "not_allowed_token_type"}
            return None
        if token.startswith("xapp-"):
            return {"ok": False, "error": "not_allowed_token_type"}
        needed = METHOD_SCOPES.get(method)
        if needed is None and method not in _NO_SCOPE:
            return {"ok": False, "error": "unknown_method"}
        if needed is not None and needed not in grant["scopes"]:
            return {"ok": False, "error": "missing_scope", "needed": needed}
        return None

    async def _method(self, method: str, args: dict[str, Any], token: str,
                      request: web.Request) -> dict[str, Any]:
        refused = self._grant(method, token)
        if refused is not None:
            return refused
        team = self.tokens[token]["team"] if token in self.tokens else ""
        if method == "auth.test":
            return {"ok": True, "url": "https://torchquiz.slack.com/", "team": "PyTorch study",
                    "user": "torchquiz", "team_id": team, "user_id": BOT_USER,
                    "bot_id": BOT_ID, "is_enterprise_install": False}
        if method == "apps.connections.open":
            return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/socket?ticket="
                                       f"{self.new_id('t')}"}
        if method == "oauth.v2.access":
            return self._oauth(args, request)
        if method == "chat.postMessage":
            return await self._post(args, token)
        if method == "chat.postEphemeral":
            return await self._ephemeral(args, token)
        if method == "chat.update":
            return await self._update(args, token)
        if method in ("views.open", "views.update"):
            return await self._view(method, args)
        if method == "views.publish":
            check_view(args["view"])
            self.homes[args["user_id"]] = args["view"]
            await self._record(Shown(len(self.shown), "home", "", args["user_id"],
                                     args["view"].get("blocks") or [], "", token=token))
            return {"ok": True, "view": {**args["view"], "id": self.new_id("V")}}
        if method == "users.info":
            return self._users_info(args)
        if method == "conversations.info":
            if args["channel"] not in CHANNELS:
                return {"ok": False, "error": "channel_not_found"}
            return {"ok": True, "channel": {"id": args["channel"], "is_channel": True,
                                            "name": CHANNELS[args["channel"]],
                                            "is_member": args["channel"] in self.member_channels,
                                            "is_archived": False}}
        if method == "conversations.history":
            return self._history(args)
        if method == "conversations.open":
            im = self.ims.setdefault(args["users"], f"D{self.new_id('')}")
            return {"ok": True, "channel": {"id": im, "is_im": True}}
        if method == "files.getUploadURLExternal":
            file_id = self.new_id("F")
            self.files[file_id] = {"name": args["filename"], "length": int(args["length"]),
                                   "alt_txt": args.get("alt_txt"), "data": None}
            return {"ok": True, "upload_url": f"{self.base}/upload/{file_id}",
                    "file_id": file_id}
        if method == "files.completeUploadExternal":
            return await self._complete_upload(args, token)
        if method == "files.info":
            found = self.shared_files.get(args["file"])
            return {"ok": True, "file": found} if found else {"ok": False,
                                                              "error": "file_not_found"}
        return {"ok": False, "error": "unknown_method"}

    def _channel_ok(self, channel: str) -> dict[str, Any] | None:
        if channel in self.ims.values():
            return None  # a direct message the app opened
        if channel not in CHANNELS:
            return {"ok": False, "error": "channel_not_found"}
        if channel not in self.member_channels:
            return {"ok": False, "error": "not_in_channel"}
        return None

    async def _post(self, args: dict[str, Any], token: str) -> dict[str, Any]:
        channel = args["channel"]
        refused = self._channel_ok(channel)
        if refused is not None:
            return refused
        blocks = args.get("blocks") or []
        check_blocks(blocks)
        thread = args.get("thread_ts") or ""
        if thread and (channel, thread) not in self.messages:
            return {"ok": False, "error": "thread_not_found"}
        n = next(self._ts)
        ts = f"{int(time.time())}.{n:06d}"  # wall-clock seconds, as Slack's: history's oldest
        metadata = args.get("metadata")
        if isinstance(metadata, str):
            metadata = json.loads(metadata)
        shown = Shown(len(self.shown), "post", channel, "", blocks, args.get("text", ""), ts,
                      thread, token, {"parse": args.get("parse"), "metadata": metadata})
        self.messages[(channel, ts)] = shown
        await self._record(shown)
        return {"ok": True, "channel": channel, "ts": ts,
                "message": {"type": "message", "ts": ts, "text": shown.text, "blocks": blocks,
                            "bot_id": BOT_ID, "user": BOT_USER}}

    def _history(self, args: dict[str, Any]) -> dict[str, Any]:
        """Answer conversations.history: the channel's top-level messages, newest first."""
        channel = args["channel"]
        refused = self._channel_ok(channel)
        if refused is not None:
            return refused
        oldest = float(args.get("oldest") or 0)
        with_metadata = str(args.get("include_all_metadata", "")).lower() in ("1", "true")
        found = sorted((m for (c, ts), m in self.messages.items()
                        if c == channel and not m.thread_ts and float(ts) >= oldest),
                       key=lambda m: float(m.ts), reverse=True)
        start = int(args.get("cursor") or 0)
        limit = int(args.get("limit") or 100)
        page = found[start:start + limit]
        messages = []
        for m in page:
            message = {"type": "message", "ts": m.ts, "text": m.text, "blocks": m.blocks,
                       "bot_id": BOT_ID, "user": BOT_USER}
            if with_metadata and m.extra.get("metadata"):
                message["metadata"] = m.extra["metadata"]
            messages.append(message)
        more = start + limit < len(found)
        return {"ok": True, "messages": messages, "has_more": more,
                "response_metadata": {"next_cursor": str(start + limit) if more else ""}}

    async def _ephemeral(self, args: dict[str, Any], token: str) -> dict[str, Any]:
        channel = args["channel"]
        refused = self._channel_ok(channel)
        if refused is not None:
            return refused
        blocks = args.get("blocks") or []
        check_blocks(blocks)
        n = next(self._ts)
        await self._record(Shown(len(self.shown), "ephemeral", channel, args["user"], blocks,
                                 args.get("text", ""), f"{1772442000 + n}.{n:06d}",
                                 token=token))
        return {"ok": True, "message_ts": f"{1772442000 + n}.{n:06d}"}

    async def _update(self, args: dict[str, Any], token: str) -> dict[str, Any]:
        key = (args["channel"], args["ts"])
        if key not in self.messages:
            return {"ok": False, "error": "message_not_found"}
        blocks = args.get("blocks") or []
        check_blocks(blocks)
        old = self.messages[key]
        new = Shown(len(self.shown), "update", old.channel, "", blocks, args.get("text", ""),
                    old.ts, old.thread_ts, token,
                    {"metadata": old.extra.get("metadata")})  # an edit keeps the metadata
        self.messages[key] = new
        await self._record(new)
        return {"ok": True, "channel": old.channel, "ts": old.ts, "text": new.text}

    async def _view(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        view = args["view"]
        check_view(view)
        if method == "views.open":
            trigger = args["trigger_id"]
            issued = self.triggers.pop(trigger, None)
            if issued is None:
                return {"ok": False, "error": "invalid_trigger_id"}
            if time.monotonic() - issued > TRIGGER_TTL_S:
                return {"ok": False, "error": "expired_trigger_id"}
            view_id = self.new_id("V")
            self.trigger_views[trigger] = view_id
        else:
            view_id = args["view_id"]
            if view_id not in self.views:
                return {"ok": False, "error": "not_found"}
            if args.get("hash") and args["hash"] != self.views[view_id]["hash"]:
                return {"ok": False, "error": "hash_conflict"}
        stored = {**view, "id": view_id, "hash": self.new_id("h"), "team_id": TEAM,
                  "app_id": APP_ID, "bot_id": BOT_ID, "state": {"values": {}},
                  "root_view_id": view_id, "previous_view_id": None}
        self.views[view_id] = stored
        await self._record(Shown(len(self.shown), "modal", "", "", view.get("blocks") or [],
                                 "", extra={"view_id": view_id, "method": method}))
        return {"ok": True, "view": stored}

    def _users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        found = next((u for u in [*USERS.values()] if u["id"] == args["user"]), None)
        if found is None and args["user"].startswith("U0M"):
            number = int(args["user"][3:])
            found = user(f"member{number}")
        if found is None:
            return {"ok": False, "error": "user_not_found"}
        record: dict[str, Any] = {
            "id": found["id"], "team_id": TEAM, "name": found["name"], "deleted": False,
            "real_name": found["display_name"], "is_admin": found.get("is_admin", False),
            "is_owner": found.get("is_owner", False), "is_primary_owner": False,
            "is_bot": False, "profile": {"display_name": found["display_name"],
                                         "real_name": found["display_name"]}}
        if str(args.get("include_locale")).lower() in ("true", "1"):
            record["locale"] = found.get("locale", "en-US")
        return {"ok": True, "user": record}

    async def _complete_upload(self, args: dict[str, Any], token: str) -> dict[str, Any]:
        files = []
        for entry in args["files"]:
            stored = self.files.get(entry["id"])
            if stored is None or stored["data"] is None:
                return {"ok": False, "error": "file_not_found"}
            stored["title"] = entry.get("title")
            stored["channel"] = args.get("channel_id")
            files.append({"id": entry["id"], "name": stored["name"], "title": entry.get("title"),
                          "mimetype": "image/png", "size": len(stored["data"])})
        channel = args.get("channel_id") or ""
        if channel:
            refused = self._channel_ok(channel)
            if refused is not None:
                return refused
            await self._record(Shown(len(self.shown), "file", channel, "", [],
                                     args.get("initial_comment") or "", token=token,
                                     extra={"files": [f["id"] for f in files]}))
        return {"ok": True, "files": files}

    def _oauth(self, args: dict[str, Any], request: web.Request) -> dict[str, Any]:
        import base64

        basic = request.headers.get("Authorization", "").removeprefix("Basic ")
        client = base64.b64decode(basic).decode() if basic else (
            f"{args.get('client_id')}:{args.get('client_secret')}")
        if client != f"{CLIENT_ID}:{CLIENT_SECRET}":
            return {"ok": False, "error": "invalid_client_id"}
        team = self.oauth_codes.pop(args.get("code", ""), None)
        if team is None:
            return {"ok": False, "error": "invalid_code"}
        token = f"xoxb-{team}-{self.new_id('')}"
        self.tokens[token] = {"team": team, "scopes": manifest_scopes()}
        return {"ok": True, "access_token": token, "token_type": "bot",
                "scope": ",".join(sorted(manifest_scopes())), "bot_user_id": BOT_USER,
                "app_id": APP_ID, "team": {"id": team, "name": "Second team"},
                "enterprise": None, "is_enterprise_install": False,
                "authed_user": {"id": USERS["admin"]["id"]}}

    # ------------------------------------------------------------ response URLs and uploads

    async def _response(self, request: web.Request) -> web.Response:
        record = self.response_urls.get(request.match_info["rid"])
        if record is None:
            return web.Response(status=404, text="no_such_url")
        if record["uses"] >= RESPONSE_URL_USES:
            return web.Response(status=410, text="used_url")
        record["uses"] += 1
        body = await request.json()
        blocks = body.get("blocks") or []
        try:
            check_blocks(blocks)
        except InvalidBlocks:
            return web.Response(status=400, text="invalid_blocks")
        public = body.get("response_type") == "in_channel"
        shown = Shown(len(self.shown), "post" if public else "response", record["channel"],
                      "" if public else record["user"], blocks, body.get("text", ""),
                      extra={"replace_original": body.get("replace_original")})
        if public:
            n = next(self._ts)
            shown.ts = f"{1772442000 + n}.{n:06d}"
            self.messages[(shown.channel, shown.ts)] = shown
        await self._record(shown)
        return web.Response(text="ok")

    async def _upload(self, request: web.Request) -> web.Response:
        stored = self.files.get(request.match_info["file_id"])
        if stored is None:
            return web.Response(status=404, text="not found")
        data = await request.read()
        if len(data) != stored["length"]:
            return web.Response(status=400, text="length mismatch")
        stored["data"] = data
        return web.Response(text=f"OK - {len(data)}")

    async def _download(self, request: web.Request) -> web.Response:
        """Serve a member's file to a bearer of a bot token of its workspace, as Slack does."""
        file_id = request.match_info["ref"].rsplit("-", 1)[-1]
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else ""
        self.file_downloads.append((file_id, token))
        if token not in self.tokens or not token.startswith("xoxb-"):
            return web.Response(status=302, headers={"Location": f"{self.base}/login"})
        data = self.file_bytes.get(file_id)
        if data is None:
            return web.Response(status=404, text="not found")
        return web.Response(body=data, content_type="application/octet-stream")

    # ------------------------------------------------------------ Socket Mode

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.sockets.append(ws)
        self.hellos += 1
        await ws.send_str(json.dumps({"type": "hello", "num_connections": len(self.sockets),
                                      "connection_info": {"app_id": APP_ID},
                                      "debug_info": {"host": "fake", "approximate_connection_"
                                                     "time": 18060}}))
        self.socket_opened.set()
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                data = json.loads(msg.data)
                future = self.socket_acks.get(data.get("envelope_id", ""))
                if future is not None and not future.done():
                    future.set_result(data)
        finally:
            self.sockets.remove(ws)
        return ws

    async def envelope(self, kind: str, payload: dict[str, Any], *,
                       retry_attempt: int | None = None,
                       retry_reason: str | None = None) -> asyncio.Future[dict[str, Any]]:
        """Send one Socket Mode envelope; the future resolves with the app's acknowledgement."""
        if not self.sockets:
            raise AssertionError("the app has no Socket Mode connection")
        envelope_id = self.new_id("env-")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.socket_acks[envelope_id] = future
        message: dict[str, Any] = {"envelope_id": envelope_id, "type": kind,
                                   "payload": payload,
                                   "accepts_response_payload": kind != "events_api"}
        if retry_attempt is not None:
            message["retry_attempt"] = retry_attempt
            message["retry_reason"] = retry_reason or "timeout"
        await self.sockets[-1].send_str(json.dumps(message))
        return future
