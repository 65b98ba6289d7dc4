"""Speed challenges through the desk, on both databases; verdicts timed by the real timer."""

from __future__ import annotations

import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bot.core.desk import Desk
from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.messages import parse_action, speed_review_action, submit_id
from bot.core.kernel.models import (
    AnswerMode,
    ChannelDefaults,
    Identity,
    SpeedShapeFigure,
    SpeedVerdictRecord,
)
from bot.core.quiz import Quiz, build_quiz
from bot.core.speed import MAX_CODE_CHARS
from db.store import SqlStore
from tests.support.core import RecordingExecutor
from tests.support.prose import english_words
from tests.support.speed import FASTER, ROW_NORMS, WRONG

T0 = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.UTC)


def who(user: str = "alice", *, admin: bool = False, workspace: str = "ws") -> Identity:
    return Identity(platform="console", workspace=workspace, channel="general", user=user,
                    display_name=user.title(), is_admin=admin)


@pytest.fixture
def desk(squiz: Quiz) -> Desk:
    squiz.rounds.channel("console", "general", "ws", ChannelDefaults(name="general"))
    return Desk(squiz)


@pytest.fixture
def zh_desk(squiz: Quiz) -> Desk:
    squiz.rounds.channel("console", "general", "ws",
                         ChannelDefaults(name="general", locale="zh-CN"))
    return Desk(squiz)


def _seed(store: SqlStore, squiz: Quiz, user: str, score: float, at: dt.datetime, *,
          status: str = "released", faster: bool = True, workspace: str = "console:ws") -> int:
    member = squiz.rounds.member("console", user, user.title())
    channel = squiz.rounds.find_channel("console", "general")
    return store.add_speed_verdict(SpeedVerdictRecord(
        member.id, channel.id if channel else None, workspace, ROW_NORMS, 1, status, faster,
        status == "pending", score, (SpeedShapeFigure("small", score, score - 0.2, score + 0.2),),
        "small: above the cap" if status == "pending" else "", at))


def test_quiz_speed_serves_the_challenge_in_the_channels_language(zh_desk: Desk):
    reply = zh_desk.command(who(), "quiz", f"speed {ROW_NORMS}")
    message = reply.message
    assert reply.locale == "zh-CN" and message is not None
    assert "欧几里得范数" in message.body and "def row_norms(x: torch.Tensor)" in message.body
    assert message.code is not None and "wide = x.double()" in message.code
    assert message.form is not None and message.form.code
    assert parse_action(message.form.action_id) == ("sform", ROW_NORMS, "open")
    assert "wide = x.double()" in message.form.prefill
    prose = message.body.replace(message.code, "")
    assert english_words(prose.split("\n\n", 1)[1]) == []


def test_a_faster_answer_is_timed_kept_and_ranked(desk: Desk, squiz: Quiz):
    served = desk.command(who(), "quiz", "speed test-row-norms").message
    assert served is not None and served.form is not None
    reply = desk.submit(who(), submit_id(served.form), FASTER).message
    assert reply is not None
    assert "Correct and faster" in reply.body, (reply.body, reply.detail)
    for shape in ("small", "tall", "drawn"):
        assert f"{shape}: " in reply.body and "95 % interval" in reply.body
    assert "Checked: " in reply.body and "rtol 0.0001" in reply.body
    board = desk.command(who("bob"), "speed", ROW_NORMS).message
    assert board is not None and board.code is not None
    assert "Alice" in board.code.splitlines()[1]


def test_a_wrong_answer_is_told_wrong_and_never_ranked(zh_desk: Desk):
    zh_desk.command(who(), "quiz", f"speed {ROW_NORMS}")
    reply = zh_desk.practice_answer(who(), WRONG, AnswerMode.CODE).message
    assert reply is not None and reply.body.startswith("结果错误")
    assert "differs" in reply.detail  # the grader's own words, apart, for the sanitiser
    board = zh_desk.command(who(), "speed", ROW_NORMS).message
    assert board is not None and board.code is None and "还没有人" in board.body


def test_the_board_keeps_each_members_best_ties_to_the_first_and_no_hidden(
        desk: Desk, squiz: Quiz, store: SqlStore):
    _seed(store, squiz, "alice", 3.0, T0)
    _seed(store, squiz, "alice", 4.0, T0 + dt.timedelta(hours=2))
    _seed(store, squiz, "bob", 4.0, T0 + dt.timedelta(hours=1))  # bob reached 4.0 first
    _seed(store, squiz, "carol", 9.0, T0, faster=False)  # not faster: never ranked
    _seed(store, squiz, "dave", 20.0, T0, status="pending")  # held: not until released
    _seed(store, squiz, "erin", 8.0, T0)
    store.set_hidden(squiz.rounds.member("console", "erin", "Erin").id, True)
    board = desk.command(who(), "speed", ROW_NORMS).message
    assert board is not None and board.code is not None
    names = [line.split()[1] for line in board.code.splitlines()[1:]]
    assert names == ["Bob", "Alice"]


