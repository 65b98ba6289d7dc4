"""Every reply of every console command, in a Simplified Chinese channel, is Chinese prose."""

from __future__ import annotations

import datetime as dt
import io
import re

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.models import ChannelDefaults, ChannelUpdate
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import ONLY, FakeVerdict, RecordingExecutor
from tests.support.prose import ZH_BANK, ascii_mark_lines, english_lines

MEMBERS = ("alice", "bob")
# What the walk types that is neither a command nor a value: echoed back as typed, these are
# the member's words, not the bot's.
TYPED_NONSENSE = ("autogradd", "zzzzzzzz", "Mars/Base", "nonsense", "bogus", "nosuch",
                  "zzzzqqq", "frobnicate", "sometimes", "fr", "maybe")
CHANNEL = "general"
# The console's own commands (stand-ins for buttons, forms and the scheduler).
OWN = ("/help", "/quit", "/today", "/answer", "/code", "/reveal", "/practice", "/weekly",
       "/report", "/as")


@pytest.fixture
def app(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=ZH_BANK, _env_file=None)
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    executor = RecordingExecutor()
    app = build_app(settings, clock=clock, executor=executor)
    yield app, clock, executor
    app.close()


def _channel(quiz, item_id: str | None):
    """Pin the console's channel to one item; None: to no item at all (no round is posted)."""
    channel = quiz.rounds.channel("console", CHANNEL, "local",
                                  ChannelDefaults(name=CHANNEL, locale="zh-CN"))
    topic, difficulty = ONLY[item_id] if item_id else ("autograd", 3)
    return quiz.rounds.store.update_channel(channel.id, ChannelUpdate(
        topics=(topic,), difficulties=(difficulty,)))


def _session(app, script: str, seen: list[str], who: str = "alice") -> str:
    """Run one console session; ``seen`` gets what was typed, then what was printed."""
    seen.append(script)
    out = io.StringIO()
    console = ConsoleChannel(app.quiz, out, channel_name=CHANNEL, user_name=who,
                             defaults=ChannelDefaults(name=CHANNEL, locale="zh-CN"))
    console.run(iter(script.splitlines(keepends=True)))
    text = out.getvalue()
    seen.append(text)
    return text


def _letter(text: str, option: str) -> str:
    found = re.search(rf"^([A-F])\. `{option}`$", text, re.MULTILINE)
    assert found, text
    return found.group(1)


# What each session types, by the state it walks: no round, an open choice round answered wrong
# and right, reported, revealed; a code round; a text round; practice open, answered, skipped.
NO_ROUND = """\
/help
hello
/bogus
/settings
/today
/answer A
/report
/reveal
/leaderboard
/leaderboard all
/stats
/stats team
/setup
/setup nonsense
/setup topics=autogradd
/setup topics=zzzzzzzz
/setup leaderboard=xyz
/setup time=25:00
/setup tz=Mars/Base
/setup lang=fr
/setup difficulty=9
/setup enabled=maybe
/setup packs=nosuch
/setup bogus=1
/setup leaderboard="fri 16
/explain detach
/explain view-vs-reshape
/explain zzzzqqq
/explain
/quiz
/practice 42
/practice
/report
/report incorrect 这道题答案错了
/report nonsense
/quiz
/quiz skip
/quiz skip
/quiz autograd
/practice
/quiz tensors
/insights
/insights unpause t.text-shape@1
/privacy
/privacy hidden
/privacy visible
/privacy sometimes
/remind
/remind on 9
/remind snooze
/remind off
/remind sometimes
/pack
/pack list
/pack add
/pack add /nonexistent/pack.yaml
/pack remove nosuch
/pack export nosuch
/pack frobnicate
/speed
/speed nosuch
/speed held
/speed release 1
/speed release nosuch
/quiz speed
/quiz speed nosuch
/weekly
/forget-me
/forget-me no
/as
/as bob
/forget-me
/quit
"""


def test_every_console_reply_in_a_chinese_channel_is_chinese(app):
    quiz, clock, executor = app[0].quiz, app[1], app[2]
    seen: list[str] = []
    # No round: no item fits the channel's topics, so nothing is posted.
    _channel(quiz, None)
    _session(app[0], NO_ROUND, seen)
    # An open choice round: a wrong try, the right one, another member, a report, the reveal.
    _channel(quiz, "t.choice-view")
    posted = _session(app[0], "/today\n/quit\n", seen)
    wrong, right = _letter(posted, "view"), _letter(posted, "reshape")
    _session(app[0], f"""\
/answer {wrong}
/answer {right}
/answer {right}
/answer 这不是字母
/answer
/stats
/leaderboard
/report
/report ambiguous 题干不清楚
/report ambiguous 再报一次
/reports
/reports close 999 已处理
/reports close 1 已修正
/reports close
/as bob
/answer {right}
/privacy hidden
/leaderboard
/leaderboard all
/as alice
/code
def f(x):
/today
/reveal
/reveal
/today
/answer {right}
/weekly
/stats team
/insights
/forget-me yes
/forget-me yes
/quit
""", seen)
    # A code round on the next day: one line, several lines, a command ending code early, a
    # failing verdict, then code that never reached /end.
    clock.advance(days=1)
    _channel(quiz, "t.code-double")
    executor.verdict = FakeVerdict("failed", 0, 1, "期望 2，得到 1", "打印的内容\n")
    _session(app[0], "/today\n/code def double(x): return x\n/code\ndef double(x):\n"
                     "    return x\n/today\n/code\ndef double(x):\n    return x\n/end\n/quit\n",
             seen)
    executor.verdict = FakeVerdict("passed", 1, 1)
    _session(app[0], "/code\ndef double(x):\n    return x * 2\n/end\n/stats\n/code\nx = 1\n",
             seen, who="bob")
    # A text round on the day after: wrong, right; then practice opened by the review due.
    clock.advance(days=1)
    _channel(quiz, "t.text-number")
    _session(app[0], "/answer 42\n/answer 3\n/reveal\n/quiz\n/practice 1\n/practice 2\n"
                     "/practice 5\n/stats\n/weekly\n/quit\n", seen, who="bob")
    clock.advance(days=7)
    _session(app[0], "/remind on 9\n/quit\n", seen, who="bob")
    clock.advance(days=1, hours=2)
    _session(app[0], "/help\n/stats\n/quit\n", seen, who="bob")
    # The web page's link, and a live session from the lobby to its podium.
    clock.advance(days=1)
    _session(app[0], "/web\n/live start questions=1 seconds=5 lobby=0\n/live join\n/live\n"
                     "/live answer A\n/quit\n", seen)
    clock.advance(seconds=30)
    _session(app[0], "/live\n/live start questions=1 seconds=5 lobby=0\n/live end\n/quit\n",
             seen, who="bob")

    typed, shown = "\n".join(seen[0::2]), seen[1::2]
    missing = [f"/{c.name('console')}" for c in REGISTRY.on("console")
               if f"/{c.name('console')}" not in typed]
    assert missing == [], "walk every registry command"
    assert [c for c in OWN if c not in typed] == [], "walk every console command"
    # Every reply names the console's own commands, never a chat platform's (/quiz-remind).
    foreign = sorted({m for text in shown for m in re.findall(r"/quiz-[a-z-]+", text)})
    assert foreign == [], "the console named commands it does not take"
    english = english_lines(shown, names=(*MEMBERS, CHANNEL, *TYPED_NONSENSE))
    assert english == [], "English in a Chinese channel:\n" + "\n".join(english)
    marks = ascii_mark_lines(shown)
    assert marks == [], "ASCII punctuation in Chinese prose:\n" + "\n".join(marks)
