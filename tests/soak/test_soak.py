"""The short soak in the suite: one simulated day of real replicas, faults and invariants.

Two `torchquiz slack --http` replicas and two `torchquiz discord` shard processes on one
PostgreSQL under a clock 720 times faster than the wall clock (one day in two minutes, after a
minute for the four processes to start), members clicking, each process killed with SIGKILL
(a Slack replica while its post is in flight), PostgreSQL restarted twice, bursts of 429. Any
invariant violation (tests/soak/run.py ``Soak.check``) fails the test. About 3.5 to 4 minutes
of wall time on the 2-core machine; `make soak` runs thirty days.
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
    assert report["discord_shard_processes"] == 2 and report["discord_channels"] == 2
    kinds = {fault["kind"] for fault in report["faults"]}
    assert {"kill -9", "PostgreSQL restart", "429 burst"} <= kinds
    assert report["violations"] == []
