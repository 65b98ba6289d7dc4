"""A driver for each chat platform: a scenario written once runs on Discord and on Slack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from executors.zygote.supervisor import Zygote
from tests.adapters.chat.discord_driver import DiscordDriver
from tests.adapters.chat.driver import Harness
from tests.adapters.chat.slack_driver import SlackDriver

DRIVERS: dict[str, type[Harness[Any]]] = {"discord": DiscordDriver, "slack": SlackDriver}


@pytest.fixture(params=sorted(DRIVERS))
def chat(request: pytest.FixtureRequest, tmp_path: Path, zygote: Zygote) -> Harness[Any]:
    """Return a driver, not started: ``chat.run(scenario)`` runs a scenario on its platform."""
    return DRIVERS[request.param](tmp_path, zygote)
