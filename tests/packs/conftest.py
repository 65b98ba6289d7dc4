"""A real sandbox with small limits, and small pack files to validate through it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from content.loader import Bank, load_bank
from executors.zygote.supervisor import Zygote
from tests.sandbox import real_zygote
from tests.support.packs import (
    PACK_LIMITS,
)


@pytest.fixture(scope="session")
def bank() -> Bank:
    return load_bank()


@pytest.fixture(scope="session")
def zygote() -> Iterator[Zygote]:
    with real_zygote(PACK_LIMITS) as z:
        yield z
