"""Every card's example runs cleanly through the warm runner and prints what the card promises."""

import time

import pytest

from content.loader import load_bank
from tests.content.example_runner import clean_env, output_mismatch, run_sources

CARD_IDS = sorted(load_bank().cards)
# Small programs that pin what the runner promises: isolation, clean env, deadlines, one thread.
PROBES = {
    "secrets": "import os; print(sorted(k for k in os.environ if 'TOKEN' in k or 'SECRET' in k))",
    "environment": "import os; print(sorted(os.environ))",
    "threads": "import torch; print(torch.get_num_threads())",
    "raises": "print('before'); raise ValueError('boom')",
    "exits": "import sys; print('bye'); sys.exit(3)",
    "sleeps": "import time; print('started', flush=True); time.sleep(60)",
    "sets-global": "import torch; torch.marker = 1; LEFT_BEHIND = 1; print('set')",
    "sees-global": "import torch; print(hasattr(torch, 'marker'), 'LEFT_BEHIND' in globals())",
    "matmul-a": "import torch; a = torch.randn(256, 256); print((a @ a).shape)",
    "matmul-b": "import torch; a = torch.randn(256, 256); print((a @ a).shape)",
    "writes-file": "import os; open('f', 'w').write('x'); print(os.getcwd() != os.environ['HOME'])",
    "stderr": "import sys; print('to stderr', file=sys.stderr); print('to stdout')",
}


@pytest.fixture(scope="module")
def runs(bank, tmp_path_factory):
    """Run every card example and every probe in one warm process, with secrets in the host env.

    Prints the cost so a slowdown shows in the log (no timed assertion).
    """
    sources = {f"card:{cid}": card.example for cid, card in bank.cards.items()}
    sources |= {f"probe:{name}": source for name, source in PROBES.items()}
    started = time.monotonic()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DISCORD_TOKEN", "must-not-leak")
        patch.setenv("TORCHQUIZ_DATABASE_URL", "postgresql://secret@host/db")
        results = run_sources(sources, tmp_path_factory.mktemp("examples"),
                              timeouts={"probe:sleeps": 3.0})
    took = time.monotonic() - started
    slowest = sorted(results.items(), key=lambda kv: -kv[1].duration_s)[:3]
    print(f"\n{len(bank.cards)} card examples and {len(PROBES)} probes in {took:.1f} s; slowest: "
          + ", ".join(f"{name} {run.duration_s:.2f} s" for name, run in slowest))
    return results


@pytest.fixture(scope="module")
def probes(runs):
    return {name.removeprefix("probe:"): run for name, run in runs.items()
            if name.startswith("probe:")}


@pytest.mark.parametrize("card_id", CARD_IDS)
def test_example_runs_and_prints_the_expected_output(bank, runs, card_id):
    problem = output_mismatch(bank.cards[card_id], runs[f"card:{card_id}"])
    assert problem is None, f"{card_id}: {problem}"


# ------------------------------------------------------------------ the runner itself


def test_examples_receive_no_host_secrets(probes):
    assert probes["secrets"].stdout.strip() == "[]"


def test_examples_see_only_the_clean_environment(probes):
    # torch._dynamo's import (done once in the zygote) names its own cache folder; nothing else.
    allowed = sorted({*clean_env("x"), "TORCHINDUCTOR_CACHE_DIR"})
    assert probes["environment"].stdout.strip() == repr(allowed)


def test_each_example_runs_single_threaded(probes):
    assert probes["threads"].stdout.strip() == "1"


def test_a_raising_example_is_a_result_with_its_traceback(probes):
    run = probes["raises"]
    assert (run.returncode, run.stdout.strip()) == (1, "before")
    assert "ValueError: boom" in run.stderr


def test_sys_exit_status_is_reported(probes):
    assert (probes["exits"].returncode, probes["exits"].stdout.strip()) == (3, "bye")


def test_an_example_past_its_deadline_is_killed_and_reported(probes):
    run = probes["sleeps"]
    assert run.timed_out and run.returncode is None
    assert run.stdout.strip() == "started"


def test_examples_share_no_state(probes):
    assert probes["sets-global"].stdout.strip() == "set"
    assert probes["sees-global"].stdout.strip() == "False False"


def test_forked_children_run_matmuls_without_hanging(probes):
    # The zygote never runs a torch op, so no OpenMP pool exists to deadlock a forked child.
    for name in ("matmul-a", "matmul-b"):
        assert probes[name].returncode == 0 and not probes[name].timed_out, probes[name].stderr


def test_each_example_works_in_its_own_folder(probes):
    assert probes["writes-file"].stdout.strip() == "True"


def test_stdout_and_stderr_are_kept_apart(probes):
    assert probes["stderr"].stdout.strip() == "to stdout"
    assert probes["stderr"].stderr.strip() == "to stderr"

