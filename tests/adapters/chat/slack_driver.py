"""The Slack driver: the real app (unmodified slack-bolt) against the local fake Slack.

The fake serves the Web API, response URLs, uploads and Socket Mode on 127.0.0.1; the app's
aiohttp server (bolt's, plus /healthz) listens on another port and gets requests built and
signed exactly as Slack sends them (or envelopes over Socket Mode). The core runs on a real
SQLite database with the real sandbox grading code answers. What members saw is read from
what the fake showed: posts and their edits, ephemeral and response-URL replies, modals.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.adapters.slack.bot import SlackBot
from bot.adapters.slack.packs import PACK_BLOCK
from bot.bootstrap import slack_bot
from executors.zygote.supervisor import Zygote
from tests.adapters.chat.driver import (
    REPLY_TIMEOUT_S,
    TALLY_DELAY_S,
    Form,
    Harness,
    Message,
    Post,
    Reply,
)
from tests.fake_server import serve_locally, stop_serving
from tests.fake_slack import (
    APP_TOKEN,
    BOT_TOKEN,
    CLIENT_ID,
    CLIENT_SECRET,
    GENERAL,
    RANDOM,
    SIGNING_SECRET,
    TEAM,
    FakeSlack,
    Shown,
    user,
)
from tests.fake_slack_requests import Delivery, Sender, modal_values

ACK_DEADLINE_S = 3.0
CHANNELS = {"general": GENERAL, "random": RANDOM}
# The neutral names of settings, as the settings modal's blocks take them.
SETTING_BLOCKS = {"time": "time", "timezone": "tz", "language": "lang", "topics": "topics",
                  "difficulties": "difficulty", "board_day": "day", "board_hour": "hour",
                  "enabled": "enabled", "packs": "packs", "live_hosts": "live_hosts",
                  "live_on_board": "live_on_board",
                  "kinds": "kinds"}


def build(harness: SlackDriver, *, oauth: bool = False) -> tuple[Any, SlackBot]:
    """Build the runtime and the app as `torchquiz slack` does (the one place to repoint)."""
    settings = harness.config
    if oauth:
        settings = settings.model_copy(update={"slack_client_id": CLIENT_ID})
    bot = slack_bot(settings, clock=harness.clock, executor=harness.new_executor(),
                    speed_executor=harness.speed_executor, tally_delay_s=TALLY_DELAY_S)
    return bot.runtime, bot


def _can_ping(shown: Shown) -> bool:
    # Slack pings only for its own <!here>/<@U...> syntax in our text; a chat.postMessage
    # post must also ask Slack not to link plain "@here" (parse=none).
    text = shown.shown_text
    if "<!" in text or "<@" in text:
        return True
    return "parse" in shown.extra and shown.extra["parse"] != "none"


def _labels(shown: Shown) -> tuple[str, ...]:
    return tuple(e["text"]["text"] for b in shown.blocks if b.get("type") == "actions"
                 for e in b.get("elements") or [] if e.get("type") == "button")


class SlackDriver(Harness[FakeSlack]):
    """Drive the Slack app as the members of the fake's workspace would."""

    platform = "slack"
    workspace_id = TEAM

    def __init__(self, tmp_path: Path, zygote: Zygote) -> None:
        super().__init__(tmp_path, zygote)
        self._send: Sender | None = None
        self.bot: SlackBot | None = None
        self.runner: web.AppRunner | None = None
        self.socket: AsyncSocketModeHandler | None = None
        self.app_url = ""
        self.base_url = ""

    @property
    def send(self) -> Sender:
        """Return the sender of requests to the app, as Slack sends them."""
        assert self._send is not None, "the sender starts with the scenario"
        return self._send

    # ------------------------------------------------------------ the process

    async def open_fake(self, *, transport: str = "http", oauth: bool = False,
                        **settings: Any) -> None:
        self._fake = FakeSlack()
        await self._fake.start()
        self._send = Sender(self.fake)
        extra = {"SLACK_API_URL": self.fake.api_url, **settings}
        if oauth:
            extra["SLACK_CLIENT_SECRET"] = CLIENT_SECRET
        self.config = self.base_settings(SLACK_BOT_TOKEN=BOT_TOKEN,
                                           SLACK_SIGNING_SECRET=SIGNING_SECRET, **extra)

    async def close_fake(self) -> None:
        await self.send.close()
        await self.fake.stop()

    async def start(self, *, transport: str = "http", oauth: bool = False,
                    **_: Any) -> SlackBot:
        self._options = {"transport": transport, "oauth": oauth}
        self.runtime, self.bot = build(self, oauth=oauth)
        await self.bot.start()
        self.runner, port = await serve_locally(self.bot.web_app(), shutdown_timeout=1.0)
        self.base_url = f"http://127.0.0.1:{port}"
        self.app_url = f"{self.base_url}/slack/events"
        self.send.app_url = self.app_url
        self.send.transport = transport
        if transport == "socket":
            self.fake.socket_opened.clear()
            self.socket = AsyncSocketModeHandler(self.bot.app, APP_TOKEN)
            await self.socket.connect_async()
            await asyncio.wait_for(self.fake.socket_opened.wait(), REPLY_TIMEOUT_S)
        return self.bot

    async def stop(self) -> None:
        if self.socket is not None:
            await self.socket.close_async()
            self.socket = None
        await stop_serving(self.runner)
        self.runner = None
        if self.bot is not None:
            await self.bot.close()
            self.bot = None

    # ------------------------------------------------------------ reading the fake

    def channel_id(self, name: str) -> str:
        return CHANNELS[name]

    def user_id(self, who: str) -> str:
        return str(user(who)["id"])

    def display_name(self, who: str) -> str:
        return str(user(who)["display_name"])

    def acked(self, delivery: Delivery) -> Delivery:
        """Check that Slack got its 200 in time, and return the delivery."""
        assert delivery.status == 200, (delivery.status, delivery.body)
        assert delivery.ack_s < ACK_DEADLINE_S, f"acknowledged after {delivery.ack_s:.2f} s"
        return delivery

    async def reply(self, delivery: Delivery, timeout: float = REPLY_TIMEOUT_S) -> Shown:
        """Wait for the private reply the member who sent ``delivery`` gets."""
        self.acked(delivery)
        return await self.fake.wait_for(
            lambda s: s.seq >= delivery.mark and s.user == delivery.user_id
            and s.kind in ("ephemeral", "response"), timeout)

    async def modal(self, delivery: Delivery) -> str:
        """Wait for the modal the app opened with the delivery's trigger; return its view id."""
        self.acked(delivery)
        await self.fake.wait_for(lambda s: s.kind == "modal" and s.seq >= delivery.mark
                                 and delivery.trigger_id in self.fake.trigger_views)
        return self.fake.trigger_views[delivery.trigger_id]

    async def _answer(self, delivery: Delivery, timeout: float = REPLY_TIMEOUT_S) -> Shown:
        """Wait for what answers a delivery: a private reply, a form, or a post for all."""
        self.acked(delivery)
        fake = self.fake
        return await fake.wait_for(
            lambda s: s.seq >= delivery.mark and (
                (s.user == delivery.user_id and s.kind in ("ephemeral", "response"))
                or (s.kind == "modal" and delivery.trigger_id in fake.trigger_views)
                or (s.kind == "post" and not s.thread_ts)), timeout)

    def _reply(self, shown: Shown) -> Reply:
        return Reply(text=shown.shown_text, buttons=tuple(shown.actions), labels=_labels(shown),
                     can_ping=_can_ping(shown), raw=shown,
                     private=shown.kind in ("ephemeral", "response"))

    def _post(self, shown: Shown) -> Post:
        return Post(text=shown.shown_text, buttons=tuple(shown.actions), labels=_labels(shown),
                    can_ping=_can_ping(shown), raw=shown, key=(shown.channel, shown.ts),
                    image=self._image_after(shown))

    def _image_after(self, shown: Shown) -> tuple[str, bytes] | None:
        # A chart goes up as a file into the channel right after its post.
        for later in self.fake.shown[shown.seq + 1:]:
            if later.channel != shown.channel:
                continue
            if later.kind == "post" and not later.thread_ts:
                return None
            if later.kind == "file":
                stored = self.fake.files[later.extra["files"][0]]
                return stored["name"], stored["data"]
        return None

    def channel_posts(self, channel: str = "general") -> list[Post]:
        return [self._post(s) for s in self.fake.posts(CHANNELS[channel])]

    def edits_of(self, post: Post) -> int:
        return len(self.fake.edits_of(post.raw))

    def thread_of(self, post: Post) -> list[Post]:
        return [self._post(s) for s in self.fake.posts(post.raw.channel, thread_ts=post.raw.ts)]

    def delete_thread(self, post: Post) -> None:
        self.fake.delete_message(post.raw)

    def mark(self) -> int:
        return len(self.fake.shown)

    def private_since(self, mark: int, who: str) -> list[Post]:
        return [self._post(s) for s in self.fake.shown[mark:]
                if s.kind == "ephemeral" and s.user == self.user_id(who)]

    def forms_opened(self) -> int:
        return len(self.fake.trigger_views)

    def rate_limit_posts(self) -> None:
        self.fake.rate_limit("chat.postMessage", retry_after=1)

    def post_attempts(self) -> list[int]:
        return [c.status for c in self.fake.calls_of("chat.postMessage")
                if c.args.get("channel") == GENERAL]

    def history_reads(self) -> int:
        return sum(1 for c in self.fake.calls_of("conversations.history")
                   if c.args.get("channel") == GENERAL)

    def with_buttons(self, post: Post, actions: list[str]) -> Post:
        shown: Shown = post.raw
        blocks = [b for b in shown.blocks if b.get("type") != "actions"]
        blocks.append({"type": "actions", "block_id": "tampered", "elements": [
            {"type": "button", "action_id": a, "value": a,
             "text": {"type": "plain_text", "text": a.rsplit(":", 1)[1]}} for a in actions]})
        tampered = Shown(shown.seq, shown.kind, shown.channel, shown.user, blocks, shown.text,
                         shown.ts, shown.thread_ts, shown.token, dict(shown.extra))
        return self._post(tampered)

    # ------------------------------------------------------------ what members do

    async def command(self, name: str, who: str = "alice", *, channel: str = "general",
                      **args: Any) -> Reply:
        if name == "stats":
            member = args.get("member")
            text = f"<@{self.user_id(member)}|{member}>" if member else ""
            text = "team" if args.get("team") else text
            slash = "/quiz-stats"
        elif name == "privacy":
            text, slash = str(args.get("mode") or ""), "/quiz-privacy"
        elif name == "forget_me":
            text, slash = "", "/quiz-forget-me"
        elif name == "insights":
            text = f"{args.get('action') or ''} {args.get('item') or ''}".strip()
            slash = "/quiz-insights"
        elif name == "web":
            text, slash = "", "/quiz-web"
        elif name == "speed":
            text, slash = str(args.get("challenge") or ""), "/quiz-speed"
        elif name == "live":
            text = f"{args.get('action') or ''} {args.get('options') or ''}".strip()
            slash = "/quiz-live"
        elif name == "reports":
            close = args.get("close")
            text = f"close {close} {args.get('reason') or ''}".strip() if close else ""
            slash = "/quiz-reports"
        else:
            text = str(args.get({"explain": "topic", "quiz": "topic",
                                 "leaderboard": "period"}[name]) or "")
            slash = f"/{name}"
        asked = await self.send.command(slash, text, who, channel=CHANNELS[channel])
        return self._reply(await self.reply(asked))

    async def _open_settings(self, who: str) -> tuple[Delivery, Shown]:
        asked = await self.send.command("/quiz-settings", who=who)
        return asked, await self._answer(asked)

    async def settings(self, who: str, **changes: Any) -> Reply:
        asked, first = await self._open_settings(who)
        if first.kind != "modal":
            return self._reply(first)  # refused: no form to fill in
        view_id = self.fake.trigger_views[asked.trigger_id]
        picked: dict[str, Any] = {}
        for key, value in changes.items():
            if key in ("enabled", "live_on_board"):
                value = "on" if value else "off"
            elif key in ("topics", "difficulties", "kinds"):
                value = [str(v) for v in value]
            elif key == "board_hour":
                value = str(value)
            picked[SETTING_BLOCKS[key]] = value
        values = modal_values(self.fake.views[view_id], **picked)
        return self._reply(await self.reply(await self.send.submit(view_id, values, who=who)))

    async def view_settings(self, who: str) -> Reply:
        _, first = await self._open_settings(who)
        assert first.kind != "modal", "an admin gets the form; ask as a member"
        return self._reply(first)

    async def click(self, message: Message, action: str, who: str = "alice") -> Reply:
        return self._reply(await self._answer(await self.send.click(message.raw, action, who)))

    async def open_form(self, message: Message, who: str = "alice",
                        button: str | None = None) -> Form:
        view_id = await self.modal(await self.send.click(message.raw,
                                                         button or message.form_button, who))
        view = self.fake.views[view_id]
        # The text box is the last input; a static_select (a report's reason) may come first.
        box = view["blocks"][-1]["element"]
        menu = view["blocks"][0]["element"] if len(view["blocks"]) > 1 else {}
        return Form(key=view_id, who=who, mode=view["callback_id"].rsplit(":", 1)[1],
                    multiline=bool(box.get("multiline")), prefill=box.get("initial_value", ""),
                    max_length=box.get("max_length", 3000),
                    choices=tuple(o["value"] for o in menu.get("options") or []))

    async def submit(self, form: Form, text: str, *, forged: bool = False,
                     choice: str | None = None) -> Reply:
        if choice is not None:
            assert choice in form.choices, "Slack's menu offers no such value"
            view = self.fake.views[form.key]
            values = modal_values(view, **{view["blocks"][0]["block_id"]: choice,
                                           view["blocks"][-1]["block_id"]: text})
            sent = await self.send.submit(form.key, values, form.who)
        elif not forged:
            sent = await self.send.answer(form.key, text, form.who)
        else:  # Slack's box stops at its limit: a hand-made request carries more
            block = self.fake.views[form.key]["blocks"][0]
            values = {block["block_id"]: {block["element"]["action_id"]: {
                "type": "plain_text_input", "value": text}}}
            sent = await self.send.submit(form.key, values, form.who)
        return self._reply(await self.reply(sent, timeout=60))

    # ------------------------------------------------------------ team packs

    async def add_pack(self, who: str, filename: str, data: bytes, *,
                       declared_size: int | None = None, url: str | None = None) -> Reply:
        asked = await self.send.command("/quiz-pack", "add", who)
        first = await self._answer(asked)
        if first.kind != "modal":
            return self._reply(first)  # refused: no form to choose a file in
        view_id = self.fake.trigger_views[asked.trigger_id]
        record = self.fake.share_file(filename, data, declared_size=declared_size, url=url)
        values = {PACK_BLOCK: {PACK_BLOCK: {"type": "file_input", "files": [record]}}}
        sent = self.acked(await self.send.submit(view_id, values, who=who))
        # The modal closes at once; "Checking the pack" comes first, the report after it.
        shown = await self.fake.wait_for(
            lambda s: s.seq >= sent.mark and s.user == sent.user_id
            and s.kind in ("ephemeral", "response") and "Checking the pack" not in s.shown_text,
            timeout=120)
        return self._reply(shown)

    async def pack(self, who: str, verb: str, pack_id: str = "") -> Reply:
        asked = await self.send.command("/quiz-pack", f"{verb} {pack_id}".strip(), who)
        return self._reply(await self.reply(asked))

    def exported(self, reply: Reply, who: str) -> tuple[str, bytes]:
        im = self.fake.ims[user(who)["id"]]
        sent = [f for f in self.fake.files.values() if f.get("channel") == im]
        assert len(sent) == 1, sent
        return sent[0]["name"], sent[0]["data"]

    def downloads(self) -> int:
        return len(self.fake.file_downloads)
