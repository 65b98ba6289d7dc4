"""The terminal channel, scripted, on a real SQLite database."""

import datetime as dt
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.settings import Settings
from safetext.inert import inert
from tests.fakes import FakeClock
from tests.hostile import HOSTILE_STRINGS, invisible_or_control
from tests.support.core import BANK, RecordingExecutor

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    app = build_app(settings, clock=clock, executor=RecordingExecutor())
    yield app, clock
    app.close()


def run_console(app, script: str, **kwargs) -> str:
    out = io.StringIO()
    console = ConsoleChannel(app.quiz, out, **kwargs)
    console.run(iter(script.splitlines(keepends=True)))
    return out.getvalue()


def test_start_posts_todays_question_to_the_channel(app):
    text = run_console(app[0], "/quit\n")
    assert "[#general]" in text and "Daily PyTorch question · 2026-03-02" in text


def test_today_shows_the_same_question_again_without_posting_twice(app):
    text = run_console(app[0], "/today\n/today\n")
    assert text.count("Daily PyTorch question") == 3
    assert len(app[0].quiz.rounds.store.round_dates(1)) == 1


def test_scripted_session_answers_and_reaches_the_leaderboard(app):
    quiz = app[0].quiz
    text = run_console(app[0], "/quit\n")
    rnd = quiz.rounds.store.latest_round(1)
    item = quiz.rounds.bank.question(rnd.item_id)
    answer = {"choice": "B", "text": item.accepted[0] if item.kind == "text" else ""}.get(item.kind)
    script = f"/answer {answer}\n/as Bob\n/answer {answer}\n/leaderboard all\n/stats\n/quit\n"
    if item.kind == "code":
        script = "/code\ndef double(x):\n    return x * 2\n/end\n/leaderboard all\n/quit\n"
    text = run_console(app[0], script)
    assert "[private to you]" in text
    assert "Leaderboard · all time" in text
    assert "you" in text.split("Leaderboard · all time")[1]


def test_bad_input_gets_one_line_and_the_console_keeps_running(app):
    text = run_console(app[0], "/bogus\nhello\n/answer\n/answer " + "x" * 100_000
                       + "\n/as\n/setup nonsense\n/explain detach\n/quit\n")
    assert "Unknown command '/bogus'" in text
    assert "Commands start with '/'" in text
    assert "Your answer is empty." in text
    assert "too long (100000 characters" in text
    assert "Usage: /as NAME" in text
    assert "Settings are key=value" in text
    assert "Cuts a tensor from the graph." in text  # still running after all of that


def test_setup_takes_the_leaderboard_slot_as_the_readme_writes_it(app):
    text = run_console(app[0], "/setup leaderboard=fri 16 time=08:15\n/setup\n/quit\n")
    assert "Settings saved" in text and "Settings are key=value" not in text
    assert re.search(r"leaderboard\W+fri 16", text) and "08:15" in text


def test_several_people_play_in_one_terminal(app):
    text = run_console(app[0], "/as Alice Smith\n/stats\n/quit\n")
    assert "You are now Alice Smith." in text and "Stats · Alice Smith" in text


def test_setup_switches_the_channel_to_chinese(app):
    text = run_console(app[0], "/setup lang=zh-CN\n/explain detach\n/quit\n")
    assert "设置已保存。" in text and "把张量从计算图中分离。" in text


def test_reveal_closes_the_round_in_its_thread(app):
    text = run_console(app[0], "/reveal\n/answer B\n/quit\n")
    assert "[#general › thread]" in text
    assert "This round is closed." in text


def test_today_after_the_reveal_shows_the_round_closed_without_asking_for_an_answer(app):
    text = run_console(app[0], "/reveal\n/today\n/quit\n")
    after = text.split("== Answer ·", 1)[1]
    shown_again = after.split("== Daily PyTorch question", 1)[1]
    assert "This round is closed: the answer and why are in the reveal." in shown_again
    assert "Pick an option below" not in shown_again
    assert "closes " not in shown_again and "closed" in shown_again
    assert "[A]" not in shown_again  # no buttons on a closed round


