"""`torchquiz bench web` on a small data set: what it reports, never how fast it was."""

from __future__ import annotations

import json

from bench.web import PAGES, main


def test_bench_web_signs_in_and_reports_each_page_beside_chats_board(capsys):
    assert main(["--answers", "2000", "--members", "60", "--rounds", "40", "--repeat", "2",
                 "--no-postgres", "--json"]) == 0
    [result] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert result["backend"] == "sqlite" and result["answers"] > 500
    for page in PAGES:
        assert result[f"{page}_statements"] > 0
        assert 1000 < result[f"{page}_bytes"] < 100_000  # a page, and under the 100 kB budget
    assert {"chat_leaderboard_week_ms", "chat_leaderboard_all_ms"} <= set(result)
