"""A speed challenge as a channel's daily round (the kinds setting), timed by the real timer."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.core.desk import Desk
from bot.core.kernel.messages import parse_action, speed_review_action, submit_id
from bot.core.kernel.models import (
    Actor,
    AnswerDraft,
    AnswerMode,
    ChannelDefaults,
    ChannelSettings,
    Identity,
    SpeedShapeFigure,
    SpeedVerdictRecord,
)
from bot.core.quiz import Quiz, build_quiz
from bot.core.speed import SPEED_TRIES, speed_points
from content.loader import Bank
from db.store import SqlStore
from tests.fakes import FakeClock
from tests.support.core import RecordingExecutor
from tests.support.prose import english_words
from tests.support.speed import FASTER, ROW_NORMS, WRONG


def who(user: str = "alice", *, admin: bool = False) -> Identity:
    return Identity(platform="console", workspace="ws", channel="general", user=user,
                    display_name=user.title(), is_admin=admin)


def _speed_channel(desk: Desk, kinds: str = "speed", locale: str = "en") -> ChannelSettings:
    reply = desk.settings(who("ada", admin=True), "", "general",
                          {"kinds": kinds, "lang": locale})
    assert reply.message is not None and reply.message.tone.value == "success", reply.message
    channel = desk.quiz.rounds.find_channel("console", "general")
    assert channel is not None
    return channel


@pytest.fixture
def desk(squiz: Quiz) -> Desk:
    squiz.rounds.channel("console", "general", "ws", ChannelDefaults(name="general"))
    return Desk(squiz)


def _post(squiz: Quiz, channel: ChannelSettings):
    post = squiz.rounds.post_round(channel.id)
    assert post is not None
    return post


def _held_try(store: SqlStore, squiz: Quiz, round_id: int, channel_id: int, user: str,
              score: float, at: dt.datetime) -> int:
    """Store a held try at a round as the round's answer path does (honest code is never held)."""
    member = squiz.rounds.member("console", user, user.title())
    store.record_speed_answer(
        SpeedVerdictRecord(member.id, channel_id, "console:ws", ROW_NORMS, 1, "pending",
                           faster=True, held=True, score=score,
                           shapes=(SpeedShapeFigure("small", score, score - 1, score + 1),),
                           reason="small: above the cap", created_at=at, round_id=round_id,
                           attempt=1),
        AnswerDraft(round_id=round_id, user_id=member.id, attempt=1, mode=AnswerMode.CODE,
                    response="def row_norms(x): ...", correct=False, points=0, submitted_at=at,
                    verdict_status="passed"))
    [held] = store.held_speed("console:ws", 10)
    return held.id


def test_channels_post_no_speed_challenge_by_default(desk: Desk, squiz: Quiz):
    channel = squiz.rounds.find_channel("console", "general")
    assert channel is not None and channel.kinds == ("choice", "text", "code")
    assert not any(i.startswith("speed.") for i in squiz.rounds.eligible_items(channel))


def test_kinds_speed_draws_the_speed_challenge_only(desk: Desk, squiz: Quiz):
    channel = _speed_channel(desk)
    assert squiz.rounds.eligible_items(channel) == [ROW_NORMS]


def test_kinds_leave_out_a_kind_the_channel_dropped(desk: Desk, squiz: Quiz, sbank: Bank):
    channel = _speed_channel(desk, "choice,speed")
    drawn = squiz.rounds.eligible_items(channel)
    kinds = {sbank.questions[i].kind if i in sbank.questions else "speed" for i in drawn}
    assert kinds == {"choice", "speed"}


def test_no_speed_round_is_drawn_where_nothing_times_it(store: SqlStore, sbank: Bank,
                                                       clock: FakeClock):
    quiz = build_quiz(store, sbank, clock, RecordingExecutor())  # no speed executor
    quiz.rounds.channel("console", "general", "ws", ChannelDefaults(name="general"))
    channel = _speed_channel(Desk(quiz), "speed,choice")
    assert ROW_NORMS not in quiz.rounds.eligible_items(channel)


