"""/remind on the console: it stores the setting, and a tick prints the nudge once, privately."""

import datetime as dt

from bot.core.kernel.models import Review
from tests.adapters.test_console import app, run_console  # noqa: F401 - the app fixture

EVENING = dt.datetime(2026, 3, 2, 18, 0, tzinfo=dt.UTC)  # 18:00 in the console channel (UTC)


def test_remind_stores_the_setting_and_a_tick_prints_the_nudge_once(app):  # noqa: F811
    quiz = app[0].quiz
    text = run_console(app[0], "/remind on 18\n/quit\n")
    assert "Reminders on: one private message a day at 18:00 (UTC)" in text
    member = quiz.rounds.member("console", "you", "you")
    at = EVENING - dt.timedelta(hours=3)
    quiz.rounds.store.save_review(Review(
        user_id=member.id, item_id="t.text-detach", state=1, step=0, stability=None,
        difficulty=None, due_at=at, reviewed_at=at, last_correct=False))
    app[1].set(EVENING)
    text = run_console(app[0], "/help\n/help\n/quit\n")
    assert text.count("1 review due · /quiz") == 1
    assert "[private to you]\n== Time to review ==" in text
    assert "[Start]  [Snooze a day]  [Stop reminders]" in text


def test_remind_off_stops_the_nudges(app):  # noqa: F811
    quiz = app[0].quiz
    run_console(app[0], "/remind on 18\n/remind off\n/quit\n")
    member = quiz.rounds.member("console", "you", "you")
    quiz.rounds.store.save_review(Review(
        user_id=member.id, item_id="t.text-detach", state=1, step=0, stability=None,
        difficulty=None, due_at=EVENING, reviewed_at=EVENING, last_correct=False))
    app[1].set(EVENING)
    assert "review due" not in run_console(app[0], "/help\n/quit\n")
