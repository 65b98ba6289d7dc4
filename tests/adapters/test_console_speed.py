"""Speed challenges on the terminal channel: /quiz speed, code until /end, /speed boards."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterator

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.core.kernel.models import SpeedShapeFigure, SpeedVerdictRecord
from bot.settings import Settings
from content.loader import load_bank
from executors.speed.executor import LocalSpeedExecutor
from executors.speed.supervisor import SpeedTimer
from tests.fakes import FakeClock
from tests.support.core import RecordingExecutor
from tests.support.speed import FASTER, ROW_NORMS, running_timer, speed_bank


@pytest.fixture(scope="module")
def speed_timer() -> Iterator[SpeedTimer]:
    with running_timer() as timer:
        yield timer


@pytest.fixture
def app(tmp_path, speed_timer):
    bank_dir = speed_bank(tmp_path)
    settings = Settings(data_dir=tmp_path, content_dir=bank_dir, _env_file=None)
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    app = build_app(settings, clock=clock, executor=RecordingExecutor(),
                    speed_executor=LocalSpeedExecutor(load_bank(bank_dir), timer=speed_timer))
    yield app
    app.close()


class Terminal:
    """A console on the app, fed one line at a time; ``type`` returns what it printed."""

    def __init__(self, app):
        self.out = io.StringIO()
        self.console = ConsoleChannel(app.quiz, self.out)
        self.console.start()

    def type(self, line: str, *following: str) -> str:
        start = self.out.tell()
        self.console.handle(line, iter(following))
        return self.out.getvalue()[start:]


def test_a_speed_challenge_is_served_timed_ranked_and_its_held_verdicts_reviewed(app):
    terminal = Terminal(app)
    listing = terminal.type("/speed")
    assert f"`{ROW_NORMS}`" in listing
    served = terminal.type(f"/quiz speed {ROW_NORMS}")
    assert "Speed challenge speed.test-row-norms" in served and "wide = x.double()" in served
    verdict = terminal.type("/practice", *FASTER.splitlines(), "/end")
    assert "Correct and faster" in verdict and verdict.count("95 % interval") == 3, verdict
    board = terminal.type(f"/speed {ROW_NORMS}")
    assert "1   you" in board
    assert "No speed challenge has that id" in terminal.type("/speed speed.nope")
    assert "No speed challenge has that id" in terminal.type("/quiz speed nope")

    store = app.quiz.speed.store
    member = app.quiz.rounds.member("console", "bob", "Bob")
    channel = app.quiz.rounds.find_channel("console", "general")
    held = store.add_speed_verdict(SpeedVerdictRecord(
        member.id, channel.id, "console:local", ROW_NORMS, 1, "pending", True, True, 40.0,
        (SpeedShapeFigure("small", 60.0, 55.0, 65.0),), "small: above the cap",
        dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)))
    shown = terminal.type("/speed held")
    assert f"#{held} {ROW_NORMS}" in shown and "Bob" in shown
    assert "Use /speed held" in terminal.type("/speed release x")
    assert "Released speed verdict" in terminal.type(f"/speed release {held}")
    assert "Bob" in terminal.type(f"/speed {ROW_NORMS}")
    assert "not waiting for review" in terminal.type(f"/speed reject {held}")
    changes = app.quiz.audit.latest("console", "local")
    assert [c.action for c in changes] == ["speed.release"]


def test_a_daily_speed_round_is_chosen_posted_answered_with_code_and_revealed(app):
    terminal = Terminal(app)
    assert "Unknown kind 'speedy'" in terminal.type("/setup kinds=speedy")
    saved = terminal.type("/setup kinds=speed")
    assert "Settings saved" in saved and "kinds" in saved and "speed" in saved
    app.quiz.rounds.clock.advance(days=1)
    posted = terminal.type("/today")  # the next day's round: the channel's one speed challenge
    assert "Euclidean norm" in posted and "wide = x.double()" in posted, posted
    reply = terminal.type("/code", *FASTER.splitlines(), "/end")
    assert "Correct and faster" in reply and "Today's round: +" in reply, reply
    revealed = terminal.type("/reveal")
    assert "own fast solution" in revealed and "vector_norm" in revealed, revealed
