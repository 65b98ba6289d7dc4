"""The short soak in the suite: one simulated day of real replicas, faults and invariants.

Two `torchquiz slack --http` replicas on one PostgreSQL under a clock 720 times faster than the
wall clock (one day in two minutes), members clicking, each replica killed with SIGKILL (one
while a post is in flight), PostgreSQL restarted, bursts of 429. Any invariant violation
(tests/soak/run.py ``Soak.check``) fails the test. About 3 minutes of wall time on the 2-core
machine; `make soak` runs thirty days.
"""

from __future__ import annotations

import pytest

from tests.soak.run import Config, Soak, markdown

pytestmark = pytest.mark.slow


def test_one_simulated_day_with_faults_breaks_no_invariant(tmp_path):
    report = Soak(Config(days=1.0, speed=720.0, out=tmp_path / "soak")).run()
    print(markdown(report))
    assert report["rounds_posted"] >= 8  # ten channels, most of them due in the day
    assert report["answers"] > 0 and report["clicks"]["first"] > 0
    kinds = {fault["kind"] for fault in report["faults"]}
    assert {"kill -9", "PostgreSQL restart", "429 burst"} <= kinds
    assert report["violations"] == []
