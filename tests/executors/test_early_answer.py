"""A complete result stream is answered before the process exits; nothing outlives it."""

from __future__ import annotations

import time

import pytest

from tests.support.executors import assert_nothing_left

pytestmark = pytest.mark.sandbox


def test_a_finished_run_is_answered_before_its_exit_and_leaves_nothing(run_code):
    out = run_code("def f(x):\n    return x + 1\n", 41)
    assert out.outputs == [42] and out.raw.early
    assert_nothing_left()


def test_a_run_that_stops_short_waits_for_its_exit_status(run_code):
    out = run_code("import os\ndef f():\n    os._exit(3)\n")
    assert not out.raw.early and out.raw.exit_code == 3


def test_a_run_that_forges_a_complete_stream_and_spins_is_killed_at_once(run_code):
    # Complete frames on the result pipe, then every output closed, then an endless loop:
    # the verdict goes out early, and the spinning process must not survive it.
    code = ("import os\nfrom executors.grading import wire\n"
            "def f():\n"
            "    os.write(4, wire.frame(wire.encode({'case': 0, 'ok': True, 'output': 1})))\n"
            "    for fd in (4, 1, 2):\n        os.close(fd)\n"
            "    while True:\n        pass\n")
    started = time.monotonic()
    out = run_code(code)
    assert out.raw.early and time.monotonic() - started < 2.5  # well inside the 3 s deadline
    assert_nothing_left()
