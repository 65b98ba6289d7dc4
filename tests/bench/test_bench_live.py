"""`torchquiz bench live` on a few players: its JSON and its correctness checks.

A benchmark, run here for what it reports, never for how fast: no figure is asserted on
(the exit status says whether the timing targets were met, so it is not asserted either).
"""

from __future__ import annotations

import json

import pytest

from bench.live import main


@pytest.mark.parametrize("platform", ["discord", "slack"])
def test_the_live_bench_keeps_each_answer_once_and_the_reveal_equal_to_the_database(
        capsys, platform):
    main(["--players", "6", "--spread", "0.3", "--double-share", "0.5", "--platform", platform,
          "--no-postgres", "--max-in-flight", "50", "--json"])
    [result] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (result["platform"], result["backend"]) == (platform, "sqlite")
    assert (result["players"], result["clicks"], result["double_clicks"]) == (6, 9, 3)
    assert result["exactly_once"] is True and result["reveal_matches_db"] is True
    assert sum(result["db_counts"]) == result["answers_recorded"] == result["locked_in"]
    assert set(result["ack_ms"]) == {"p50", "p95", "p99"}
