"""The terminal channel: read commands from a stream, call the core, print what a channel sees.

It reads stdin line by line, so a script can pipe commands into `torchquiz console`.
"""

from __future__ import annotations

import datetime as dt
import logging
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from bot.adapters.console.text import render, render_delivery
from bot.core.channels.setup import SettingError, parse_setup_text
from bot.core.desk import Desk, Reply
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.i18n import PLATFORMS, speaking_to, t
from bot.core.kernel.messages import (
    Audience,
    Message,
    Tone,
    parse_action,
    report_action,
    submit_id,
    unpause_action,
)
from bot.core.kernel.models import Actor, AnswerMode, ChannelDefaults, ChannelSettings, Identity
from bot.core.kernel.ports import PackTools
from bot.core.quiz import Quiz
from content.packs import MAX_PACK_BYTES

log = logging.getLogger(__name__)

PLATFORM = "console"
CODE_END = "/end"
# The console has no scheduler: it grades answers that waited for an executor at most this
# often, when a command arrives (the bot's scheduler does it every 30 s).
PENDING_EVERY = dt.timedelta(seconds=30)
# The console's own commands: stand-ins for the buttons and the scheduler a chat has, each
# as (what to type: a command or a sentence key of its usage, the sentence key of what it does).
# Every other command comes from the registry (bot/core/kernel/commands.py), as the console
# names it.
_OWN_HELP = (
    ("/today", "console.help.today"),
    ("console.usage.answer", "console.help.answer"),
    ("console.usage.code", "console.help.code"),
    ("/reveal", "console.help.reveal"),
    ("console.usage.practice", "console.help.practice"),
    ("/weekly", "console.help.weekly"),
    ("console.usage.report", "console.help.report"),
)
_OWN_TAIL = (("console.usage.as", "console.help.as"), ("/help", "console.help.help"),
             ("/quit", "console.help.quit"))


def _width(text: str) -> int:
    """Return how many terminal columns ``text`` takes (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def help_text(locale: str = "en") -> str:
    """Return the console's /help listing in ``locale``."""
    with speaking_to(PLATFORM):  # the help sentences name the console's commands
        own = [(usage if usage.startswith("/") else t(locale, usage), t(locale, key))
               for usage, key in (*_OWN_HELP, *_OWN_TAIL)]
        shared = [(f"/{c.name(PLATFORM)} {c.usage.get(PLATFORM, '')}".strip(),
                   t(locale, c.help_key)) for c in REGISTRY.on(PLATFORM)]
    # A usage's placeholders (TOPIC, ID) are typed as shown: Chinese shows it as code.
    if locale != "en":
        shared = [(f"`{usage}`", text) for usage, text in shared]
    lines = [f"  {usage}{' ' * (23 - _width(usage))}{text}" if _width(usage) < 23
             else f"  {usage}  {text}"
             for usage, text in (*own[:len(_OWN_HELP)], *shared, *own[len(_OWN_HELP):])]
    return t(locale, "console.help.title") + "\n" + "\n".join(lines)


HELP = help_text()


@dataclass
class ConsoleState:
    """Who is typing and in which channel."""

    channel: ChannelSettings
    user_name: str


