"""Live sessions on the terminal channel, scripted line by line against a fake clock."""

import datetime as dt
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, FakeVerdict, RecordingExecutor

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    app = build_app(settings, clock=clock, executor=RecordingExecutor())
    yield app, clock
    app.close()


class Terminal:
    """A console on the app, fed one line at a time; ``text`` is what it printed since."""

    def __init__(self, app):
        self.out = io.StringIO()
        self.console = ConsoleChannel(app.quiz, self.out)
        self.console.start()

    def type(self, *lines: str) -> str:
        start = self.out.tell()
        for line in lines:
            self.console.handle(line, iter(()))
        return self.out.getvalue()[start:]


def _session(app):
    store = app.quiz.live.store
    channel = app.quiz.rounds.find_channel("console", "general")
    return store.active_live(channel.id) or store.get_live(1)


def test_three_players_play_a_session_from_lobby_to_final_board(app):
    terminal = Terminal(app[0])
    shown = terminal.type("/live start questions=2 lobby=0", "/as Bob", "/live join",
                          "/as Carol", "/live join", "/as you")
    assert "== Live quiz ==" in shown and "[Join]" in shown
    assert "== Live · question 1/2" in shown
    shown = terminal.type("/live answer A", "/as Bob", "/live answer A", "/as Carol",
                          "/live answer B")
    assert shown.count("Locked in") == 3
    assert "== Live · answer to question 1/2 ==" in shown
    assert "== Live · question 2/2" in shown
    shown = terminal.type("/as you", "/live answer A", "/as Bob", "/live answer A", "/as Carol",
                          "/live answer A")
    assert "== Live · answer to question 2/2 ==" in shown
    assert "== Live quiz · final board ==" in shown
    assert "count on this session's board only" in shown
    answers = app[0].quiz.live.store.live_answers(_session(app[0]).id)
    assert len(answers) == 6


def test_a_second_answer_to_one_question_is_refused_and_counted_once(app):
    terminal = Terminal(app[0])
    shown = terminal.type("/live start questions=1 lobby=0", "/as Bob", "/live join",
                          "/as you", "/live answer A", "/live answer B")
    assert "already" in shown
    assert len(app[0].quiz.live.store.live_answers(_session(app[0]).id)) == 1


def test_a_second_start_while_one_runs_is_told_and_opens_no_other(app):
    terminal = Terminal(app[0])
    shown = terminal.type("/live start lobby=60", "/live start lobby=0")
    assert shown.count("== Live quiz ==") == 1
    assert "already running" in shown


def test_live_alone_shows_the_state_or_that_there_is_none(app):
    terminal = Terminal(app[0])
    assert "No live session is running" in terminal.type("/live")
    shown = terminal.type("/live start lobby=30", "/live")
    assert "In the lobby; the first question comes at 08:00:30 UTC." in shown
    assert "Players (1): you" in shown


def test_the_first_question_waits_for_the_lobby_to_end(app):
    terminal = Terminal(app[0])
    shown = terminal.type("/live start lobby=30", "/as Bob", "/live join")
    assert "== Live · question" not in shown
    app[1].advance(seconds=30)
    assert "== Live · question 1/" in terminal.type("/live")


def test_skip_reveals_at_once_and_end_posts_the_final_board(app):
    terminal = Terminal(app[0])
    terminal.type("/live start questions=3 lobby=0", "/live")
    shown = terminal.type("/live skip")
    assert "Skipped" in shown and "== Live · answer to question 1/3 ==" in shown
    assert "== Live · question 2/3" in shown
    shown = terminal.type("/live end")
    assert "== Live quiz · final board ==" in shown
    assert "Fewer than 3 players" in shown
    assert "No live session is running" in terminal.type("/live")


def test_a_deadline_passing_between_commands_reveals_at_the_next_tick(app):
    terminal = Terminal(app[0])
    terminal.type("/live start questions=2 lobby=0 seconds=10", "/live")
    app[1].advance(seconds=10)
    shown = terminal.type("/live answer A")
    assert shown.index("answer to question 1/2") < shown.index("Locked in")


def test_a_restarted_console_on_the_same_database_resumes_the_session(app):
    first = Terminal(app[0])
    first.type("/live start questions=2 lobby=0 seconds=10", "/as Bob", "/live join")
    app[1].advance(minutes=3)  # the console was down past the first question's deadline
    again = Terminal(app[0])
    shown = again.out.getvalue()
    assert "== Live · answer to question 1/2 ==" in shown
    assert "== Live · question 2/2" in shown
    assert "Players (2): you, Bob" in again.type("/live")


