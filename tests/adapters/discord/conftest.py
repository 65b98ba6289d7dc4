"""Run a Discord-only scenario: the real bot (unmodified discord.py) against the fake Discord.

The harness is the chat driver's (tests/adapters/chat/discord_driver.py): scenarios that both
platforms share live in tests/adapters/chat/; what stays here reads Discord's own protocol
(command registration, autocomplete, callbacks) through ``h.fake``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from executors.zygote.supervisor import Zygote
from tests.adapters.chat.discord_driver import DiscordDriver

Scenario = Callable[[DiscordDriver], Awaitable[None]]


@pytest.fixture
def discord_run(tmp_path: Path, zygote: Zygote) -> Callable[..., None]:
    """Return a runner: ``discord_run(scenario)`` runs it against a fresh fake and database."""

    def run(scenario: Scenario, **options: Any) -> None:
        DiscordDriver(tmp_path, zygote).run(scenario, **options)

    return run
