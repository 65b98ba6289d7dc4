"""Reports, the reveal's distribution and the weekly extras in the terminal channel."""

import datetime as dt
import io

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.core.kernel.models import ChannelUpdate
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.hostile import HOSTILE_STRINGS, invisible_or_control
from tests.support.core import BANK, ONLY, RecordingExecutor


@pytest.fixture
def app(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    clock = FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC))
    app = build_app(settings, clock=clock, executor=RecordingExecutor())
    yield app, clock
    app.close()


def console(app, **kwargs):
    out = io.StringIO()
    quiz = app[0].quiz
    channel = ConsoleChannel(quiz, out, **kwargs)
    topic, difficulty = ONLY["t.choice-view"]
    quiz.rounds.store.update_channel(channel.state.channel.id, ChannelUpdate(
        topics=(topic,), difficulties=(difficulty,)))
    return channel, out


def run(channel, out, script):
    start = out.tell()
    channel.run(iter(script.splitlines(keepends=True)))
    return out.getvalue()[start:]


def letter_of(text, option):
    return next(line.split(".")[0][-1] for line in text.splitlines()
                if line.endswith(f". {option}"))


def test_report_lists_the_reasons_then_files_once(app):
    channel, out = console(app)
    posted = run(channel, out, "/today\n")
    wrong = letter_of(posted, "view")
    text = run(channel, out, f"/answer {wrong}\n/report\n/report incorrect the key is B\n"
                             "/report ambiguous again\n")
    assert "/report REASON [NOTE]" in text  # the feedback's Report button, as a command
    assert "several_correct" in text and "Outdated for today's PyTorch" in text
    assert text.count("Thank you") == 1 and "already reported this version" in text
    [stored] = app[0].quiz.rounds.store.reports()
    assert (stored.reason, stored.note) == ("incorrect", "the key is B")


@pytest.mark.parametrize("name", ["ansi", "bidi", "everyone", "c1-control", "zero-width"])
def test_the_admins_list_shows_a_hostile_note_inert(app, name):
    channel, out = console(app)
    run(channel, out, f"/report other {HOSTILE_STRINGS[name]}\n")
    text = run(channel, out, "/reports\n")
    assert "Open question reports" in text and "#1 · t.choice-view v1 · Something else" in text
    assert invisible_or_control(text) == [] and "\x1b" not in text


def test_the_reveal_and_the_weekly_post_show_what_the_answers_taught(app):
    channel, out = console(app)
    posted = run(channel, out, "/today\n")
    wrong, right = letter_of(posted, "view"), letter_of(posted, "reshape")
    run(channel, out, f"/answer {wrong}\n/as bob\n/answer {wrong}\n/as cy\n/answer {right}\n")
    text = run(channel, out, "/reveal\n/weekly\n")
    assert "First tries: " in text and f"{wrong} 2" in text and f"{right} 1" in text
    assert "Misconception of the week: 2 members first picked “view”" in text
    assert "Why it is wrong: view never copies." in text
    assert "Hardest question of the week: Which call may copy? · 33% right" in text


def test_a_week_with_one_answer_has_no_extras(app):
    channel, out = console(app)
    posted = run(channel, out, "/today\n")
    text = run(channel, out, f"/answer {letter_of(posted, 'view')}\n/reveal\n/weekly\n")
    assert "Misconception" not in text and "Hardest" not in text


def test_an_admin_closes_a_report_with_the_command_the_listing_names(app):
    channel, out = console(app)
    run(channel, out, "/report outdated uses the old API\n")
    text = run(channel, out, "/quiz-reports close 1 fixed in version 2\n/reports\n")
    assert "Report #1 is closed" in text and "No open reports" in text


def test_report_files_the_question_the_reporting_member_was_shown_not_anothers(app):
    channel, out = console(app)
    store = app[0].quiz.rounds.store
    # alice answers a practice question: its feedback's Report button was shown to her alone.
    text = run(channel, out, "/as alice\n/quiz tensors\n/practice (9, 9, 9)\n")
    assert "/report REASON [NOTE]" in text
    run(channel, out, "/as bob\n/report incorrect not what I saw\n")
    [stored] = store.reports()
    # bob reported the question the channel showed him (today's round), not her practice one.
    assert stored.round_id is not None and stored.item_id == "t.choice-view"
    run(channel, out, "/as alice\n/report ambiguous mine\n")
    practised = [r for r in store.reports() if r.round_id is None]
    assert [r.note for r in practised] == ["mine"]
