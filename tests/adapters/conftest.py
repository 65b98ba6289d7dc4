"""One real sandbox for every adapter test that runs a chat platform's app in-process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from executors.zygote.supervisor import Zygote
from tests.sandbox import real_zygote


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    # Starting one imports torch (seconds): one for the session, not one per module. Each
    # scenario builds its own executor and app over it; only the zygote outlives them.
    with real_zygote(max_parallel=2) as z:
        yield z
