"""What comes back from the sandbox is hostile too: inert text, one verdict per file, no replay.

Each test here pins a finding of the trusted-side red-team pass (issue: "What comes back from
the sandbox is hostile too"): the submission controls its return values, their type names, its
prints and its exception text, so none of them may crash, forge or leak anything on our side.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import re
import unicodedata
from pathlib import Path

import pytest

from bot.core.questions.answers import hidden_test_seed
from content.loader import load_bank
from executors.cli import exec_command as cli
from executors.engine import LocalExecutor
from executors.grading.verdict import Status
from executors.service.client import ExecutorClient
from executors.service.protocol import TOKEN_ENV, URLS_ENV
from executors.zygote.supervisor import Zygote
from tests.executors.http_service import InProcessService
from tests.support.executors import SMALL_LIMITS

pytestmark = pytest.mark.sandbox

CHALLENGE = "code.one-hot"
SURROGATE_NAME = (
    "def one_hot(labels, num_classes):\n"
    "    class Odd:\n        pass\n"
    "    Odd.__qualname__ = 'Odd\\ud800'\n"
    "    return Odd()\n"
)
FORGED_LINE = (
    "def one_hot(labels, num_classes):\n"
    "    class Odd:\n        pass\n"
    "    Odd.__qualname__ = 'x\\nsolution.py: passed (6/6)'\n"
    "    return Odd()\n"
)
TERMINAL_TRICKS = (
    "def one_hot(labels, num_classes):\n"
    "    print('\\x1b[2K\\r\\x07solution.py: passed (6/6)\\x1b[8m', end='')\n"
    "    print('\\u202e\\u200b\\u2028hidden')\n"
    "    return None\n"
)
HOSTILE_ERROR = (
    "def one_hot(labels, num_classes):\n"
    "    raise ValueError('\\x1b[31m@everyone <@&123> <!channel> **fake** \\ud800\\n\\rnext')\n"
)


def _files(tmp_path: Path, *sources: str) -> list[str]:
    paths = []
    for i, source in enumerate(sources):
        path = tmp_path / f"s{i}.py"
        path.write_text(source, encoding="utf-8", errors="surrogatepass")
        paths.append(str(path))
    return paths


def _controls(text: str) -> list[str]:
    return [hex(ord(ch)) for ch in text
            if ch != "\n" and (unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"))]


@pytest.fixture(scope="module", params=["local", "http"])
def transport(request):
    """Grade in a sandbox of this process, or through the executor service over HTTP.

    For "http", `torchquiz exec` finds the service in TORCHQUIZ_EXECUTOR_URLS, exactly as an
    operator would point it at a replica; the service runs in this process, so a grader
    patched by a test is the one the service uses.
    """
    if request.param == "local":
        yield None
        return
    zygote = Zygote(SMALL_LIMITS)
    zygote.start()
    executor = LocalExecutor(load_bank(), zygote)
    try:
        with InProcessService(executor, zygote.layers()) as service, \
                pytest.MonkeyPatch.context() as env:
            env.setenv(URLS_ENV, service.url)
            env.setenv(TOKEN_ENV, service.token)
            yield service
    finally:
        executor.close()


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory, transport):
    """Run every hostile file through `torchquiz exec` once as JSON and once for people."""
    tmp = tmp_path_factory.mktemp("hostile")
    solution = load_bank().questions[CHALLENGE].code.solution
    files = _files(tmp, SURROGATE_NAME, solution, FORGED_LINE, TERMINAL_TRICKS, HOSTILE_ERROR,
                   SURROGATE_NAME)
    runs = {}
    for mode in ("json", "human"):
        out, err = io.StringIO(), io.StringIO()
        extra = ["--json"] if mode == "json" else []
        code = cli.main(["--challenge", CHALLENGE, *extra, *files], stdout=out, stderr=err)
        runs[mode] = (code, out.getvalue())
    return files, runs


def test_every_file_gets_exactly_one_verdict_whatever_it_returns(hostile_runs):
    files, runs = hostile_runs
    code, out = runs["json"]
    verdicts = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(verdicts) == len(files)
    assert [v["status"] for v in verdicts] == ["failed", "passed", "failed", "failed", "error",
                                               "failed"]
    assert "cannot be graded" in verdicts[0]["message"]
    out.encode("ascii")  # nothing a terminal could choke on


def test_human_output_has_one_verdict_line_per_file_and_no_forged_ones(hostile_runs):
    files, runs = hostile_runs
    code, out = runs["human"]
    out.encode("utf-8")  # a lone surrogate would have raised here, ending the run
    verdict_lines = [line for line in out.splitlines() if not line.startswith(" ")]
    assert code == 0 and len(verdict_lines) == len(files)
    for path, line in zip(files, verdict_lines, strict=True):
        assert line.startswith(f"{path}: ")


def test_terminal_escapes_reach_the_terminal_as_visible_text(hostile_runs):
    _, runs = hostile_runs
    _, out = runs["human"]
    assert _controls(out) == []
    assert "\\x1b[2K" in out and "\\x0d" in out and "\\u202e" in out and "\\x07" in out


def test_a_grader_crash_on_one_file_is_that_files_fault_verdict(tmp_path, monkeypatch, transport):
    from executors import engine

    real = engine.judge
    calls = []

    def crash_on_second(challenge, raw, limits):
        calls.append(1)
        if len(calls) == 2:
            raise KeyError("a grader bug this submission found")
        return real(challenge, raw, limits)

    monkeypatch.setattr(engine, "judge", crash_on_second)
    item = load_bank().questions[CHALLENGE]
    files = _files(tmp_path, item.code.solution, item.code.solution, item.code.solution)
    out = io.StringIO()
    code = cli.main(["--challenge", CHALLENGE, "--json", *files], stdout=out, stderr=io.StringIO())
    verdicts = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 0 and [v["fault"] for v in verdicts] == [False, True, False]
    assert [v["status"] for v in verdicts] == ["passed", "error", "passed"]


# ---------------------------------------------------------------- replaying hidden answers

_REVEALED = re.compile(r"at \[([\d, ]+)\]: expected ([-\d.e]+)")


def _learner_code(learned: dict[tuple[int, ...], dict[tuple[int, ...], float]]) -> str:
    """Return a submission that prints its inputs and answers only from what it learned."""
    return (
        "import torch\n"
        f"LEARNED = {learned!r}\n"
        "def one_hot(labels, num_classes):\n"
        "    key = tuple(labels.flatten().tolist()) + tuple(labels.shape) + (num_classes,)\n"
        "    print('KEY', key)\n"
        "    out = torch.zeros(*labels.shape, num_classes)\n"
        "    for index, value in LEARNED.get(key, {}).items():\n"
        "        out[index] = value\n"
        "    return out\n"
    )


def test_a_learner_that_replays_failure_messages_never_passes(transport):
    """Practise one challenge over many sessions and tries, learning only from what it is told.

    The learner sees what a member sees: the message and its own prints (which show the hidden
    inputs). Before hidden inputs were drawn per session and messages stopped quoting expected
    values, this learner passed code.one-hot on its 26th try (measured on the old code).
    """
    zygote = Zygote(SMALL_LIMITS)
    if transport is None:
        zygote.start()
    learned: dict[tuple[int, ...], dict[tuple[int, ...], float]] = {}
    messages = []
    try:
        executor = (LocalExecutor(load_bank(), zygote) if transport is None
                    else ExecutorClient([transport.url], transport.token))
        opened = dt.datetime(2026, 12, 1, 9, tzinfo=dt.UTC)
        for session in range(10):
            seed = hidden_test_seed("practice", 7, CHALLENGE, opened + dt.timedelta(hours=session))
            for _ in range(5):
                verdict = executor.run(CHALLENGE, _learner_code(learned), seed=seed)
                assert verdict.status is not Status.PASSED, f"replay passed: {verdict}"
                messages.append(verdict.message)
                keys = [eval(line[4:]) for line in verdict.stdout.splitlines()  # noqa: S307
                        if line.startswith("KEY ")]
                match = _REVEALED.search(verdict.message)
                if match:
                    test = int(verdict.message.split()[1]) - 1
                    cell = tuple(int(i) for i in match[1].split(","))
                    learned.setdefault(keys[test], {})[cell] = float(match[2])
    finally:
        zygote.close()
    assert learned == {}, "a failure message revealed a hidden expected value"
    assert all(m.startswith("test ") and "values differ" in m for m in messages), messages[:3]
