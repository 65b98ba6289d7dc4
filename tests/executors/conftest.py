"""A real sandboxing zygote with small limits, and helpers to run code through it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from executors.grading import wire
from executors.isolation.limits import Limits
from executors.zygote.supervisor import Zygote
from tests.support.executors import (
    FAKE_SECRETS,
    SMALL_LIMITS,
    Outcome,
    RunCode,
    decode_records,
)


@pytest.fixture(scope="session")
def sandbox_zygote() -> Iterator[Zygote]:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("CI must run the sandbox tests, as root")
        pytest.skip("the sandbox tests need root (CI runs as root)")
    saved = {k: os.environ.get(k) for k in FAKE_SECRETS}
    os.environ.update(FAKE_SECRETS)  # the zygote must not pass these on
    zygote = Zygote(SMALL_LIMITS)
    try:
        zygote.start()
        yield zygote
    finally:
        zygote.close()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture
def run_code(sandbox_zygote: Zygote) -> RunCode:
    def run(code: str, *args: Any, entrypoint: str = "f", limits: Limits | None = None,
            cases: list[dict[str, Any]] | None = None) -> Outcome:
        request = wire.encode({
            "code": code, "entrypoint": entrypoint, "device": "cpu",
            "cases": cases if cases is not None else [
                {"args": list(args), "kwargs": {}, "grad": None, "check_inputs": False}
            ],
        })
        raw = sandbox_zygote.run(request, limits)
        return Outcome(raw, decode_records(raw.result))

    return run
