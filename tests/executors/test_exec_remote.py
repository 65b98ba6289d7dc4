"""`torchquiz exec` where the executor extra is missing (the bot image): it grades through the
service named by TORCHQUIZ_EXECUTOR_URLS; and each command's sandbox message names only its
own options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from content.loader import load_bank
from executors.cli import service_command
from executors.service.protocol import TOKEN_ENV, URLS_ENV
from executors.zygote import doctor
from executors.zygote.reports import LayerStatus
from tests.executors.replica_group import ReplicaGroup
from tests.support.executors import REPO

CHALLENGE = "code.one-hot"  # cheap to run: no gradient check
TOKEN = "exec-remote-test-token"
# What the bot image lacks: importing any of them fails, as it would there, and is recorded.
MISSING = ("torch", "numpy", "aiohttp", "prometheus_client", "pyseccomp", "seccomp")
WITHOUT_THE_EXTRA = textwrap.dedent(f"""
    import atexit, importlib.abc, sys
    MISSING = {MISSING!r}
    tried = []
    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in MISSING:
                tried.append(name)
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None
    sys.meta_path.insert(0, Missing())
    atexit.register(lambda: print("tried to import:", sorted(set(tried)), file=sys.stderr))
    from bot.cli import main
    raise SystemExit(main(sys.argv[1:]))
""")


def torchquiz_without_the_extra(args: list[str], env: dict[str, str]):
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_THE_EXTRA, *args], cwd=REPO, capture_output=True,
        text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
    )


@pytest.fixture(scope="module")
def service_url():
    with ReplicaGroup(TOKEN, 1, max_parallel=2) as group:
        yield group.urls[0]


@pytest.fixture
def answers(tmp_path):
    item = load_bank().questions[CHALLENGE]
    paths = []
    for name, text in (("solution.py", item.code.solution), ("starter.py", item.code.starter)):
        path = tmp_path / name
        path.write_text(text)
        paths.append(str(path))
    return paths


@pytest.mark.sandbox
def test_exec_without_the_executor_extra_grades_through_the_service(service_url, answers):
    done = torchquiz_without_the_extra(
        ["exec", "--challenge", CHALLENGE, "--json", *answers],
        {URLS_ENV: service_url, TOKEN_ENV: TOKEN},
    )
    assert done.returncode == 0, done.stderr
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(v["status"], v["fault"]) for v in verdicts] == [("passed", False), ("failed", False)]
    assert "tried to import: []" in done.stderr  # the remote path never reached for them


@pytest.mark.sandbox
def test_exec_grades_a_pack_file_on_the_service_with_its_definition(service_url, tmp_path):
    from content.packs import SCAFFOLD

    pack = tmp_path / "pack.yaml"
    pack.write_text(SCAFFOLD)
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("def row_normalise(x):\n    return x / x.sum(dim=1, keepdim=True)\n")
    bad.write_text("def row_normalise(x):\n    return x / x.sum()\n")
    done = torchquiz_without_the_extra(
        ["exec", "--challenge", "row-normalise", "--pack", str(pack), "--json", str(good),
         str(bad)], {URLS_ENV: service_url, TOKEN_ENV: TOKEN},
    )
    assert done.returncode == 0, done.stderr
    verdicts = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(v["challenge_id"], v["status"]) for v in verdicts] == [
        ("p.my-team.row-normalise", "passed"), ("p.my-team.row-normalise", "failed")]


def test_exec_without_the_extra_and_without_a_service_says_how_to_grade(answers):
    done = torchquiz_without_the_extra(["exec", "--challenge", CHALLENGE, answers[0]],
                                       {URLS_ENV: ""})
    assert done.returncode == 3, done.stderr
    assert "executor extra is not installed" in done.stderr
    assert URLS_ENV in done.stderr
    assert done.stdout == ""


@pytest.mark.sandbox
def test_serve_without_the_sandbox_offers_no_insecure_flag(monkeypatch):
    # `executor serve` has no insecure mode: its refusal must not suggest one.
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("CI must run the sandbox tests, as root")
        pytest.skip("the zygote needs root to start (CI runs as root)")
    monkeypatch.setattr(doctor, "probe_layers", lambda z: {
        "seccomp": LayerStatus(False, "off"), "uid": LayerStatus(True, "ok")})
    with pytest.raises(service_command.WarmUpFailed) as failed:
        service_command.warm_up(1, None)
    message = str(failed.value)
    assert "sandbox layers missing: seccomp" in message
    assert "--insecure" not in message and "no insecure mode" in message
