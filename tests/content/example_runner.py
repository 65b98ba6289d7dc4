"""Run every card's example through one warm interpreter and compare what it prints.

``import torch`` costs over a second, so a fresh interpreter per example made 18 cards take half
a minute. Here one process imports torch once and forks a child per example (the zygote in
``tests/content/_example_zygote.py``); each child gets its own working folder, one thread, pipes
for its output and a deadline. The process starts with a minimal environment: no token, database
URL or other secret of the host reaches an example.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from content.schema import ExplainCard

ZYGOTE = Path(__file__).resolve().parent / "_example_zygote.py"
TIMEOUT_S = 30.0
MAX_OUTPUT = 256 * 1024
# Importing torch and forking children is a fixed cost; this bounds a wedged zygote, not a run.
_STARTUP_S = 120.0


@dataclass(frozen=True)
class ExampleRun:
    """What one example did: exit status (None when killed), output, deadline, wall time."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    duration_s: float = 0.0


def clean_env(home: str) -> dict[str, str]:
    """Return the only variables an example sees: what an interpreter needs, nothing secret."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "TMPDIR": home,
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        # Children run side by side on few cores; OpenMP would start a thread per core in each.
        "OMP_NUM_THREADS": "1",
    }


def run_sources(
    sources: Mapping[str, str],
    home: Path,
    *,
    timeout_s: float = TIMEOUT_S,
    timeouts: Mapping[str, float] | None = None,
    workers: int | None = None,
) -> dict[str, ExampleRun]:
    """Run each source (by name) in a forked child of one warm zygote; return every result.

    ``timeouts`` gives single sources their own deadline instead of ``timeout_s``.

    Raise RuntimeError when the zygote itself fails (not when an example does: that is a result).
    """
    request = {
        "examples": dict(sources),
        "timeout_s": timeout_s,
        "timeouts": dict(timeouts or {}),
        "workers": workers or os.cpu_count() or 2,
        "max_output": MAX_OUTPUT,
    }
    done = subprocess.run(
        [sys.executable, "-I", str(ZYGOTE)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=home,
        env=clean_env(str(home)),
        timeout=_STARTUP_S + sum((timeouts or {}).get(name, timeout_s) for name in sources),
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"the example zygote exited with {done.returncode}: {done.stderr[-2000:]}"
        )
    raw = json.loads(done.stdout)
    return {name: ExampleRun(**raw[name]) for name in sources}


def output_mismatch(card: ExplainCard, run: ExampleRun) -> str | None:
    """Return why ``run`` does not show what ``card`` promises, or None when it does."""
    if run.timed_out:
        return "the example ran past its deadline"
    if run.returncode != 0:
        return f"the example exited with {run.returncode}: {run.stderr[-1500:]}"
    if card.expected_output is not None and run.stdout.strip() != card.expected_output.strip():
        return f"printed:\n{run.stdout.strip()}\nexpected:\n{card.expected_output.strip()}"
    return None