def test_held_verdicts_are_released_by_an_admin_and_audited(desk: Desk, squiz: Quiz,
                                                           store: SqlStore):
    held = _seed(store, squiz, "dave", 20.0, T0, status="pending")
    listing = desk.command(who("ada", admin=True), "speed", "held").message
    assert listing is not None
    assert speed_review_action(held, "release") in [b.action_id for b in listing.buttons]
    done = desk.click(who("ada", admin=True), speed_review_action(held, "release")).message
    assert done is not None and "Released" in done.body
    board = desk.command(who(), "speed", ROW_NORMS).message
    assert board is not None and board.code is not None and "Dave" in board.code
    change = squiz.audit.latest("console", "ws")[0]
    assert (change.actor, change.action, change.before, change.after) == (
        "ada", "speed.release", "status=pending", "status=released")
    again = desk.click(who("ada", admin=True), speed_review_action(held, "reject")).message
    assert again is not None and "not waiting" in again.body


def test_a_forged_review_button_from_a_member_is_refused(desk: Desk, squiz: Quiz,
                                                         store: SqlStore):
    held = _seed(store, squiz, "dave", 20.0, T0, status="pending")
    forged = desk.click(who("mallory"), speed_review_action(held, "release")).message
    assert forged is not None and "Only an admin" in forged.body
    listed = desk.command(who("mallory"), "speed", "held").message
    assert listed is not None and "Only an admin" in listed.body
    assert squiz.audit.latest("console", "ws") == []
    assert [h.id for h in store.held_speed("console:ws", 10)] == [held]


def test_an_admin_of_another_workspace_cannot_review_this_ones_verdict(desk: Desk, squiz: Quiz,
                                                                        store: SqlStore):
    held = _seed(store, squiz, "dave", 20.0, T0, status="pending")
    other = desk.command(who("eve", admin=True, workspace="other"), "speed",
                         f"reject {held}").message
    assert other is not None and "not waiting" in other.body
    assert [h.id for h in store.held_speed("console:ws", 10)] == [held]


def test_console_reject_keeps_a_held_verdict_off_the_board(desk: Desk, squiz: Quiz,
                                                           store: SqlStore):
    held = _seed(store, squiz, "dave", 20.0, T0, status="pending")
    done = desk.command(who("ada", admin=True), "speed", f"reject {held}").message
    assert done is not None and "Rejected" in done.body
    board = desk.command(who(), "speed", ROW_NORMS).message
    assert board is not None and board.code is None


@pytest.mark.parametrize("argument", ["speed.nope", "../../etc/passwd", "x" * 200])
def test_an_unknown_challenge_is_refused_clearly(desk: Desk, argument: str):
    served = desk.command(who(), "quiz", f"speed {argument}").message
    board = desk.command(who(), "speed", argument).message
    for message in (served, board):
        assert message is not None and "No speed challenge has that id" in message.body


def test_oversize_and_forged_submissions_are_refused_before_timing(desk: Desk):
    huge = desk.submit(who(), f"tq:ssubmit:{ROW_NORMS}:code", "#" * (MAX_CODE_CHARS + 1))
    assert huge.message is not None and "at most" in huge.message.body
    unknown = desk.submit(who(), "tq:ssubmit:speed.nope:code", FASTER)
    assert unknown.message is not None and "No speed challenge" in unknown.message.body
    as_text = desk.submit(who(), f"tq:ssubmit:{ROW_NORMS}:text", FASTER)
    assert as_text.message is not None and as_text.message.body  # not ours: refused
    bad_id = desk.click(who("ada", admin=True), "tq:sheld:1:approve")
    assert bad_id.message is not None and bad_id.message.body


def test_the_list_names_every_challenge(desk: Desk):
    listing = desk.command(who(), "speed", "").message
    assert listing is not None and f"`{ROW_NORMS}`" in listing.body


class _Gate:
    """A speed executor that holds every call until the test opens the gate."""

    def __init__(self) -> None:
        self.entered = threading.Semaphore(0)
        self.gate = threading.Event()

    def speed(self, challenge_id: str, code: str, *, seed: int | None = None) -> Any:
        self.entered.release()
        self.gate.wait(10)
        raise GradingUnavailable("closed")


def test_a_third_speed_answer_in_flight_is_told_busy_not_queued(store: SqlStore, sbank: Any,
                                                                 clock: Any):
    gate = _Gate()
    quiz = build_quiz(store, sbank, clock, RecordingExecutor(), speed_executor=gate)
    quiz.rounds.channel("console", "general", "ws", ChannelDefaults(name="general"))
    desk = Desk(quiz)
    submit = f"tq:ssubmit:{ROW_NORMS}:code"
    with ThreadPoolExecutor(2) as pool:
        held = [pool.submit(desk.submit, who(name), submit, FASTER) for name in ("a", "b")]
        assert gate.entered.acquire(timeout=30) and gate.entered.acquire(timeout=30)
        third = desk.submit(who("c"), submit, FASTER).message
        never_timed = not gate.entered.acquire(timeout=0)  # it never reached the executor
        gate.gate.set()
        for future in held:
            future.result(30)
    assert never_timed and third is not None and "timer is busy" in third.body
