"""The console: /privacy keeps a member off every board, /stats shows ranks, freezes, a chart."""

import datetime as dt
import io
import re

import pytest

from bot.adapters.console.channel import HELP, ConsoleChannel
from bot.bootstrap import build_app
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor


@pytest.fixture
def app(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    app = build_app(settings, clock=clock, executor=RecordingExecutor())
    yield app
    app.close()


def run_console(app, script, **kwargs):
    out = io.StringIO()
    ConsoleChannel(app.quiz, out, **kwargs).run(iter(script.splitlines(keepends=True)))
    return out.getvalue()


def _right_answer(app):
    """Return the console lines that answer today's question right."""
    quiz = app.quiz
    item = quiz.rounds.bank.question(quiz.rounds.store.latest_round(1).item_id)
    if item.kind == "code":
        return "/code\ndef double(x):\n    return x * 2\n/end\n"
    if item.kind == "choice":
        right = next(c.key for c in item.choices if c.correct)
        post = quiz.rounds.latest_post(1)
        letter = next(b.label for b in post.buttons if b.action_id.endswith(":" + right))
        return f"/answer {letter}\n"
    return f"/answer {item.accepted[0]}\n"


def test_a_hidden_member_is_on_no_console_board_and_sees_their_own_place(app, tmp_path):
    run_console(app, "/quit\n")
    answer = _right_answer(app)
    run_console(app, f"/as Zoe\n{answer}/as Bob\n{answer}/as Zoe\n/privacy hidden\n/quit\n")
    charts = tmp_path / "charts"
    text = run_console(app, "/as Bob\n/leaderboard all\n/leaderboard week\n/weekly\n/quit\n",
                       chart_dir=charts)
    boards = text.split("Leaderboard · all time", 1)[1]
    assert "Zoe" not in boards and "Bob" in boards
    assert boards.count("+1 member hidden") == 3  # both boards and the weekly post
    assert len(list(charts.glob("leaderboard-2026-03-02-*.png"))) == 1
    mine = run_console(app, "/as Zoe\n/leaderboard all\n/stats\n/privacy\n/quit\n",
                       chart_dir=charts)
    assert not re.search(r"^\d+\s+Zoe", mine, re.MULTILINE)  # no board row names her
    assert "Rank this week: #1 of 2" in mine and "Freezes held: 0" in mine
    assert "You are hidden from the boards." in mine
    (mastery,) = charts.glob("mastery-*.png")
    assert mastery.read_bytes()[:4] == b"\x89PNG"


def test_two_members_charts_in_a_row_are_two_files_each_with_its_own_chart(app, tmp_path):
    run_console(app, "/quit\n")
    answer = _right_answer(app)
    charts = tmp_path / "charts"
    run_console(app, f"/as Zoe\n{answer}/stats\n/as Bob\n{answer}/stats\n/stats team\n/quit\n",
                chart_dir=charts)
    members = sorted(charts.glob("mastery-*.png"))
    assert len(members) == 2  # Bob's chart did not overwrite Zoe's
    assert members[0].read_bytes() != members[1].read_bytes()  # each titled with its member
    assert len(list(charts.glob("team-mastery-*.png"))) == 1


def test_stats_team_on_the_console(app):
    run_console(app, "/quit\n")
    text = run_console(app, _right_answer(app) + "/stats team\n/quit\n")
    assert "Team mastery · weakest first" in text


def test_the_help_lists_privacy_and_stats_team():
    assert "/privacy [hidden|visible]" in HELP and "/stats [team]" in HELP
