"""Live sessions in the core, on a real store (SQLite and PostgreSQL), by a fake clock."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.core.kernel.messages import Audience, live_answer_action, live_join_action
from bot.core.kernel.models import Actor, AnswerMode, ChannelUpdate, LiveAnswer, LiveStatus
from bot.core.live import LiveOptions, LiveService
from bot.core.quiz import build_quiz
from tests.db.builders import lose_the_first_commits_answer
from tests.db.test_retry import cut_before
from tests.support.core import only

CHOICE = "t.choice-view"  # B (reshape) is right; A and C are wrong
TEXT = "t.text-detach"  # detach


@pytest.fixture
def host(alice):
    return Actor(alice.member, is_admin=True)


@pytest.fixture
def carol(quiz):
    return Actor(quiz.rounds.member("console", "carol", "Carol"))


def _open(quiz, channel, host, item=CHOICE, **options):
    channel = only(quiz, channel, item)
    said = quiz.live.start(channel, host, LiveOptions(**{"lobby": 0, **options}))
    session = quiz.live.store.active_live(channel.id)
    assert session is not None, said.body
    return channel, session, said


def _answer(quiz, channel, actor, response, mode=AnswerMode.BUTTON, **named):
    return quiz.live.answer(channel, actor.member, response, mode, "en", **named)


def test_start_says_so_privately_and_the_lobby_is_posted_once(quiz, channel, host, store, bank,
                                                              clock):
    _, session, said = _open(quiz, channel, host, questions=1, lobby=60)
    assert said.audience is Audience.PRIVATE and "lobby is posted" in said.body
    other = build_quiz(store, bank, clock).live  # a second replica on the same database
    posts = quiz.live.advance("console") + other.advance("console")
    assert len(posts) == 1
    lobby = posts[0].message
    assert lobby.audience is Audience.CHANNEL
    assert [b.action_id for b in lobby.buttons] == [live_join_action(session.id)]
    assert "Alice opened a live quiz: 1 questions" in lobby.body
    assert quiz.live.store.get_live(session.id).status is LiveStatus.LOBBY


def test_only_an_admin_may_start_a_session(quiz, channel, bob):
    refused = quiz.live.start(channel, bob, LiveOptions())
    assert "Only an admin" in refused.body
    assert quiz.live.store.active_live(channel.id) is None


def test_a_second_start_while_one_runs_is_told_and_opens_nothing(quiz, channel, host):
    channel, first, _ = _open(quiz, channel, host)
    again = quiz.live.start(channel, host, LiveOptions())
    assert "already running" in again.body
    assert quiz.live.store.active_live(channel.id) == first


def test_questions_are_choice_and_short_text_unless_the_host_asks_for_code(quiz, channel, host):
    channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(topics=("tensors",)))
    quiz.live.start(channel, host, LiveOptions(questions=30))
    session = quiz.live.store.active_live(channel.id)
    items = {q.item_id for q in quiz.live.store.live_questions(session.id)}
    assert items == {"t.choice-view", "t.text-shape"}  # t.code-double is tensors too
    quiz.live.end(channel, host)
    quiz.live.advance("console")
    quiz.live.start(channel, host, LiveOptions(questions=30, code=True))
    session = quiz.live.store.active_live(channel.id)
    asked = {q.item_id: q.seconds for q in quiz.live.store.live_questions(session.id)}
    assert asked == {"t.choice-view": 20, "t.text-shape": 45, "t.code-double": 90}


def test_the_first_question_is_posted_once_at_the_lobbys_end(quiz, channel, host, clock):
    channel, session, _ = _open(quiz, channel, host, lobby=30)
    assert [p.message.title for p in quiz.live.advance("console")] == ["Live quiz"]
    clock.advance(seconds=30)
    posts = quiz.live.advance("console")
    assert [p.message.title for p in posts] == ["Live · question 1/1 · tensors"]
    assert {b.action_id for b in posts[0].message.buttons} == {
        live_answer_action(session.id, 0, key) for key in "ABC"}
    assert quiz.live.advance("console") == []


def test_two_replicas_advancing_one_session_post_each_question_once(quiz, channel, host, clock,
                                                                     store, bank):
    other = build_quiz(store, bank, clock).live  # a second replica on the same database
    _open(quiz, channel, host)
    made = quiz.live.advance("console") + other.advance("console")
    assert [p.message.title for p in made] == ["Live quiz", "Live · question 1/1 · tensors"]


def test_an_answer_is_locked_in_privately_once(quiz, channel, host):
    channel, session, _ = _open(quiz, channel, host)
    quiz.live.advance("console")
    first = _answer(quiz, channel, host, "B")
    again = _answer(quiz, channel, host, "A")
    assert "Locked in" in first.body and first.audience is Audience.PRIVATE
    assert "already" in again.body
    answers = quiz.live.store.live_answers(session.id)
    assert [(a.response, a.correct) for a in answers] == [("B", True)]


def test_the_question_closes_once_every_player_answered(quiz, channel, host, bob):
    channel, _, _ = _open(quiz, channel, host, item=CHOICE)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    _answer(quiz, channel, host, "B")
    assert quiz.live.advance("console") == []  # Bob has not answered
    _answer(quiz, channel, bob, "A")
    titles = [p.message.title for p in quiz.live.advance("console")]
    assert titles == ["Live · answer to question 1/1", "Live quiz · final board"]


def test_the_deadline_reveals_a_question_whoever_did_not_answer(quiz, channel, host, bob, clock):
    channel, session, _ = _open(quiz, channel, host, seconds=10)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    _answer(quiz, channel, host, "B")
    clock.advance(seconds=10)
    late = _answer(quiz, channel, bob, "B")
    assert "closed" in late.body
    titles = [p.message.title for p in quiz.live.advance("console")]
    assert titles[0] == "Live · answer to question 1/1"
    assert [a.user_id for a in quiz.live.store.live_answers(session.id)] == [host.member.id]


def test_a_closed_questions_button_is_told_closed_and_counts_nothing(quiz, channel, host, bob,
                                                                     clock):
    channel, session, _ = _open(quiz, channel, host, item=TEXT, questions=1)
    quiz.live.advance("console")
    clock.advance(seconds=45)
    quiz.live.advance("console")
    reply = _answer(quiz, channel, bob, "detach", AnswerMode.TEXT, session_id=session.id,
                    position=0)
    assert "over" in reply.body or "closed" in reply.body
    assert quiz.live.store.live_answers(session.id) == []


def test_another_channels_session_button_is_no_answer_here(quiz, channel, host, bob):
    channel, session, _ = _open(quiz, channel, host)
    quiz.live.advance("console")
    elsewhere = quiz.rounds.channel("console", "random", "ws")
    reply = quiz.live.answer(elsewhere, bob.member, "B", AnswerMode.BUTTON, "en",
                             session_id=session.id, position=0)
    assert "over" in reply.body
    assert quiz.live.store.live_answers(session.id) == []


def test_a_faster_right_answer_earns_more_a_wrong_one_nothing(quiz, channel, host, bob, carol,
                                                              clock):
    channel, session, _ = _open(quiz, channel, host, seconds=20)
    for actor in (bob, carol):
        quiz.live.join(channel, actor.member, "en")
    quiz.live.advance("console")
    _answer(quiz, channel, host, "B")
    clock.advance(seconds=10)
    _answer(quiz, channel, bob, "B")
    _answer(quiz, channel, carol, "A")
    points = {a.user_id: a.points for a in quiz.live.store.live_answers(session.id)}
    assert points == {host.member.id: 10, bob.member.id: 7, carol.member.id: 0}


def test_every_live_answer_moves_the_players_review_card(quiz, channel, host, store):
    channel, _, _ = _open(quiz, channel, host)
    quiz.live.advance("console")
    _answer(quiz, channel, host, "A")
    card = store.get_review(host.member.id, CHOICE)
    assert card is not None and card.last_correct is False


def test_live_answers_stay_out_of_the_item_statistics(quiz, channel, host, store):
    channel, _, _ = _open(quiz, channel, host)
    quiz.live.advance("console")
    _answer(quiz, channel, host, "B")
    assert [t for t in store.item_tallies() if t.item_id == CHOICE] == []


def test_the_reveal_shows_the_split_the_most_chosen_wrong_why_and_the_top(quiz, channel, host,
                                                                          bob, carol):
    channel, _session, _ = _open(quiz, channel, host)
    for actor in (bob, carol):
        quiz.live.join(channel, actor.member, "en")
    quiz.live.advance("console")
    for actor, key in ((host, "B"), (bob, "C"), (carol, "C")):
        _answer(quiz, channel, actor, key)
    reveal = quiz.live.advance("console")[0].message.body
    assert "reshape" in reveal
    assert "2 (67 %)" in reveal and "1 (33 %) ✓" in reveal
    assert "Most chosen wrong answer" in reveal and "unsqueeze is always a view." in reveal
    assert "1. Alice: 10 pts (1 right)" in reveal


def test_the_final_board_names_the_fastest_and_the_weak_topics_card(quiz, channel, host, bob,
                                                                    carol, clock):
    channel, session, _ = _open(quiz, channel, host)
    for actor in (bob, carol):
        quiz.live.join(channel, actor.member, "en")
    quiz.live.advance("console")
    clock.advance(seconds=3)
    for actor, key in ((bob, "B"), (host, "A"), (carol, "A")):
        _answer(quiz, channel, actor, key)
    board = quiz.live.advance("console")[-1].message.body
    assert board.index("1. Bob") < board.index("2. Alice")
    assert "Fastest right answer: Bob, 3.0 s on question 1." in board
    assert "tensors: 33 % (1/3)" in board
    assert "/explain view-vs-reshape" in board
    assert "count on this session's board only" in board
    assert quiz.live.store.get_live(session.id).counted is True


def test_fewer_than_three_players_is_a_warm_up_that_counts_nowhere(quiz, channel, host):
    channel, session, _ = _open(quiz, channel, host)
    quiz.live.advance("console")
    _answer(quiz, channel, host, "B")
    board = quiz.live.advance("console")[-1].message.body
    assert "Fewer than 3 players" in board
    assert quiz.live.store.get_live(session.id).counted is False


def test_only_the_host_or_an_admin_may_skip_or_end(quiz, channel, host, bob):
    channel, session, _ = _open(quiz, channel, host)
    assert "Only the host" in quiz.live.skip(channel, bob).body
    assert "Only the host" in quiz.live.end(channel, bob).body
    assert quiz.live.store.get_live(session.id).status is LiveStatus.LOBBY


def test_another_admin_can_end_a_session_its_host_left(quiz, channel, host, bob):
    channel, _session, _ = _open(quiz, channel, host, questions=5)
    quiz.live.advance("console")
    assert "ends now" in quiz.live.end(channel, Actor(bob.member, is_admin=True)).body
    titles = [p.message.title for p in quiz.live.advance("console")]
    assert titles == ["Live quiz · final board"]
    assert quiz.live.store.active_live(channel.id) is None


def test_skip_reveals_the_open_question_and_posts_the_next(quiz, channel, host):
    channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(topics=("autograd",)))
    quiz.live.start(channel, host, LiveOptions(questions=2, lobby=0))
    quiz.live.advance("console")
    assert "Skipped" in quiz.live.skip(channel, host).body
    titles = [p.message.title for p in quiz.live.advance("console")]
    assert titles == ["Live · answer to question 1/2", "Live · question 2/2 · autograd"]


def test_a_session_nobody_plays_ends_itself(quiz, channel, host, clock):
    channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(topics=("autograd",)))
    quiz.live.start(channel, host, LiveOptions(questions=2, lobby=0, seconds=5))
    quiz.live.advance("console")
    clock.advance(seconds=5)
    quiz.live.advance("console")
    clock.advance(seconds=5)
    board = quiz.live.advance("console")[-1].message.body
    assert "ended itself" in board
    assert quiz.live.store.active_live(channel.id) is None


def test_a_restarted_process_reveals_what_came_due_and_goes_on(quiz, channel, host, clock, store,
                                                               bank):
    channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(topics=("autograd",)))
    quiz.live.start(channel, host, LiveOptions(questions=2, lobby=0, seconds=10))
    quiz.live.advance("console")
    _answer(quiz, channel, host, "detach", AnswerMode.TEXT)  # might be either question
    clock.advance(minutes=5)  # the process was down past the deadline
    restarted = LiveService(store, bank, clock)
    titles = [p.message.title for p in restarted.advance("console")]
    assert titles == ["Live · answer to question 1/2", "Live · question 2/2 · autograd"]


def test_a_member_who_keeps_off_the_boards_is_left_out_of_the_live_tables(quiz, channel, host,
                                                                          bob, carol, store):
    store.set_hidden(bob.member.id, True)
    channel, _, _ = _open(quiz, channel, host)
    for actor in (bob, carol):
        quiz.live.join(channel, actor.member, "en")
    quiz.live.advance("console")
    for actor, key in ((bob, "B"), (host, "B"), (carol, "A")):
        _answer(quiz, channel, actor, key)
    reveal, board = (p.message.body for p in quiz.live.advance("console"))
    for text in (reveal, board):
        assert "Bob" not in text and "+1 player keeping off the boards" in text
    assert "Fastest right answer: Alice" in board


def test_a_paused_question_keeps_its_time_left_and_takes_no_answer(quiz, channel, host, bob,
                                                                  clock):
    channel, _, _ = _open(quiz, channel, host, seconds=20)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    clock.advance(seconds=5)
    assert "Paused" in quiz.live.pause(channel, host).body
    assert "no open question to pause" in quiz.live.pause(channel, host).body  # a second one
    clock.advance(minutes=5)
    assert quiz.live.advance("console") == []
    assert "paused" in _answer(quiz, channel, bob, "B").body
    assert "Resumed" in quiz.live.resume(channel, host).body
    assert "Locked in" in _answer(quiz, channel, bob, "B").body
    clock.advance(seconds=14)
    assert quiz.live.advance("console") == []  # 15 s were left
    clock.advance(seconds=1)
    assert quiz.live.advance("console")[0].message.title == "Live · answer to question 1/1"


def test_a_session_left_paused_for_half_an_hour_ends_itself(quiz, channel, host, clock):
    channel, _, _ = _open(quiz, channel, host)
    quiz.live.advance("console")
    quiz.live.pause(channel, host)
    clock.advance(minutes=29)
    assert quiz.live.advance("console") == []
    clock.advance(minutes=1)
    board = quiz.live.advance("console")[-1].message.body
    assert "ended itself" in board
    assert quiz.live.store.active_live(channel.id) is None


def test_only_the_host_or_an_admin_may_pause(quiz, channel, host, bob):
    channel, _, _ = _open(quiz, channel, host)
    quiz.live.advance("console")
    assert "Only the host" in quiz.live.pause(channel, bob).body
    assert "not paused" in quiz.live.resume(channel, host).body


postgres_only = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


@postgres_only
def test_a_database_restarted_mid_question_keeps_each_answer_once(quiz, channel, host, bob,
                                                                  store, pg_server, caplog):
    # The server really drops the answer's connection (pg_terminate_backend, as a restart
    # does) just before its insert: the answer is retried once and kept once.
    channel, session, _ = _open(quiz, channel, host)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    cut = cut_before(store.engine, pg_server, "INSERT INTO LIVE_ANSWERS")
    said = _answer(quiz, channel, host, "B")
    assert len(cut) == 1, "the connection was not cut"
    assert "Locked in" in said.body, said.body
    assert "record_live_answer: database connection lost" in caplog.text
    again = _answer(quiz, channel, host, "C")
    assert "already" in again.body
    assert [(a.user_id, a.response) for a in store.live_answers(session.id)] == [
        (host.member.id, "B")]
    assert store.get_review(host.member.id, CHOICE).last_correct is True


@postgres_only
def test_an_answer_committed_before_the_connection_dropped_is_told_locked_in(quiz, channel,
                                                                             host, bob, store):
    # The commit reached the server, its answer did not come back: the retry finds this very
    # answer and says kept, not "answered already"; nothing is counted twice.
    channel, session, _ = _open(quiz, channel, host)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    lost = lose_the_first_commits_answer(store)
    said = _answer(quiz, channel, host, "B")
    assert lost == [True]
    assert "Locked in" in said.body, said.body
    assert len(store.live_answers(session.id)) == 1
    reveal = quiz.live.advance("console")
    assert reveal == [] or "1 (100 %) ✓" in reveal[0].message.body


def test_an_answer_kept_just_before_the_close_is_counted_in_the_reveal(quiz, channel, host, bob,
                                                                       store, clock,
                                                                       monkeypatch):
    # Another replica keeps an answer after this one read the answers but before its close
    # (its clock a little behind): the database counts it, so the reveal must too.
    channel, session, _ = _open(quiz, channel, host, seconds=20)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    _answer(quiz, channel, host, "B")
    opened = store.live_questions(session.id)[0].opened_at
    real_close = store.close_live_question

    def close_after_a_late_answer(*args):
        store.record_live_answer(LiveAnswer(
            session_id=session.id, position=0, user_id=bob.member.id, response="C",
            correct=False, points=0, answered_at=opened, elapsed_ms=19_900))
        return real_close(*args)

    monkeypatch.setattr(store, "close_live_question", close_after_a_late_answer)
    clock.advance(seconds=20)
    reveal = quiz.live.advance("console")[0].message.body
    assert "1 (50 %) ✓" in reveal and "Most chosen wrong answer" in reveal, reveal
    assert len(store.live_answers(session.id)) == 2


def _played(quiz, channel, host, bob, carol, **changes):
    """Play a one-question session with three players (Alice and Bob right, Carol wrong)."""
    if changes:
        channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(**changes))
    channel, session, _ = _open(quiz, channel, host)
    for actor in (bob, carol):
        quiz.live.join(channel, actor.member, "en")
    quiz.live.advance("console")
    for actor, key in ((host, "B"), (bob, "B"), (carol, "A")):
        _answer(quiz, channel, actor, key)
    board = quiz.live.advance("console")[-1].message.body
    return quiz.rounds.store.get_channel(channel.id), session, board


def _week(quiz, channel):
    return {row.display_name: row.points for row in quiz.board.rows(channel, "week")}


def test_live_points_stay_off_the_weekly_board_by_default(quiz, channel, host, bob, carol):
    assert not channel.live_on_board
    channel, session, board = _played(quiz, channel, host, bob, carol)
    assert quiz.live.store.get_live(session.id).counted is True
    assert "live_on_board=on" in board
    assert _week(quiz, channel) == {}


def test_live_points_count_on_the_weekly_board_where_the_admin_turned_it_on(quiz, channel, host,
                                                                            bob, carol):
    channel, _, board = _played(quiz, channel, host, bob, carol, live_on_board=True)
    assert "and on this week's board" in board
    assert _week(quiz, channel) == {"Alice": 10, "Bob": 10}
    assert quiz.board.rows(channel, "all") == []  # the all-time board stays the daily one's


def test_a_warm_up_counts_on_no_board_even_where_live_points_count_weekly(quiz, channel, host,
                                                                          bob):
    channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(live_on_board=True))
    channel, session, _ = _open(quiz, channel, host)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    for actor in (host, bob):
        _answer(quiz, channel, actor, "B")
    board = quiz.live.advance("console")[-1].message.body
    assert "Fewer than 3 players" in board
    assert quiz.live.store.get_live(session.id).counted is False
    assert _week(quiz, channel) == {}


def test_live_points_on_the_weekly_board_are_added_once_across_replicas(quiz, channel, host,
                                                                        bob, carol, store,
                                                                        bank, clock):
    other = build_quiz(store, bank, clock).live  # a second replica ends the same session
    channel, session, _ = _played(quiz, channel, host, bob, carol, live_on_board=True)
    assert other.advance_session(quiz.live.store.get_live(session.id)) == []
    assert _week(quiz, channel) == {"Alice": 10, "Bob": 10}


def test_a_change_of_zone_recounts_live_points_on_the_weekly_board(quiz, channel, host, bob,
                                                                   carol):
    channel, _, _ = _played(quiz, channel, host, bob, carol, live_on_board=True)
    quiz.setup.apply(channel, host, {"tz": "Asia/Shanghai"})
    channel = quiz.rounds.store.get_channel(channel.id)
    assert channel.timezone == "Asia/Shanghai"
    assert _week(quiz, channel) == {"Alice": 10, "Bob": 10}


DOUBLE = "def double(x):\n    return x * 2\n"


def test_a_code_answer_is_locked_in_at_once_and_graded_once_before_the_reveal(quiz, channel,
                                                                            host, bob, executor,
                                                                            store, clock):
    channel, session, _ = _open(quiz, channel, host, item="t.code-double", code=True)
    quiz.live.join(channel, bob.member, "en")
    question = quiz.live.advance("console")[-1].message
    assert "sandbox grades it at the reveal" in question.body and question.form.code
    clock.advance(seconds=9)
    said = _answer(quiz, channel, host, DOUBLE, AnswerMode.CODE)
    assert "Locked in (9.0 s)" in said.body and "before the reveal" in said.body
    assert executor.runs == []  # nothing ran while the member waited
    [kept] = quiz.live.store.live_answers(session.id)
    assert kept.pending and not kept.correct and kept.points == 0
    assert quiz.live.advance("console") == []  # Bob has not answered: the tick grades it
    assert executor.runs == [("t.code-double", DOUBLE)]
    assert "already" in _answer(quiz, channel, host, DOUBLE, AnswerMode.CODE).body
    clock.advance(seconds=30)
    _answer(quiz, channel, bob, DOUBLE, AnswerMode.CODE)
    reveal = quiz.live.advance("console")[0].message.body
    assert "2 of 2 passed the hidden tests" in reveal
    assert len(executor.runs) == 2  # each answer ran once
    graded = {a.user_id: a for a in quiz.live.store.live_answers(session.id)}
    assert not any(a.pending for a in graded.values())
    assert graded[host.member.id].points > graded[bob.member.id].points > 0
    assert store.get_review(host.member.id, "t.code-double").last_correct is True


def test_code_that_does_not_compile_is_refused_and_counts_nothing(quiz, channel, host, executor):
    channel, session, _ = _open(quiz, channel, host, item="t.code-double", code=True)
    quiz.live.advance("console")
    refused = _answer(quiz, channel, host, "def double(x) return x", AnswerMode.CODE)
    assert "line 1" in refused.body and refused.detail
    no_code = _answer(quiz, channel, host, "B", AnswerMode.BUTTON)
    assert "double" in no_code.body
    assert quiz.live.store.live_answers(session.id) == [] and executor.runs == []
    assert "Locked in" in _answer(quiz, channel, host, DOUBLE, AnswerMode.CODE).body


def test_a_failing_code_answer_earns_nothing(quiz, channel, host, executor):
    from tests.support.core import FakeVerdict
    executor.verdict = FakeVerdict("failed", 0, 1)
    channel, session, _ = _open(quiz, channel, host, item="t.code-double", code=True)
    quiz.live.advance("console")
    _answer(quiz, channel, host, "def double(x):\n    return x + 2\n", AnswerMode.CODE)
    told, reveal, *_ = quiz.live.advance("console")
    assert "0 of 1 passed the hidden tests" in reveal.message.body
    [graded] = quiz.live.store.live_answers(session.id)
    assert (graded.correct, graded.points, graded.pending) == (False, 0, False)
    # Told why, privately, before the reveal: to the player, by their platform id.
    assert told.private is not None and reveal.private is None
    assert told.private.member_external_id == host.member.external_id
    assert "did not pass" in told.message.body and told.message.audience is Audience.PRIVATE


def test_two_replicas_grading_one_code_answer_record_it_once(quiz, channel, host, bob, store,
                                                              bank, clock, executor):
    other = build_quiz(store, bank, clock, executor).live
    channel, session, _ = _open(quiz, channel, host, item="t.code-double", code=True)
    quiz.live.join(channel, bob.member, "en")
    quiz.live.advance("console")
    _answer(quiz, channel, host, DOUBLE, AnswerMode.CODE)
    [pending] = store.pending_live_answers(session.id, 0)
    graded = replace(pending, pending=False, correct=True, points=20, response="passed 1/1")
    assert store.grade_live_answer(graded) is True
    assert store.grade_live_answer(replace(graded, points=99)) is False
    assert other.advance("console") == [] and executor.runs == []  # nothing left to grade
    assert [a.points for a in store.live_answers(session.id)] == [20]


def test_code_is_asked_only_where_a_sandbox_can_grade_it(store, bank, clock, channel, host):
    quiz = build_quiz(store, bank, clock)  # no executor
    said = quiz.live.start(channel, host, LiveOptions(code=True))
    assert "sandbox" in said.body and quiz.live.store.active_live(channel.id) is None


def test_a_code_session_with_nothing_to_ask_says_which_kinds_it_looked_for(quiz, channel, host):
    channel = quiz.rounds.store.update_channel(channel.id, ChannelUpdate(topics=("no-such",)))
    said = quiz.live.start(channel, host, LiveOptions(code=True))
    assert "No choice, short-text or code question" in said.body
    assert "编程题" in quiz.live.start(channel, replace(host, locale="zh-CN"),
                                     LiveOptions(code=True)).body
