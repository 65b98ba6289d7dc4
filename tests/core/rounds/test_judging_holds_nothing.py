"""While the executor judges an answer, the core holds no connection, transaction or lock.

A code answer can take the executor seconds; anything held across that call (a pooled
connection, SQLite's write lock, a row or advisory lock, a lock of the core's own) would make
every other member of the team wait for it. The executor here acts while it judges: it looks
at the pool and lets another member answer the same round from another thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from bot.core.kernel.models import Actor, AnswerMode
from tests.support.core import RecordingExecutor, only

CODE = "def double(x):\n    return x * 2\n"


@dataclass
class ActingExecutor(RecordingExecutor):
    """Runs ``meanwhile`` once, inside the first judging, before it answers."""

    meanwhile: Callable[[], None] | None = None

    def run(self, challenge_id: str, code: str, *, seed: int | None = None):  # type: ignore[override]
        act, self.meanwhile = self.meanwhile, None
        if act is not None:
            act()
        return super().run(challenge_id, code, seed=seed)


@pytest.fixture
def executor() -> ActingExecutor:
    return ActingExecutor()


def test_no_connection_and_no_lock_is_held_while_an_answer_is_judged(quiz, channel, store,
                                                                     executor):
    channel = only(quiz, channel, "t.code-double")
    rnd = quiz.rounds.post_round(channel.id).round
    alice = Actor(quiz.rounds.member("console", "alice", "Alice"))
    bob = Actor(quiz.rounds.member("console", "bob", "Bob"))
    seen: dict[str, object] = {}

    def meanwhile() -> None:
        seen["checked_out"] = store.engine.pool.checkedout()

        def bob_answers() -> None:
            seen["bob"] = quiz.rounds.answer_round(rnd.id, bob, CODE, AnswerMode.CODE)

        # Another thread: a lock held by Alice's call, of the database or of the core, would
        # keep Bob's answer waiting until Alice's judging ended, which waits for Bob's.
        other = threading.Thread(target=bob_answers)
        other.start()
        other.join(timeout=60)
        seen["bob_done"] = not other.is_alive()

    executor.meanwhile = meanwhile
    mine = quiz.rounds.answer_round(rnd.id, alice, CODE, AnswerMode.CODE)

    assert seen["checked_out"] == 0
    assert seen["bob_done"], "Bob's answer waited for Alice's judging"
    assert seen["bob"].recorded and mine.recorded
    assert quiz.rounds.tally_line(rnd.id, "en") == "2 solved · 2 answered"


def test_a_second_click_during_the_judging_is_recorded_once(quiz, channel, store, executor):
    channel = only(quiz, channel, "t.code-double")
    rnd = quiz.rounds.post_round(channel.id).round
    alice = Actor(quiz.rounds.member("console", "alice", "Alice"))
    seen: dict[str, object] = {}

    def meanwhile() -> None:
        # The same try sent twice (a double click, a retried webhook): the second is judged
        # and written while the first waits for its verdict.
        seen["again"] = quiz.rounds.answer_round(rnd.id, alice, CODE, AnswerMode.CODE)

    executor.meanwhile = meanwhile
    first = quiz.rounds.answer_round(rnd.id, alice, CODE, AnswerMode.CODE)

    assert seen["again"].recorded and not first.recorded
    assert [a.attempt for a in store.answers_for(rnd.id, alice.member.id)] == [1]
    assert quiz.rounds.tally_line(rnd.id, "en") == "1 solved · 1 answered"