def test_a_restarted_console_shows_todays_question_again(app):
    run_console(app[0], "/quit\n")
    again = run_console(app[0], "/quit\n")
    assert "Daily PyTorch question · 2026-03-02" in again
    assert len(app[0].quiz.rounds.store.round_dates(1)) == 1  # shown, not posted twice


def test_next_day_reveals_yesterday_and_posts_a_new_question(app):
    run_console(app[0], "/quit\n")
    app[1].advance(days=1)
    text = run_console(app[0], "/quit\n")
    assert "Answer · 2026-03-02" in text and "Daily PyTorch question · 2026-03-03" in text


_README_SCRIPT = re.compile(r"^printf '([^']*)' \| \.venv/bin/torchquiz console(.*)$", re.M)


@pytest.mark.slow
def test_the_readmes_console_examples_run_as_written_one_after_the_other(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHQUIZ_")}
    env.update(TORCHQUIZ_DATA_DIR=str(tmp_path), TORCHQUIZ_EXECUTOR="none")
    examples = _README_SCRIPT.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(examples) == 2, "the README's English and Chinese console examples"
    # A newcomer's first run spends no daily try on a blind answer.
    assert [s for s, _ in examples if "/answer" in s or "/code" in s] == []
    outputs = []
    for script, arguments in examples:  # one database, in order, as a reader runs them
        result = subprocess.run(
            [sys.executable, "-m", "bot.cli", "console", *arguments.split()],
            input=script.replace("\\n", "\n"), capture_output=True, text=True, env=env,
            cwd=ROOT, timeout=120, check=True,
        )
        assert "Traceback" not in result.stdout + result.stderr
        assert "Unknown command" not in result.stdout and "未知命令" not in result.stdout
        outputs.append(result.stdout)
    english, chinese = outputs
    assert "== Practice · autograd ==" in english and "Leaderboard · all time" in english
    assert "== 练习 · 自动求导 ==" in chinese and "排行榜 · 总榜" in chinese
    assert "[#学习小组]" in chinese
    assert (tmp_path / "torchquiz.sqlite3").exists()


@pytest.mark.sandbox
@pytest.mark.slow
def test_code_answer_is_graded_by_the_real_sandbox_end_to_end(tmp_path):
    import yaml

    from content.loader import load_bank

    # A bank holding one shipped code challenge, so today's question is certainly that one.
    item = load_bank().question("code.masked-mean")
    bank_dir = tmp_path / "bank"
    (bank_dir / "questions").mkdir(parents=True)
    (bank_dir / "explain").mkdir()
    data = item.model_dump(mode="json", by_alias=True)
    data["explain_links"] = []
    (bank_dir / "questions" / "one.yaml").write_text(yaml.safe_dump({"items": [data]}))
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    app = build_app(Settings(data_dir=tmp_path, content_dir=bank_dir), clock=clock)
    try:
        assert app.executor is not None, app.executor_problem
        wrong = "import torch\ndef masked_mean(x, mask):\n    return x.mean(dim=1)\n"
        script = "/code\n" + wrong + "/end\n/code\n" + item.code.solution + "/end\n/quit\n"
        text = run_console(app, script)
    finally:
        app.close()
    assert "failed: 1/5 hidden tests passed" in text and "values differ" in text
    assert "All 5 hidden tests passed" in text and "+17" in text  # second try, level 2


def test_terminal_escapes_in_output_are_neutralised():
    from bot.adapters.console.text import render
    from bot.core.kernel.messages import Message

    text = render(Message(body="ok", code="\x1b[2J\x1b]0;pwned\x07 done\n"), channel="c", user="u")
    assert "\x1b" not in text and "\x07" not in text and "done" in text


@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_console_shows_what_code_produced_inert(name):
    from bot.adapters.console.text import render
    from bot.core.kernel.messages import Message

    hostile = HOSTILE_STRINGS[name]
    text = render(Message(body="Not quite.", detail=hostile, output=hostile),
                  channel="general", user="alice")
    assert invisible_or_control(text) == []
    text.encode("utf-8")
    detail_line = text.splitlines()[2]
    assert detail_line.startswith(inert(hostile, one_line=True)[:20])  # kept on its own line


def test_forget_me_shows_what_goes_and_deletes_only_after_yes(app):
    quiz = app[0].quiz
    run_console(app[0], "/quit\n")
    rnd = quiz.rounds.store.latest_round(1)
    item = quiz.rounds.bank.question(rnd.item_id)
    answer = {"choice": "B", "text": item.accepted[0] if item.kind == "text" else "x"}.get(
        item.kind, "x")
    text = run_console(app[0], f"/as Bob\n/answer {answer}\n/as you\n/answer {answer}\n"
                               "/forget-me\n/stats\n/forget-me yes\n/forget-me yes\n/quit\n")
    preview, after = text.split("Delete your quiz data?")[1].split("Type /forget-me yes", 1)
    assert "1 answer" in preview
    assert "Delete my data" not in preview  # the terminal has no buttons: /forget-me yes is one
    # Today's round is open: the answer stays without its member, the rest goes.
    assert "Deleted your totals in 1 channel" in after
    assert "you go on from your next try" in after
    assert "Nothing is stored about you: there is nothing to delete." in after
    store = quiz.rounds.store
    assert store.member_data("console", "you") is None
    assert store.member_data("console", "bob").counts()["answers"] == 1
    assert [r.display_name for r in store.scores(1)] == ["Bob"]


def test_the_help_lists_forget_me(app):
    assert "/forget-me" in run_console(app[0], "/help\n/quit\n")


def test_quiz_skip_in_the_console_reveals_the_open_question_and_serves_the_next(app):
    quiz = app[0].quiz
    run_console(app[0], "/quiz autograd\n/quit\n")
    member = quiz.rounds.member("console", "you", "you")
    skipped = quiz.rounds.store.current_practice(member.id).item_id
    text = run_console(app[0], "/quiz\n/quiz skip\n/quit\n")
    assert "Still open" in text and "/quiz skip" in text and "[Skip]" not in text
    assert "Skipped: it counts as a miss" in text and "Answer:" in text
    assert quiz.rounds.store.current_practice(member.id).item_id != skipped
    assert not quiz.rounds.store.get_review(member.id, skipped).last_correct


# Code input: one line after /code, or lines up to /end; a command line never becomes code.

def _code_today(app):
    from tests.support.core import only

    quiz = app[0].quiz
    channel = quiz.rounds.channel("console", "general", "local")
    only(quiz, channel, "t.code-double")
    return quiz.rounds.bank.question("t.code-double")


def test_code_on_the_code_line_itself_is_sent(app):
    _code_today(app)
    text = run_console(app[0], "/code def double(x): return x * 2\n/leaderboard all\n/quit\n")
    assert app[0].executor.runs == [("t.code-double", "def double(x): return x * 2\n")]
    assert "+25" in text and "Leaderboard · all time" in text


def test_code_up_to_end_is_sent_as_typed(app):
    _code_today(app)
    run_console(app[0], "/code\ndef double(x):\n    return x * 2\n/end\n/quit\n")
    assert app[0].executor.runs == [("t.code-double", "def double(x):\n    return x * 2\n")]


def test_a_command_line_ends_code_input_without_sending_and_runs(app):
    _code_today(app)
    text = run_console(app[0], "/code\ndef double(x):\n    return x * 2\n/leaderboard all\n"
                               "/quit\n")
    assert app[0].executor.runs == []
    assert "/leaderboard is a command: the code above was not sent." in text
    assert "Leaderboard · all time" in text  # the command ran instead of vanishing into code


def test_input_that_ends_before_end_sends_no_code(app):
    _code_today(app)
    text = run_console(app[0], "/code\ndef double(x):\n")
    assert app[0].executor.runs == []
    assert "the code was not sent" in text


def test_code_that_does_not_compile_is_refused_in_the_console_without_a_try(app):
    _code_today(app)
    text = run_console(app[0], "/code def double(x): return x *\n/code\ndef double(x):\n"
                               "    return x * 2\n/end\n/quit\n")
    assert "does not compile (line 1, column" in text
    assert "+25" in text  # the refused line used no try: the right answer is a first try
