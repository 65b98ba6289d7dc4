"""A driver for each chat platform: a scenario written once runs on Discord and on Slack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from executors.speed.supervisor import SpeedTimer
from executors.zygote.supervisor import Zygote
from tests.adapters.chat.discord_driver import DiscordDriver
from tests.adapters.chat.driver import Harness
from tests.adapters.chat.slack_driver import SlackDriver
from tests.support.speed import running_timer

DRIVERS: dict[str, type[Harness[Any]]] = {"discord": DiscordDriver, "slack": SlackDriver}


@pytest.fixture(params=sorted(DRIVERS))
def chat(request: pytest.FixtureRequest, tmp_path: Path, zygote: Zygote) -> Harness[Any]:
    """Return a driver, not started: ``chat.run(scenario)`` runs a scenario on its platform."""
    return DRIVERS[request.param](tmp_path, zygote)


@pytest.fixture(scope="session")
def speed_timer() -> Iterator[SpeedTimer]:
    """A real speed timer (sandboxed children, the cgroup clock), for the speed scenarios."""
    with running_timer() as timer:
        yield timer