class ConsoleChannel:
    """Drive the quiz core from a terminal; every command is one core call and one render."""

    def __init__(self, quiz: Quiz, out: TextIO, *, channel_name: str = "general",
                 user_name: str = "you", code_problem: str = "",
                 defaults: ChannelDefaults | None = None,
                 chart_dir: Path | None = None, packs: PackTools | None = None) -> None:
        self.quiz = quiz
        self.desk = Desk(quiz, packs)
        self.out = out
        self.code_problem = code_problem
        self.chart_dir = chart_dir
        channel = quiz.rounds.channel(PLATFORM, channel_name, "local",
                                      defaults or ChannelDefaults(name=channel_name))
        self.state = ConsoleState(channel, user_name)
        self._tried_posting_on: dt.date | None = None
        # The last Report button each member saw (key: the member; "": one the channel saw),
        # with when it was shown: /report files what the reporting member was shown last.
        self._report_targets: dict[str, tuple[int, str]] = {}
        self._shown = 0
        self._graded_pending_at: dt.datetime | None = None
        self._again: list[str] = []  # a command line that ended code input, to run next

    # -------------------------------------------------------------- plumbing
    def _who(self) -> Identity:
        name = self.state.user_name
        # Whoever sits at the terminal owns the console workspace, so they are its admin.
        return Identity(platform=PLATFORM, workspace="local",
                        channel=self.state.channel.external_id, user=name.casefold(),
                        display_name=name, locale=None, is_admin=True,
                        channel_name=self.state.channel.name)

    def _actor(self) -> Actor:
        member = self.quiz.rounds.member(PLATFORM, self.state.user_name.casefold(),
                                         self.state.user_name)
        return Actor(member, is_admin=True)

    def show_reply(self, reply: Reply) -> None:
        """Print the core's reply; a changed tally is printed as the channel would see it."""
        if reply.message is not None:
            self.show(reply.message)
        if reply.redraw_round is not None:
            tally = self.quiz.rounds.tally_line(reply.redraw_round, self._locale())
            self.show(Message(body=tally, audience=Audience.CHANNEL))

    def show(self, message: Message) -> None:
        """Print a message the way the channel would show it (images go to files)."""
        self._shown += 1
        seen_by = (self.state.user_name.casefold() if message.audience == Audience.PRIVATE
                   else "")
        for button in message.buttons:
            parsed = parse_action(button.action_id)
            if parsed is not None and parsed[0] in ("report", "preport"):
                self._report_targets[seen_by] = (self._shown, button.action_id)
        image_path = None
        if message.image_png and self.chart_dir is not None:
            self.chart_dir.mkdir(parents=True, exist_ok=True)
            path = self.chart_dir / (message.image_name or "image.png")
            path.write_bytes(message.image_png)
            image_path = str(path)
        text = render(message, channel=self.state.channel.name or self.state.channel.external_id,
                      user=self.state.user_name, image_path=image_path, locale=self._locale())
        print(text + "\n", file=self.out, flush=True)

    def say(self, text: str, tone: Tone = Tone.INFO) -> None:
        """Print a short private reply."""
        self.show(Message(body=text, tone=tone))

    def tell(self, key: str, tone: Tone = Tone.INFO, **values: object) -> None:
        """Print the sentence ``key`` in the channel's language as a short private reply."""
        self.say(t(self._locale(), key, **values), tone)

    def _refresh_channel(self) -> ChannelSettings:
        self.state.channel = self.quiz.rounds.get_channel(self.state.channel.id)
        return self.state.channel

    # -------------------------------------------------------------- the loop
    def start(self) -> None:
        """Greet, post today's question if it is not out yet, and reveal finished rounds."""
        with speaking_to(PLATFORM):
            self._start()

    def _start(self) -> None:
        print(t(self._locale(), "console.greeting"), file=self.out)
        if self.code_problem:
            print(t(self._locale(), "console.no_grading", problem=self.code_problem),
                  file=self.out)
        print(file=self.out, flush=True)
        self.tick()

    def tick(self) -> None:
        """Do what the scheduler would have done by now: deliver results, reveal, post today's."""
        self.deliver_pending()
        self.remind()
        for reveal in self.quiz.rounds.close_due_rounds(PLATFORM):
            if reveal.channel.id == self.state.channel.id:
                self.show(reveal.message)
        self.advance_live()
        today = self.quiz.rounds.local_date(self.state.channel)
        if today == self._tried_posting_on:
            return
        restarted = self._tried_posting_on is None
        self._tried_posting_on = today
        post = self.quiz.rounds.post_round(self.state.channel.id)
        if post is not None:
            self.quiz.rounds.round_posted(post.round.id, f"console:{post.round.id}")
            self.show(post.message)
        elif restarted and (current := self.quiz.rounds.latest_post(self.state.channel.id)):
            # Today's question went out before this console started: the channel still
            # shows it (open, or closed with its reveal), so the terminal does too.
            self.show(current)

    def advance_live(self) -> None:
        """Post what live sessions are due to post by now: questions, reveals, final boards."""
        for post in self.quiz.live.advance(PLATFORM):
            if post.channel.id != self.state.channel.id:
                continue
            if post.private is not None:  # one player's code verdict, to them alone
                print(render_delivery(post.private, self._locale()) + "\n", file=self.out,
                      flush=True)
            else:
                self.show(post.message)

    def deliver_pending(self) -> None:
        """Grade answers that waited for an executor and print each result to its member."""
        now = self.quiz.rounds.now()
        if self._graded_pending_at is not None and now - self._graded_pending_at < PENDING_EVERY:
            return
        self._graded_pending_at = now
        for delivery in self.quiz.rounds.grade_pending(PLATFORM):
            print(render_delivery(delivery, self._locale()) + "\n", file=self.out, flush=True)

    def remind(self) -> None:
        """Print the review reminders whose time came, each to its member, as DMs would go."""
        for nudge in self.quiz.reminders.due(PLATFORM):
            print(render(nudge.message, channel="direct message", user=nudge.member_external_id,
                         locale=self._locale()) + "\n", file=self.out, flush=True)

    def run(self, lines: Iterator[str]) -> None:
        """Run commands until /quit or the end of input."""
        self.start()
        for raw in self._lines(lines):
            line = raw.rstrip("\r\n")
            if not line.strip():
                continue
            try:
                if not self.handle(line, lines):
                    break
            except Exception:
                log.exception("console command failed channel=%s user=%s",
                              self.state.channel.id, self.state.user_name)
                self.tell("error.internal", Tone.ERROR)

    def _lines(self, source: Iterator[str]) -> Iterator[str]:
        """Yield the input's lines, and again a command line that ended code input early."""
        for raw in source:
            yield raw
            while self._again:
                yield self._again.pop()

    def handle(self, line: str, lines: Iterator[str]) -> bool:
        """Handle one command line; return False to stop."""
        with speaking_to(PLATFORM):  # every sentence names the console's commands
            return self._handle(line, lines)

    def _handle(self, line: str, lines: Iterator[str]) -> bool:
        self.tick()
        command, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        command = command.lower()
        if not command.startswith("/"):
            self.tell("console.not_command", Tone.WARNING)
            return True
        handler = self._handlers().get(command)
        if handler is None:
            self.tell("console.unknown", Tone.WARNING, command=command[:40])
            return True
        if command == "/quit":
            return False
        handler(rest, lines)
        return True

    def _handlers(self) -> dict[str, Callable[[str, Iterator[str]], None]]:
        own: dict[str, Callable[[str, Iterator[str]], None]] = {
            "/help": self._help,
            "/quit": self._help,  # never called: the loop stops before dispatching /quit
            "/today": self._today, "/answer": self._answer, "/code": self._code,
            "/reveal": self._reveal, "/practice": self._practice, "/weekly": self._weekly,
            "/report": self._report, "/as": self._as,
        }
        # Commands the terminal words its own way (no buttons, no forms, no files); every other
        # command of the registry goes to the desk as typed.
        by_key: dict[str, Callable[[str, Iterator[str]], None]] = {
            "quiz": self._quiz, "stats": self._stats, "settings": self._setup,
            "forget-me": self._forget_me, "insights": self._insights, "pack": self._pack,
            "live": self._live,
        }
        # Every front end's name of a command works here (a pasted chat hint too); the
        # console's own name first.
        shared = {f"/{c.name(p)}": by_key.get(c.key) or self._command(c.key)
                  for p in reversed(PLATFORMS) for c in REGISTRY.on(p)}
        return {**shared, **own}

    # -------------------------------------------------------------- commands
    def _command(self, key: str) -> Callable[[str, Iterator[str]], None]:
        """Return the handler of a registry command the console takes as typed."""
        def run(rest: str, lines: Iterator[str]) -> None:
            self.show_reply(self.desk.command(self._who(), key, rest))
        return run

    def _help(self, rest: str, lines: Iterator[str]) -> None:
        print(help_text(self._locale()) + "\n", file=self.out, flush=True)

    def _locale(self) -> str:
        return self.state.channel.locale

    def _today(self, rest: str, lines: Iterator[str]) -> None:
        post = self.quiz.rounds.latest_post(self.state.channel.id)
        if post is None:
            self.tell("console.no_post", Tone.WARNING)
            return
        self.show(post)

    def _answer(self, rest: str, lines: Iterator[str], mode: AnswerMode = AnswerMode.TEXT) -> None:
        self.show_reply(self.desk.answer_today(self._who(), rest, mode))

    def _read_code(self, lines: Iterator[str]) -> str | None:
        """Return the code typed up to a line ``/end``; None when it was not sent.

        Python never starts a line with a console command, so a line that does (``/today``,
        ``/quit``) means the member moved on: the code is dropped, said so, and the command
        runs. The end of input without ``/end`` sends nothing either.
        """
        print(t(self._locale(), "console.code_prompt", end=CODE_END), file=self.out, flush=True)
        body: list[str] = []
        for raw in lines:
            line = raw.rstrip("\r\n")
            if line.strip() == CODE_END:
                return "\n".join(body) + "\n"
            first = line.strip().partition(" ")[0].lower()
            if line.startswith("/") and first in self._handlers():
                self.tell("console.code_dropped", Tone.WARNING, command=first, end=CODE_END)
                self._again.append(raw)
                return None
            body.append(line)
        self.tell("console.code_unended", Tone.WARNING, end=CODE_END)
        return None

    def _code(self, rest: str, lines: Iterator[str]) -> None:
        # "/code def f(x): return x" sends that one line; "/code" alone reads until /end.
        code = rest + "\n" if rest else self._read_code(lines)
        if code is not None:
            self._answer(code, lines, AnswerMode.CODE)

    def _reveal(self, rest: str, lines: Iterator[str]) -> None:
        result = self.quiz.rounds.reveal_now(self.state.channel.id, self._actor())
        self.show(result if isinstance(result, Message) else result.message)

    def _quiz(self, rest: str, lines: Iterator[str]) -> None:
        if rest.casefold() == "skip":  # the Skip button of chat platforms
            self.show_reply(self.desk.practice_skip(self._who()))
            return
        self.show_reply(self.desk.command(self._who(), "quiz", rest))

    def _practice(self, rest: str, lines: Iterator[str]) -> None:
        if rest:
            self.show_reply(self.desk.practice_answer(self._who(), rest, AnswerMode.TEXT))
            return
        code = self._read_code(lines)
        if code is not None:
            self.show_reply(self.desk.practice_answer(self._who(), code, AnswerMode.CODE))

    def _weekly(self, rest: str, lines: Iterator[str]) -> None:
        self.show(self.quiz.board.weekly_post(self._refresh_channel().id).message)

    def _stats(self, rest: str, lines: Iterator[str]) -> None:
        self.show_reply(self.desk.command(self._who(), "stats", rest))

    def _setup(self, rest: str, lines: Iterator[str]) -> None:
        try:
            changes = parse_setup_text(rest)  # the chat's parser: the same forms, the same words
        except SettingError as exc:
            self.say(exc.text(self._locale()), Tone.WARNING)
            return
        self.show_reply(self.desk.settings(self._who(), "", "", changes))
        self._refresh_channel()

    def _live(self, rest: str, lines: Iterator[str]) -> None:
        # As typed, then at once what it made due (a skip's reveal, the last answer's close).
        if rest.strip().lower() == "code":  # as /code: the lines up to /end answer the question
            code = self._read_code(lines)
            if code is not None:
                self.show_reply(self.desk.live_code(self._who(), code))
        else:
            self.show_reply(self.desk.command(self._who(), "live", rest))
        self.advance_live()

    def _forget_me(self, rest: str, lines: Iterator[str]) -> None:
        # The terminal has no buttons: typing "yes" is the confirmation, for whoever plays now.
        confirmed = rest.strip().lower() == "yes"
        reply = self.desk.forget_me(self._who(), confirmed=confirmed)
        if confirmed or reply.message is None or not reply.message.buttons:
            self.show_reply(reply)
            return
        self.show_reply(replace(reply, message=replace(reply.message, buttons=())))
        self.tell("console.forget_confirm")

    def _report(self, rest: str, lines: Iterator[str]) -> None:
        # As a chat's Report button would: open the form of the last question this member was
        # shown (privately, or in the channel), and fill it.
        mine = self._report_targets.get(self.state.user_name.casefold(), (0, ""))
        target = max(mine, self._report_targets.get("", (0, "")))[1]
        if not target:
            latest = self.quiz.rounds.latest_post(self.state.channel.id)
            if latest is None or latest.round_id is None:
                self.tell("console.report_none", Tone.WARNING)
                return
            target = report_action(latest.round_id)
        opened = self.desk.click(self._who(), target)
        if opened.form is None:
            self.show_reply(opened)
            return
        reason, _, note = rest.partition(" ")
        if not reason:
            # The values are typed as shown: Chinese shows them as code.
            quote = "`" if self._locale() != "en" else ""
            choices = "\n".join(f"  {quote + value + quote:<18} {label}"
                                 for value, label in opened.form.choices)
            head = t(self._locale(), "console.report_reasons", title=opened.form.title)
            self.say(f"{head}\n{choices}")
            return
        self.show_reply(self.desk.submit(self._who(), submit_id(opened.form), note.strip(),
                                         choice=reason))

    def _insights(self, rest: str, lines: Iterator[str]) -> None:
        # The terminal has no buttons: "/insights unpause ID" is the unpause button's click.
        words = rest.split()
        if len(words) == 2 and words[0].lower() == "unpause":
            self.show_reply(self.desk.click(self._who(), unpause_action(words[1])))
            return
        reply = self.desk.command(self._who(), "insights", rest)
        if reply.message is None or not reply.message.buttons:
            self.show_reply(reply)
            return
        self.show_reply(replace(reply, message=replace(reply.message, buttons=())))
        self.tell("console.insights_unpause")

    def _pack(self, rest: str, lines: Iterator[str]) -> None:
        # The same desk methods as /quiz-pack in chat; the upload is a file on this machine.
        words = rest.split(maxsplit=1)
        if words and words[0].lower() == "add":
            self._pack_add(words[1].strip() if len(words) > 1 else "")
            return
        answer = self.desk.pack_command(self._who(), rest)
        self.show_reply(answer.reply)
        if answer.file_name:
            self._save_export(answer.file_name, answer.file_data)

    def _pack_add(self, path_text: str) -> None:
        if not path_text:
            self.tell("console.pack_usage", Tone.WARNING)
            return
        path = Path(path_text).expanduser()
        try:
            size = path.stat().st_size
        except OSError as exc:
            self.tell("console.cannot_read", Tone.WARNING, path=path_text[:200],
                      error=exc.strerror)
            return
        refusal = self.desk.pack_upload_refusal(self._who(), path.name, size)
        if refusal is not None:
            self.show_reply(refusal)
            return
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_PACK_BYTES + 1)  # one byte past the limit: refused
        except OSError as exc:
            self.tell("console.cannot_read", Tone.WARNING, path=path_text[:200],
                      error=exc.strerror)
            return
        self.say(t(self._locale(), "pack.checking"))
        self.show_reply(self.desk.pack_add(self._who(), path.name, data))

    def _save_export(self, name: str, data: bytes) -> None:
        folder = (self.chart_dir.parent if self.chart_dir is not None else Path(".")) / "packs"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name  # the name is built from a checked pack id and a number
        target.write_bytes(data)
        self.tell("console.saved_to", path=target)

    def _as(self, rest: str, lines: Iterator[str]) -> None:
        name = " ".join(rest.split())[:40]
        if not name or not name.isprintable():
            self.tell("console.as_usage", Tone.WARNING)
            return
        self.state.user_name = name
        self.tell("console.you_are", name=name)
