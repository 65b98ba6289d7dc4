"""The Discord driver: the real bot (unmodified discord.py) against the local fake Discord.

The fake serves REST and the gateway on 127.0.0.1, the bot logs in through DISCORD_API_URL's
mechanism (Route.BASE), and the core runs on a real SQLite database with the real sandbox
grading code answers. Members act by interactions the fake injects; what they saw is read
from the interaction's callbacks and follow-ups, and from the messages the fake keeps.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

from bot.adapters.discord.client import QuizBot
from bot.adapters.discord.main import use_api
from bot.bootstrap import chat_runtime
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
from tests.fake_discord import (
    APP_ID,
    GENERAL,
    GUILD_ID,
    RANDOM,
    USERS,
    FakeDiscord,
    Interaction,
    custom_ids,
    message_text,
    user,
)

CHANNELS = {"general": GENERAL, "random": RANDOM}
NO_PINGS: dict[str, list[str]] = {"parse": []}
# The neutral names of settings, as /quiz-settings's options take them.
SETTING_OPTIONS = {"time": "time", "timezone": "timezone", "language": "language",
                   "topics": "topics", "difficulties": "difficulty",
                   "board_day": "leaderboard_day", "board_hour": "leaderboard_hour",
                   "enabled": "enabled", "packs": "packs", "live_hosts": "live_hosts",
                   "live_on_board": "live_on_board",
                   "kinds": "kinds"}
COMMANDS = {"explain": "explain", "quiz": "quiz", "leaderboard": "leaderboard",
            "stats": "stats", "settings": "quiz-settings", "forget_me": "quiz-forget-me",
            "reports": "quiz-reports", "privacy": "quiz-privacy", "insights": "quiz-insights",
            "web": "quiz-web", "live": "quiz-live", "speed": "quiz-speed"}


def build(harness: DiscordDriver, *, guild_id: int | None = None) -> tuple[Any, QuizBot]:
    """Build the runtime and the bot as `torchquiz discord` does (the one place to repoint)."""
    runtime = chat_runtime(harness.config, "discord", clock=harness.clock,
                           executor=harness.new_executor(),
                           speed_executor=harness.speed_executor)
    bot = QuizBot(runtime, guild_id=guild_id, guild_ready_timeout=0.05,
                  tally_delay_s=TALLY_DELAY_S)
    return runtime, bot


def _labels(message: dict[str, Any]) -> tuple[str, ...]:
    return tuple(c.get("label") or "" for row in message.get("components") or []
                 for c in row.get("components") or [] if c.get("custom_id"))


def _image(message: dict[str, Any], uploads: dict[str, bytes]) -> tuple[str, bytes] | None:
    # The chart is shown inside the embed, which names the attachment it displays.
    for embed in message.get("embeds") or []:
        url = (embed.get("image") or {}).get("url") or ""
        if url.startswith("attachment://"):
            name = url.removeprefix("attachment://")
            return name, uploads.get(name, b"")
    return None


class DiscordDriver(Harness[FakeDiscord]):
    """Drive the Discord bot as the members of the fake's guild would."""

    platform = "discord"
    workspace_id = str(GUILD_ID)

    def __init__(self, tmp_path: Path, zygote: Zygote) -> None:
        super().__init__(tmp_path, zygote)
        self.bot: QuizBot | None = None
        self._connection: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ the process

    async def open_fake(self, **options: Any) -> None:
        self._fake = FakeDiscord()
        await self._fake.start()

    async def close_fake(self) -> None:
        await self.fake.stop()

    async def start(self, *, token: str = "good-token", guild_id: int | None = None,
                    **_: Any) -> QuizBot:
        self._options = {"guild_id": guild_id}
        use_api(self.fake.api_url)
        self.runtime, self.bot = build(self, guild_id=guild_id)
        self.fake.ready.clear()
        await self.bot.login(token)
        self._connection = asyncio.create_task(self.bot.connect(reconnect=False))
        await asyncio.wait_for(self.fake.ready.wait(), REPLY_TIMEOUT_S)
        await asyncio.wait_for(self.bot.wait_until_ready(), REPLY_TIMEOUT_S)
        return self.bot

    async def stop(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        if self._connection is not None:
            self._connection.cancel()
            await asyncio.gather(self._connection, return_exceptions=True)
        self.bot = None

    # ------------------------------------------------------------ reading the fake

    def channel_id(self, name: str) -> str:
        return str(CHANNELS[name])

    def user_id(self, who: str) -> str:
        return user(who)["id"]

    def display_name(self, who: str) -> str:
        return user(who)["global_name"]

    async def done(self, record: Interaction, timeout: float = REPLY_TIMEOUT_S) -> Interaction:
        """Wait until the bot has finished answering an interaction, in time and once."""
        try:
            await asyncio.wait_for(record.finished.wait(), timeout)
        except TimeoutError:
            raise AssertionError(
                f"no reply to {record.user}'s interaction within {timeout:g} s: "
                f"{len(record.callbacks)} callback(s) {[c.get('type') for c in record.callbacks]}"
                f", {len(record.followups)} follow-up(s)") from None
        assert not record.late, (
            f"the bot answered {record.user} after Discord's three seconds "
            f"({(record.answered_at or 0) - record.sent_at:.1f} s)")
        assert not record.doubled, "the bot answered the interaction twice"
        return record

    def _reply(self, record: Interaction) -> Reply:
        messages = record.replies()
        ids = tuple(i for m in messages for i in custom_ids(m))
        labels = tuple(label for m in messages for label in _labels(m))
        return Reply(text=record.text(), buttons=ids, labels=labels,
                     can_ping=any(m.get("allowed_mentions") != NO_PINGS for m in messages),
                     raw=record, private=record.ephemeral)

    async def _answered(self, record: Interaction, timeout: float = REPLY_TIMEOUT_S) -> Reply:
        return self._reply(await self.done(record, timeout))

    def _post(self, message: dict[str, Any]) -> Post:
        uploads = {name: data for call in self.fake.calls for name, data in call.data.items()}
        return Post(text=message_text(message), buttons=tuple(custom_ids(message)),
                    labels=_labels(message),
                    can_ping=message.get("allowed_mentions") != NO_PINGS,
                    raw=copy.deepcopy(message),  # as it looked now: the fake edits in place
                    key=int(message["id"]), image=_image(message, uploads))

    def channel_posts(self, channel: str = "general") -> list[Post]:
        return [self._post(m) for m in self.fake.channel_posts(CHANNELS[channel])]

    def edits_of(self, post: Post) -> int:
        return len(self.fake.edits_of(post.key))

    def thread_of(self, post: Post) -> list[Post]:
        thread = self.fake.thread_on(post.key)
        return [] if thread is None else [self._post(m) for m in self.fake.channel_posts(thread)]

    def delete_thread(self, post: Post) -> None:
        thread = self.fake.thread_on(post.key)
        assert thread is not None, "no thread on that post"
        self.fake.delete_channel(thread)

    def mark(self) -> int:
        return len(self.fake.posted)

    def private_since(self, mark: int, who: str) -> list[Post]:
        dm = self.fake.dm_channels.get(USERS[who]["id"])
        return [self._post(self.fake.messages[mid]) for mid in self.fake.posted[mark:]
                if dm is not None and int(self.fake.messages[mid]["channel_id"]) == dm]

    def forms_opened(self) -> int:
        return sum(1 for r in self.fake.interactions.values() if r.callback_type == 9)

    def rate_limit_posts(self) -> None:
        self.fake.rate_limit("POST", r"/channels/\d+/messages", retry_after=0.5)

    def post_attempts(self) -> list[int]:
        return [c.status for c in self.fake.calls
                if c.method == "POST" and c.path == f"/channels/{GENERAL}/messages"]

    def history_reads(self) -> int:
        return sum(1 for c in self.fake.calls
                   if c.method == "GET" and c.path == f"/channels/{GENERAL}/messages")

    def forget_dedup(self) -> None:
        self.fake.nonces.clear()  # Discord's nonce de-duplication lasts minutes, not days

    def with_buttons(self, post: Post, actions: list[str]) -> Post:
        message = copy.deepcopy(post.raw)
        message["components"] = [{"type": 1, "components": [
            {"type": 2, "style": 2, "label": a.rsplit(":", 1)[1], "custom_id": a}
            for a in actions]}]
        return self._post(message)

    # ------------------------------------------------------------ what members do

    async def command(self, name: str, who: str = "alice", *, channel: str = "general",
                      **args: Any) -> Reply:
        return await self._answered(await self.fake.slash(
            COMMANDS[name], who, channel_id=CHANNELS[channel], **args))

    async def settings(self, who: str, **changes: Any) -> Reply:
        options: dict[str, Any] = {}
        for key, value in changes.items():
            if key in ("topics", "difficulties", "kinds"):
                value = ",".join(str(v) for v in value)
            options[SETTING_OPTIONS[key]] = value
        return await self.command("settings", who, **options)

    async def view_settings(self, who: str) -> Reply:
        return await self.command("settings", who)

    async def click(self, message: Message, action: str, who: str = "alice") -> Reply:
        return await self._answered(await self._click(message, action, who))

    async def _click(self, message: Message, action: str, who: str) -> Interaction:
        if isinstance(message, Post):
            return await self.fake.click(message.key, action, who, shown=message.raw)
        reply = next(m for m in message.raw.replies() if action in custom_ids(m))
        return await self.fake.click_ephemeral(reply, action, who)

    async def open_form(self, message: Message, who: str = "alice",
                        button: str | None = None) -> Form:
        opened = await self.done(await self._click(message, button or message.form_button, who))
        assert opened.callback_type == 9, "the form did not open"
        modal = opened.callbacks[0]["data"]
        # A row holds the text box; a labelled select menu (type 18, then 3) may come first.
        parts = [c.get("component") or (c.get("components") or [{}])[0]
                 for c in modal["components"]]
        box = next(p for p in parts if p.get("type") == 4)
        menu = next((p for p in parts if p.get("type") == 3), {})
        return Form(key=modal["custom_id"], who=who, mode=modal["custom_id"].rsplit(":", 1)[1],
                    multiline=box["style"] == 2, prefill=box.get("value") or "",
                    max_length=box.get("max_length", 4000),
                    choices=tuple(o["value"] for o in menu.get("options") or []))

    async def submit(self, form: Form, text: str, *, forged: bool = False,
                     choice: str | None = None) -> Reply:
        assert forged or len(text) <= form.max_length, "Discord's box takes no more"
        assert choice is None or choice in form.choices, "Discord's menu offers no such value"
        return await self._answered(await self.fake.submit(form.key, text, form.who,
                                                           choice=choice), timeout=60)

    # ------------------------------------------------------------ team packs

    async def add_pack(self, who: str, filename: str, data: bytes, *,
                       declared_size: int | None = None) -> Reply:
        attachment = self.fake.attach(filename, data, declared_size=declared_size)
        # A pack's code runs in a fresh sandbox: the report may take a while.
        return await self._answered(await self.fake.slash("quiz-pack", who, sub="add",
                                                          file=attachment), timeout=120)

    async def pack(self, who: str, verb: str, pack_id: str = "") -> Reply:
        options = {"pack": pack_id} if pack_id else {}
        return await self.command_raw("quiz-pack", who, sub=verb, **options)

    async def command_raw(self, name: str, who: str, **options: Any) -> Reply:
        return await self._answered(await self.fake.slash(name, who, **options))

    def exported(self, reply: Reply, who: str) -> tuple[str, bytes]:
        record = reply.raw
        uploads = [c.data for c in self.fake.calls
                   if c.path == f"/webhooks/{APP_ID}/{record.token}" and c.data]
        assert len(uploads) == 1 and len(uploads[0]) == 1, uploads
        return next(iter(uploads[0].items()))

    def downloads(self) -> int:
        return len(self.fake.downloads)
