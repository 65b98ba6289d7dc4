"""`torchquiz bench executor` runs every measurement side by side and reports them.

Figures are printed, never asserted against time: machines are shared and noisy.
"""

from __future__ import annotations

import json

import pytest

from bot.cli import main


@pytest.mark.sandbox
@pytest.mark.slow
def test_bench_prints_a_table_and_one_json_line_with_every_figure(capsys):
    code = main(["bench", "executor", "--n", "3", "--burst", "6", "--baseline-n", "1",
                 "--replicas", "2"])
    out = capsys.readouterr().out
    assert code == 0
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["burst"] == {"submissions": 6, "ok": 6, "seconds": figures["burst"]["seconds"]}
    verdicts = figures["verdict_ms"]
    assert verdicts["challenge"] and verdicts["single"]["n"] == verdicts["back_to_back"]["n"] == 3
    assert verdicts["back_to_back"]["marginal"] > 0
    assert figures["warm_ms"]["n"] == figures["single_ms"]["n"] == 3
    assert figures["baseline_ms"]["n"] == 1
    assert figures["speedup_p50"] == pytest.approx(
        figures["baseline_ms"]["p50"] / figures["warm_ms"]["p50"])
    assert figures["all_layers_active"] is True
    assert figures["zygote_start_s"] > 0 and figures["zygote_stop_s"] > 0
    small = figures["small_pages"]
    assert small["burst"]["ok"] == 6 and small["warm_ms"]["n"] == 3
    service = figures["service"]
    assert service["http_overhead_ms"]["n"] == 3 and service["replicas"] == 2
    assert service["burst_one_replica"]["ok"] == service["burst_all_replicas"]["ok"] == 6
    packs = service["pack_challenge"]
    assert packs["first_ms"]["n"] == packs["cached_ms"]["n"] == 3
    for label in ("single verdict, idle child ready", "back to back, marginal verdict",
                  "sandbox run alone", "huge pages", "4 KiB pages: burst of 6", "baseline",
                  "speedup", "burst of 6",
                  "zygote RSS", "HTTP overhead per verdict", "burst of 6, 2 replicas",
                  "first verdict (built on the replica)", "with the challenge cached",
                  "zygote start"):
        assert label in out


def test_bench_without_a_target_prints_usage(capsys):
    assert main(["bench"]) == 2
    assert "usage: torchquiz bench executor" in capsys.readouterr().err
