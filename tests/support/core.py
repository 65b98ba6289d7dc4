"""Helpers shared by the tests of tests/core/ (its conftest.py keeps the fixtures)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.core.kernel.models import ChannelSettings, ChannelUpdate
from bot.core.quiz import Quiz
from tests.fakes import FakeClock

BANK = Path(__file__).resolve().parents[1] / "core" / "bank"


@dataclass(frozen=True)
class FakeVerdict:
    status: str
    passed_tests: int
    total_tests: int
    message: str = ""
    stdout: str = ""
    duration_ms: float = 12.0
    fault: bool = False
    reason: Any = None


@dataclass
class RecordingExecutor:
    """Stands in for the sandbox in core tests: records each run, answers with a set verdict.

    The real executor is exercised end to end in tests/executors and tests/adapters.
    """

    verdict: FakeVerdict = field(default_factory=lambda: FakeVerdict("passed", 1, 1))
    runs: list[tuple[str, str]] = field(default_factory=list)
    seeds: list[int | None] = field(default_factory=list)
    unsupported: dict[str, str] = field(default_factory=dict)
    fail_with: Exception | None = None

    def run(self, challenge_id: str, code: str, *, seed: int | None = None) -> FakeVerdict:
        self.runs.append((challenge_id, code))
        self.seeds.append(seed)
        if self.fail_with is not None:
            raise self.fail_with
        return self.verdict

    def supports(self, challenge_id: str) -> tuple[bool, str]:
        reason = self.unsupported.get(challenge_id)
        return (reason is None, reason or "")


# Each sample item is alone in its (topic, difficulty): settings pick it, as an admin would.
ONLY = {
    "t.choice-view": ("tensors", 1),
    "t.text-detach": ("autograd", 2),
    "t.text-shape": ("tensors", 3),
    "t.text-number": ("autograd", 1),
    "t.code-double": ("tensors", 2),
}


def only(quiz: Quiz, channel: ChannelSettings, item_id: str) -> ChannelSettings:
    """Set the channel's topics and difficulty so that its rounds can only be ``item_id``."""
    topic, difficulty = ONLY[item_id]
    return quiz.rounds.store.update_channel(
        channel.id, ChannelUpdate(topics=(topic,), difficulties=(difficulty,))
    )


def day(clock: FakeClock, days: int = 1) -> dt.datetime:
    """Move the clock forward by whole days."""
    return clock.advance(days=days)


def shown(message, key: str) -> str:
    """Return the letter a member sees on the button of the option stored as ``key``.

    Options are shown in an order drawn per round and per practice session; a test that types a
    letter reads it off the post, as a member would.
    """
    return next(b.label for b in message.buttons if b.action_id.rsplit(":", 1)[1] == key)
