"""The test Docker engine that `make test` starts, and the images built on it."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.deploy import images as builder

DOCKER_HOST_ENV = "TORCHQUIZ_TEST_DOCKER_HOST"
DOCKER_DIR_ENV = "TORCHQUIZ_TEST_DOCKER_DIR"
FIGURES = pytest.StashKey[dict[str, Any]]()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Print what building the images took (measured, never asserted)."""
    figures = config.stash.get(FIGURES, None)
    if figures is None:
        return
    sizes = ", ".join(f"{tag} {mb:.0f} MB" for tag, mb in figures["sizes_mb"].items())
    terminalreporter.write_line(
        f"container images: base {figures['base_s']:.0f} s, bot {figures['bot_s']:.0f} s, "
        f"executor {figures['executor_s']:.0f} s (torch from {figures['torch_from']}), "
        f"postgres {figures['postgres_s']:.0f} s, "
        f"{figures['total_s']:.0f} s in all; {sizes}; the tests waited "
        f"{figures['waited_s']:.0f} s for them")
    if "ready_s" in figures:
        terminalreporter.write_line(
            f"executor container: ready {figures['ready_s']:.1f} s after docker run")
    if "compose_ready_s" in figures:
        terminalreporter.write_line(
            f"compose stack: ready {figures['compose_ready_s']:.1f} s after up "
            "(PostgreSQL, two executor replicas, the bot)")


@pytest.fixture(scope="session")
def docker_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return the test engine's folder; fail in CI and skip elsewhere when there is none."""
    if not os.environ.get(DOCKER_HOST_ENV):
        if os.environ.get("CI"):
            pytest.fail(f"{DOCKER_HOST_ENV} is not set: CI must run the container tests; "
                        "`make test` starts the engine with scripts/docker-test-engine.sh",
                        pytrace=False)
        pytest.skip(f"{DOCKER_HOST_ENV} is not set; run `make test`, or export it from "
                    "`scripts/docker-test-engine.sh start .ci-docker`")
    configured = os.environ.get(DOCKER_DIR_ENV)
    return Path(configured) if configured else tmp_path_factory.mktemp("docker")


@pytest.fixture(scope="session")
def built(docker_dir: Path, request: pytest.FixtureRequest) -> dict[str, Any]:
    """Return the build figures once the base, bot and executor images exist."""
    started = time.monotonic()
    figures = builder.built_images(docker_dir)
    figures["waited_s"] = time.monotonic() - started
    request.config.stash[FIGURES] = figures
    return figures