def test_a_speed_round_is_posted_with_its_task_reference_and_the_code_form(
        desk: Desk, squiz: Quiz):
    post = _post(squiz, _speed_channel(desk))
    message = post.message
    assert post.round.item_id == ROW_NORMS
    assert "Euclidean norm" in message.body and "def row_norms(x: torch.Tensor)" in message.body
    assert message.code is not None and "wide = x.double()" in message.code
    assert message.form is not None and message.form.code
    assert parse_action(message.form.action_id) == ("form", str(post.round.id), "open")
    assert "10-20 points" in message.footer


def test_a_speed_round_post_and_reveal_are_chinese_in_a_chinese_channel(
        desk: Desk, squiz: Quiz):
    channel = _speed_channel(desk, locale="zh-CN")
    post = _post(squiz, channel)
    prose = post.message.body.split("\n\n", 1)[1]
    assert english_words(prose) == []
    reveal = squiz.rounds.reveal_now(channel.id, Actor(
        squiz.rounds.member("console", "ada", "Ada"), is_admin=True, locale="zh-CN"))
    assert not isinstance(reveal, type(post.message))
    assert english_words(reveal.message.body.split("\n\n")[0]) == []


def test_a_faster_try_earns_its_band_once_and_a_second_keeps_the_best(
        desk: Desk, squiz: Quiz, store: SqlStore):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    assert post.message.form is not None
    first = desk.submit(who(), submit_id(post.message.form), FASTER)
    assert first.message is not None and "Correct and faster" in first.message.body, (
        first.message.body, first.message.detail)
    assert "Today's round: +" in first.message.body
    assert first.redraw_round == post.round.id
    second = desk.submit(who(), submit_id(post.message.form), FASTER).message
    assert second is not None and "Today's round:" in second.body
    member = squiz.rounds.member("console", "alice", "Alice")
    scores = [v.score for v in _verdicts(store, post.round.id)]
    assert len(scores) == 2
    [row] = store.scores(channel.id)
    assert (row.points, row.solved, row.attempted) == (speed_points(1, max(scores)), 1, 1)
    assert len(store.answers_for(post.round.id, member.id)) == 2
    assert store.tally(post.round.id).solved == 1


def test_a_wrong_try_earns_nothing_and_spends_a_try(desk: Desk, squiz: Quiz, store: SqlStore):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    assert post.message.form is not None
    reply = desk.submit(who(), submit_id(post.message.form), WRONG).message
    assert reply is not None and reply.body.startswith("Wrong result")
    assert "no points for this try" in reply.body
    [row] = store.scores(channel.id)
    assert (row.points, row.solved, row.attempted) == (0, 0, 1)


def test_tries_beyond_the_limit_are_refused_before_anything_is_timed(
        desk: Desk, squiz: Quiz, store: SqlStore, clock: FakeClock):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    member = squiz.rounds.member("console", "alice", "Alice")
    for attempt in range(1, SPEED_TRIES + 1):
        store.record_answer(AnswerDraft(
            round_id=post.round.id, user_id=member.id, attempt=attempt, mode=AnswerMode.CODE,
            response="x", correct=False, points=0, submitted_at=clock.now()))
    assert post.message.form is not None
    reply = desk.submit(who(), submit_id(post.message.form), FASTER).message
    assert reply is not None and f"used your {SPEED_TRIES} tries" in reply.body
    assert _verdicts(store, post.round.id) == []


def test_a_retried_try_is_kept_once(desk: Desk, squiz: Quiz, store: SqlStore,
                                    clock: FakeClock):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    member = squiz.rounds.member("console", "alice", "Alice")
    verdict = SpeedVerdictRecord(
        member.id, channel.id, "console:ws", ROW_NORMS, 1, "released", faster=True,
        held=False, score=6.0, shapes=(), reason="", created_at=clock.now(),
        round_id=post.round.id, attempt=1)
    draft = AnswerDraft(round_id=post.round.id, user_id=member.id, attempt=1,
                        mode=AnswerMode.CODE, response="code", correct=True,
                        points=speed_points(1, 6.0), submitted_at=clock.now())
    assert store.record_speed_answer(verdict, draft) is not None
    assert store.record_speed_answer(verdict, draft) is None  # the platform sent it again
    assert len(_verdicts(store, post.round.id)) == 1
    [row] = store.scores(channel.id)
    assert row.points == speed_points(1, 6.0) == 15


