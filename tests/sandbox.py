"""Start the real sandbox for tests: skip on a machine that cannot run it, fail in CI."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from executors.isolation.limits import Limits
from executors.zygote.supervisor import SandboxUnavailable, Zygote


@contextmanager
def real_zygote(limits: Limits | None = None, **options: Any) -> Iterator[Zygote]:
    """Yield a started zygote with every layer on; close it afterwards."""
    zygote = Zygote(limits or Limits(), **options)
    try:
        zygote.start()
    except SandboxUnavailable as exc:
        zygote.close()
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the sandbox tests: {exc}")
        pytest.skip(f"sandbox unavailable here: {exc}")
    try:
        yield zygote
    finally:
        zygote.close()
