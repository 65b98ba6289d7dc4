"""`torchquiz bench core` on a small data set: the JSON contract and its correctness checks.

A benchmark, run here for what it reports, never for how fast: no figure is asserted on.
"""

from __future__ import annotations

import json

import pytest

from bench.core import main
from bot.cli import main as cli_main

KEYS = {"backend", "answers", "leaderboard_week_ms", "leaderboard_all_ms", "stats_ms",
        "record_answer_ms", "queries_per_leaderboard", "content_stats_ms", "content_stats_items"}
SMALL = ["--answers", "3000", "--members", "60", "--rounds", "40", "--repeat", "2",
         "--record-samples", "5", "--concurrent", "30", "--threads", "8", "--channels", "40",
         "--replicas", "2", "--review-cards", "600", "--reminder-members", "40", "--json"]


def _run(capsys, *extra):
    assert main([*SMALL, *extra]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _check(result, backend):
    assert set(result) >= KEYS
    assert result["backend"] == backend
    assert result["answers"] == 3000
    assert all(isinstance(result[k], float | int) for k in KEYS - {"backend"})
    assert result["boards_equal_recount"] is True
    # one statement: the top totals with their streaks, the hidden members, the rounds
    assert result["queries_per_leaderboard"] == 1
    assert result["queries_per_call"]["stats"] == 2
    assert result["concurrent"]["exactly_once"] is True
    assert result["concurrent"]["totals_equal_recount"] is True
    assert result["concurrent"]["board_equal_recount"] is True
    assert result["fan_out"]["exactly_once"] is True
    learning = result["learning"]
    assert learning["review_cards"] == 600
    assert all(learning[k] > 0 for k in ("practice_start_ms", "practice_pick_ms",
                                         "fsrs_update_ms"))
    reminders = learning["reminders"]
    assert reminders["nudges"] == 20 and reminders["exactly_once"] is True
    assert reminders["statements_per_batch"] <= 3


def test_bench_core_prints_one_json_object_for_sqlite(capsys, tmp_path):
    [result] = _run(capsys, "--no-postgres", "--workdir", str(tmp_path))
    _check(result, "sqlite")


@pytest.mark.postgres
def test_bench_core_measures_postgres_on_the_given_server(capsys, tmp_path, pg_server):
    results = _run(capsys, "--postgres-url", pg_server.url, "--workdir", str(tmp_path))
    assert [r["backend"] for r in results] == ["sqlite", "postgresql"]
    _check(results[1], "postgresql")


def test_more_answers_than_the_members_can_give_are_refused_with_the_members_needed(tmp_path):
    # 2,000 members over 365 rounds hold about 1.1M answers: 10M would silently stop short.
    with pytest.raises(SystemExit, match="pass --members 18487"):
        main(["--answers", "10000000", "--no-postgres", "--workdir", str(tmp_path)])


def test_bench_without_a_known_benchmark_prints_both(capsys):
    assert cli_main(["bench", "nothing"]) == 2
    usage = capsys.readouterr().err
    assert "bench executor" in usage and "bench core" in usage