def test_a_held_try_counts_for_the_round_only_once_an_admin_releases_it(
        desk: Desk, squiz: Quiz, store: SqlStore, clock: FakeClock):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    held = _held_try(store, squiz, post.round.id, channel.id, "dave", 30.0, clock.now())
    [row] = store.scores(channel.id)
    assert (row.points, row.solved) == (0, 0)
    assert store.round_speed_board(post.round.id, 10) == []
    done = desk.click(who("ada", admin=True), speed_review_action(held, "release")).message
    assert done is not None and "Released" in done.body
    [row] = store.scores(channel.id)
    assert (row.points, row.solved) == (speed_points(1, 30.0), 1) == (20, 1)
    again = desk.click(who("ada", admin=True), speed_review_action(held, "release")).message
    assert again is not None and "not waiting" in again.body
    [row] = store.scores(channel.id)
    assert row.points == 20  # released once, counted once


def test_a_rejected_held_try_never_counts(desk: Desk, squiz: Quiz, store: SqlStore,
                                          clock: FakeClock):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    held = _held_try(store, squiz, post.round.id, channel.id, "dave", 30.0, clock.now())
    desk.click(who("ada", admin=True), speed_review_action(held, "reject"))
    [row] = store.scores(channel.id)
    assert (row.points, row.solved) == (0, 0)


def test_the_reveal_shows_the_fast_solution_why_and_the_rounds_best(
        desk: Desk, squiz: Quiz, store: SqlStore, clock: FakeClock):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    held = _held_try(store, squiz, post.round.id, channel.id, "dave", 30.0, clock.now())
    desk.click(who("ada", admin=True), speed_review_action(held, "release"))
    reveal = squiz.rounds.reveal_now(channel.id, Actor(
        squiz.rounds.member("console", "ada", "Ada"), is_admin=True))
    message = reveal.message  # type: ignore[union-attr]
    assert "own fast solution" in message.body
    assert "One float32 reduction reads the input once" in message.body
    assert message.code is not None and "def row_norms" in message.code
    assert "wide = x.double()" not in message.code  # the fast one, not the reference
    assert message.quotes == (("1. 30.0×", "Dave"),)
    closed = reveal.closed_post  # type: ignore[union-attr]
    assert closed.form is None and "closed" in closed.body


def _verdicts(store: SqlStore, round_id: int) -> list[SpeedVerdictRecord]:
    from sqlalchemy import select

    from db.store_speed import _record
    from db.tables import SpeedVerdictRow

    with store._read() as session:
        rows = session.execute(select(SpeedVerdictRow).where(
            SpeedVerdictRow.round_id == round_id)).scalars().all()
        return [_record(r) for r in rows]


def test_a_release_whose_points_cannot_be_stored_is_rolled_back_with_them(
        desk: Desk, squiz: Quiz, store: SqlStore, clock: FakeClock):
    channel = _speed_channel(desk)
    post = _post(squiz, channel)
    held = _held_try(store, squiz, post.round.id, channel.id, "dave", 30.0, clock.now())

    def clashing(verdict, earlier):  # the held try's own attempt: taken already
        return AnswerDraft(round_id=post.round.id, user_id=verdict.user_id, attempt=1,
                           mode=AnswerMode.CODE, response="x", correct=True, points=20,
                           submitted_at=clock.now())

    with pytest.raises(LookupError):
        store.review_speed(held, "console:ws", "released", clashing)
    assert [h.id for h in store.held_speed("console:ws", 10)] == [held]  # still waiting
    [row] = store.scores(channel.id)
    assert (row.points, row.solved) == (0, 0)
