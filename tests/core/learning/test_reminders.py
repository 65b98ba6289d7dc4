"""Review reminders on a real database: opt-in, once a day at the member's hour, private."""

import datetime as dt
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import event

from bot.core.desk import Desk
from bot.core.kernel.messages import Audience, parse_action
from bot.core.kernel.models import Identity, Review
from bot.core.learning.reminders import ReminderService, next_time, parse_command
from db.engine import make_engine
from db.store import SqlStore
from tests.fakes import FakeClock

BERLIN = "Europe/Berlin"
# The test clock starts on Monday 2026-03-02 at 08:00 UTC, 09:00 in Berlin (the channel's zone).
EVENING = dt.datetime(2026, 3, 2, 17, 0, tzinfo=dt.UTC)  # 18:00 in Berlin


def who(name: str = "alice") -> Identity:
    return Identity(platform="console", workspace="ws", channel="general", user=name,
                    display_name=name.title())


def due_review(store, member, item="t.text-detach", since=dt.timedelta(hours=1), now=None):
    at = (now or dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC)) - since
    store.save_review(Review(user_id=member.id, item_id=item, state=1, step=0, stability=None,
                             difficulty=None, due_at=at, reviewed_at=at, last_correct=False))


@pytest.fixture
def desk(quiz):
    return Desk(quiz)


def test_the_nudge_comes_once_a_day_at_the_chosen_hour_when_reviews_are_due(
        quiz, desk, channel, alice, store, clock):
    reply = desk.command(who(), "remind", "on 18")
    assert "18:00 (Europe/Berlin)" in reply.message.body
    due_review(store, alice.member)
    clock.set(EVENING - dt.timedelta(minutes=1))
    assert quiz.reminders.due("console") == []  # 17:59 in Berlin: not yet
    clock.set(EVENING)
    [nudge] = quiz.reminders.due("console")
    assert nudge.member_external_id == "alice" and nudge.message.audience is Audience.PRIVATE
    assert nudge.message.body == "1 review due · /quiz"
    assert [parse_action(b.action_id)[2] for b in nudge.message.buttons] == [
        "start", "snooze", "stop"]
    clock.advance(minutes=1)
    assert quiz.reminders.due("console") == []  # at most one a day
    clock.set(EVENING + dt.timedelta(days=1))
    assert len(quiz.reminders.due("console")) == 1  # still due the next day: nudged again


def test_no_nudge_without_due_reviews_and_the_reminder_moves_on(quiz, desk, channel, store,
                                                                clock):
    desk.command(who(), "remind", "on 18")
    clock.set(EVENING)
    assert quiz.reminders.due("console") == []
    member = store.ensure_member("console", "alice", "Alice")
    due_review(store, member, now=EVENING)
    clock.advance(hours=2)  # a review came due after the hour: nothing more today
    assert quiz.reminders.due("console") == []
    assert store.get_reminder(member.id).next_at == EVENING + dt.timedelta(days=1)


def test_the_default_hour_is_the_channel_post_time_in_its_zone(desk, channel, store):
    reply = desk.command(who(), "remind", "on")
    assert "09:00 (Europe/Berlin)" in reply.message.body
    reminder = store.get_reminder(store.ensure_member("console", "alice", "Alice").id)
    assert (reminder.at, reminder.timezone, reminder.channel_id) == (dt.time(9), BERLIN,
                                                                      channel.id)


def test_a_member_who_opted_out_gets_no_nudge(quiz, desk, channel, alice, store, clock):
    desk.command(who(), "remind", "on 18")
    due_review(store, alice.member)
    desk.command(who(), "remind", "off")
    clock.set(EVENING)
    assert quiz.reminders.due("console") == []


def test_a_member_who_never_opted_in_gets_no_nudge(quiz, channel, alice, store, clock):
    due_review(store, alice.member)
    clock.set(EVENING)
    assert quiz.reminders.due("console") == []


def test_stop_button_turns_reminders_off(quiz, desk, channel, alice, store, clock):
    desk.command(who(), "remind", "on 18")
    due_review(store, alice.member)
    clock.set(EVENING)
    [nudge] = quiz.reminders.due("console")
    stop = next(b.action_id for b in nudge.message.buttons if b.action_id.endswith(":stop"))
    assert "Reminders off" in desk.click(who(), stop).message.body
    clock.advance(days=1)
    assert quiz.reminders.due("console") == []


def test_snooze_skips_tomorrow_and_nudges_the_day_after(quiz, desk, channel, alice, store,
                                                       clock):
    desk.command(who(), "remind", "on 18")
    due_review(store, alice.member)
    clock.set(EVENING)
    [nudge] = quiz.reminders.due("console")
    snooze = next(b.action_id for b in nudge.message.buttons if b.action_id.endswith(":snooze"))
    reply = desk.click(who(), snooze)
    assert "no reminder on 2026-03-03; the next one comes on 2026-03-04" in reply.message.body
    clock.set(EVENING + dt.timedelta(days=1))
    assert quiz.reminders.due("console") == []
    clock.set(EVENING + dt.timedelta(days=2))
    assert len(quiz.reminders.due("console")) == 1


