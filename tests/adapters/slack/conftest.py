"""Run a Slack-only scenario: the real app (unmodified slack-bolt) against the fake Slack.

The harness is the chat driver's (tests/adapters/chat/slack_driver.py): scenarios that both
platforms share live in tests/adapters/chat/; what stays here reads Slack's own protocol
(signatures, retries, Socket Mode, modals, installations) through ``h.fake`` and ``h.send``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from executors.zygote.supervisor import Zygote
from tests.adapters.chat.slack_driver import SlackDriver

Scenario = Callable[[SlackDriver], Awaitable[None]]


@pytest.fixture
def slack_run(tmp_path: Path, zygote: Zygote) -> Callable[..., None]:
    """Return a runner: ``slack_run(scenario, transport="socket", oauth=True, SLACK_X=...)``."""

    def run(scenario: Scenario, *, transport: str = "http", oauth: bool = False,
            **settings: Any) -> None:
        SlackDriver(tmp_path, zygote).run(scenario, transport=transport, oauth=oauth,
                                          **settings)

    return run
