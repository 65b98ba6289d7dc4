"""/insights in the terminal: the paused question, and /insights unpause ID."""

import datetime as dt
import io

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor

PAUSED = "t.choice-view"


@pytest.fixture
def quiz(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    app = build_app(settings, clock=clock, executor=RecordingExecutor())
    app.quiz.rounds.store.pause_items([(PAUSED, 1)], "suspect_key", clock.now())
    yield app.quiz
    app.close()


def run_console(quiz, script: str) -> str:
    out = io.StringIO()
    ConsoleChannel(quiz, out).run(iter(script.splitlines(keepends=True)))
    return out.getvalue()


def test_insights_lists_the_paused_question_and_unpause_lets_it_back(quiz):
    text = run_console(quiz, f"/insights\n/insights unpause {PAUSED}\n/insights\n/quit\n")
    before, after = text.split("Type /insights unpause ID", 1)
    assert f"⏸ `{PAUSED}` v1" in before
    assert "[Unpause" not in before  # no buttons in a terminal: the command is the button
    assert f"`{PAUSED}` (version 1) is unpaused" in after
    assert "No question is flagged or reported." in after
    assert quiz.rounds.store.paused_items() == set()


def test_the_help_lists_insights(quiz):
    assert "/insights" in run_console(quiz, "/help\n/quit\n")


def test_insights_pause_keeps_a_question_out_of_the_daily_posts(quiz):
    text = run_console(quiz, "/insights pause t.text-detach\n/insights pause\n/quit\n")
    assert "`t.text-detach` (version 1) is paused" in text
    assert "Type /insights alone to see question quality" in text
    assert quiz.rounds.store.paused_items() == {(PAUSED, 1), ("t.text-detach", 1)}