def test_start_button_opens_a_practice_question_like_quiz(quiz, desk, channel, alice, store,
                                                         clock):
    desk.command(who(), "remind", "on 18")
    due_review(store, alice.member)
    clock.set(EVENING)
    [nudge] = quiz.reminders.due("console")
    reply = desk.click(who(), nudge.message.buttons[0].action_id)
    assert reply.message.body.startswith("Review · due since")
    assert store.current_practice(alice.member.id).item_id == "t.text-detach"


def test_a_member_whose_dms_are_closed_is_told_once_and_never_retried(
        quiz, desk, channel, alice, store, clock):
    desk.command(who(), "remind", "on 18")
    due_review(store, alice.member)
    clock.set(EVENING)
    [nudge] = quiz.reminders.due("console")
    quiz.reminders.unreachable(nudge.user_id)  # the platform refused the direct message
    clock.advance(days=1)
    assert quiz.reminders.due("console") == []
    first = desk.command(who(), "quiz", "")
    assert "could not send you a direct message" in first.message.body
    again = desk.command(who(), "quiz", "")
    assert "direct message" not in again.message.body


def test_a_new_hour_after_todays_nudge_waits_for_tomorrow(quiz, desk, channel, alice, store,
                                                         clock):
    desk.command(who(), "remind", "on 18")
    due_review(store, alice.member)
    clock.set(EVENING)
    assert len(quiz.reminders.due("console")) == 1
    desk.command(who(), "remind", "on 20")
    clock.set(EVENING + dt.timedelta(hours=2))
    assert quiz.reminders.due("console") == []
    clock.set(EVENING + dt.timedelta(days=1, hours=2))
    assert len(quiz.reminders.due("console")) == 1


def test_reminders_stay_on_the_platform_they_were_set_on(quiz, desk, channel, alice, store,
                                                        clock):
    desk.command(who(), "remind", "on 18")
    due_review(store, alice.member)
    clock.set(EVENING)
    assert quiz.reminders.due("slack") == []
    assert len(quiz.reminders.due("console")) == 1


def test_turning_on_outside_a_quiz_channel_asks_for_one(desk):
    lost = Identity(platform="console", workspace="ws", channel="nowhere", user="alice",
                    display_name="Alice")
    assert "quiz channel" in desk.command(lost, "remind", "on 18").message.body


@pytest.mark.parametrize("text", ["on 24", "on -1", "maybe", "off 3", "on 1 2", "on ١٢"])
def test_an_unreadable_remind_command_shows_the_usage(desk, channel, text):
    assert "/quiz-remind on" in desk.command(who(), "remind", text).message.body


@pytest.mark.parametrize(("text", "parsed"), [
    ("", ("status", None)), ("on", ("on", None)), ("ON 7", ("on", 7)), ("on 18h", ("on", 18)),
    ("off", ("off", None)), ("stop", ("off", None)), ("snooze", ("snooze", None)),
])
def test_remind_command_words(text, parsed):
    assert parse_command(text) == parsed


def test_the_hour_holds_across_a_dst_change():
    # Berlin moves to summer time on 2026-03-29: 18:00 local is 17:00 UTC before, 16:00 after.
    before = next_time(dt.time(18), BERLIN, dt.datetime(2026, 3, 28, 17, 0, tzinfo=dt.UTC))
    assert before == dt.datetime(2026, 3, 29, 16, 0, tzinfo=dt.UTC)


def test_two_replicas_racing_send_each_nudge_once(quiz, desk, channel, store, clock,
                                                  database_url):
    members = [store.ensure_member("console", f"m{n}", f"M{n}") for n in range(120)]
    for member in members:
        quiz.reminders.turn_on(member, channel, 18, "en")
        due_review(store, member)
    clock.set(EVENING)
    engines = [make_engine(database_url) for _ in range(2)]
    try:
        services = [ReminderService(SqlStore(e), FakeClock(EVENING)) for e in engines]
        with ThreadPoolExecutor(2) as pool:
            sent = list(pool.map(lambda s: s.due("console", batch=25), services))
    finally:
        for e in engines:
            e.dispose()
    users = [n.user_id for batch in sent for n in batch]
    assert sorted(users) == sorted(m.id for m in members)  # every member once, none twice


def test_the_fan_out_costs_two_statements_per_batch_whatever_the_members(
        quiz, channel, store, clock, engine):
    for n in range(60):
        member = store.ensure_member("console", f"m{n}", f"M{n}")
        quiz.reminders.turn_on(member, channel, 18, "en")
        if n % 2:
            due_review(store, member)
    clock.set(EVENING)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda _c, _k, sql, *_: statements.append(sql.lstrip().split()[0].upper()))
    nudges = quiz.reminders.due("console", batch=20)
    assert len(nudges) == 30
    # Three batches of 20: a read and an UPDATE each, and the read that finds none left.
    assert statements.count("SELECT") == 4 and statements.count("UPDATE") == 3
