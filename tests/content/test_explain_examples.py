"""Every concept card's example runs cleanly in a fresh interpreter and prints what it promises."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from content.loader import load_bank

CARD_IDS = sorted(load_bank().cards)
TIMEOUT_S = 30


def _clean_env(home: str) -> dict[str, str]:
    # Only what an interpreter needs: no tokens, DB URLs or other host secrets reach the example.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LC_ALL": "C.UTF-8"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["OMP_NUM_THREADS"] = "1"  # many examples run at once; keep them from fighting for cores
    return env


@pytest.fixture(scope="module")
def runs(bank, tmp_path_factory):
    """Run all examples at once (each costs an `import torch`) and keep their results by card."""
    home = str(tmp_path_factory.mktemp("examples"))

    def run(card_id):
        try:
            return subprocess.run(
                [sys.executable, "-I", "-c", bank.cards[card_id].example],
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                cwd=home,
                env=_clean_env(home),
            )
        except subprocess.TimeoutExpired as exc:
            return exc

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return dict(zip(CARD_IDS, pool.map(run, CARD_IDS), strict=True))


@pytest.mark.parametrize("card_id", CARD_IDS)
def test_example_runs_and_prints_the_expected_output(bank, runs, card_id):
    result = runs[card_id]
    assert not isinstance(result, subprocess.TimeoutExpired), f"{card_id} ran over {TIMEOUT_S}s"
    assert result.returncode == 0, result.stderr[-2000:]
    expected = bank.cards[card_id].expected_output
    if expected is not None:
        assert result.stdout.strip() == expected.strip()


def test_examples_receive_no_host_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("DISCORD_TOKEN", "must-not-leak")
    probe = "import os; print(sorted(k for k in os.environ if 'TOKEN' in k or 'SECRET' in k))"
    env = _clean_env(str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-I", "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"