@pytest.mark.parametrize(("line", "said"), [
    ("/live start questions=31", "questions must be a whole number from 1 to 30"),
    ("/live start seconds=1", "seconds must be a whole number from 5 to 120"),
    ("/live start rounds=3", "I don't know the option rounds=3"),
    ("/live dance", "Use /live start"),
    ("/live answer A", "No question is open right now."),
    ("/live skip", "No live session is running"),
    ("/live start " + "x" * 10_000, "commands take at most 500"),
])
def test_bad_live_input_gets_one_clear_line(app, line, said):
    assert said in Terminal(app[0]).type(line)


def test_a_chinese_channel_runs_its_session_in_chinese(app):
    terminal = Terminal(app[0])
    shown = terminal.type("/setup lang=zh-CN", "/live start questions=1 lobby=0", "/live")
    assert "== 现场竞答 ==" in shown and "[加入]" in shown
    assert "竞答 · 第 1/1 题" in shown


def test_the_host_pauses_and_resumes_from_the_console(app):
    terminal = Terminal(app[0])
    terminal.type("/live start questions=1 lobby=0 seconds=10", "/live")
    shown = terminal.type("/live pause", "/live")
    assert "Paused: the question's clock stopped." in shown and "Paused at question 1/1." in shown
    app[1].advance(minutes=2)
    assert "answer to question" not in terminal.type("/live")
    shown = terminal.type("/live resume")
    assert "Resumed" in shown
    app[1].advance(seconds=10)
    assert "== Live · answer to question 1/1 ==" in terminal.type("/live")


@pytest.mark.slow
def test_a_session_survives_a_kill_9_of_the_console_between_two_questions(tmp_path):
    # Real processes on one database: the first is killed (SIGKILL, nothing cleaned up) with
    # question 1 open; its deadline passes; a fresh console reveals it and posts question 2.
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHQUIZ_")}
    env.update(TORCHQUIZ_DATA_DIR=str(tmp_path), TORCHQUIZ_EXECUTOR="none",
               TORCHQUIZ_CONTENT_DIR=str(BANK), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "bot.cli", "console"]
    first = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    try:
        assert first.stdin is not None and first.stdout is not None
        first.stdin.write("/live start questions=2 lobby=0 seconds=5\n/as Bob\n/live join\n")
        first.stdin.flush()
        seen = ""
        while "You're in" not in seen:
            line = first.stdout.readline()
            assert line, seen  # the console ended before Bob joined
            seen += line
        assert "== Live · question 1/2" in seen
    finally:
        first.kill()  # SIGKILL
        first.wait(timeout=60)
    time.sleep(5.5)  # question 1's deadline passes while no process runs
    again = subprocess.run(command, input="/live\n/quit\n", capture_output=True, text=True,
                           env=env, cwd=ROOT, timeout=120, check=True)
    assert "Traceback" not in again.stdout + again.stderr
    assert "== Live · answer to question 1/2 ==" in again.stdout
    assert "== Live · question 2/2" in again.stdout
    assert "Players (2): me, Bob" in again.stdout


def test_live_code_reads_the_lines_up_to_end_and_is_graded_before_the_reveal(app):
    terminal = Terminal(app[0])
    terminal.type("/setup topics=tensors difficulty=2")  # the sample bank's one code item
    shown = terminal.type("/live start questions=1 lobby=0 code=yes")
    assert "== Live · question 1/1" in shown and "within 90 s" in shown
    start = terminal.out.tell()
    terminal.console.handle("/live code", iter(["def double(x):\n", "    return x * 2\n",
                                                "/end\n"]))
    shown = terminal.out.getvalue()[start:]
    assert "Locked in" in shown and "before the reveal" in shown
    # The only player answered: the question closes, the sandbox's grade comes with the reveal.
    assert "1 of 1 passed the hidden tests" in shown
    executor = app[0].quiz.live.executor
    assert executor.runs == [("t.code-double", "def double(x):\n    return x * 2\n")]
    [answer] = app[0].quiz.live.store.live_answers(_session(app[0]).id)
    assert answer.correct and not answer.pending


def test_a_player_whose_live_code_failed_is_told_why_privately(app):
    # The console's executor records; it is set to fail as the sandbox would (the real
    # sandbox's verdict reaches Discord and Slack players in tests/adapters/chat/test_live.py).
    app[0].quiz.live.executor.verdict = FakeVerdict("failed", 0, 1, "values differ at [0]")
    terminal = Terminal(app[0])
    terminal.type("/setup topics=tensors difficulty=2")
    terminal.type("/live start questions=1 lobby=0 code=yes")
    start = terminal.out.tell()
    terminal.console.handle("/live code", iter(["def double(x):\n", "    return x + 2\n",
                                                "/end\n"]))
    shown = terminal.out.getvalue()[start:]
    assert "0 of 1 passed the hidden tests" in shown, shown
    verdict = shown[shown.index("[private to"):]
    assert "did not pass" in verdict and "values differ at [0]" in verdict, shown
