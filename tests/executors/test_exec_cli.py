"""`torchquiz exec` through its main(): JSON lines, exit codes, doctor, settings."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from content.loader import BANK_ROOT, load_bank
from executors.cli import exec_command as cli
from executors.zygote.reports import LayerStatus
from executors.zygote.supervisor import SandboxUnavailable
from tests.sandbox import real_zygote

CHALLENGE = "code.one-hot"  # cheap to run: no gradient check
REQUIRED_KEYS = {"status", "passed_tests", "total_tests", "stdout", "message", "duration_ms"}


@pytest.fixture(scope="module")
def needs_sandbox():
    """Skip locally (fail in CI) where the real sandbox cannot start; checked once per module."""
    with real_zygote():
        pass


class UnavailableZygote:
    """Stands in for a machine without the isolation layers."""

    def __init__(self, insecure: bool) -> None:
        self.insecure = insecure
        self.closed = False

    def start(self) -> None:
        raise SandboxUnavailable("sandbox layers missing: pid_namespace, seccomp; pass the flag")

    def layers(self) -> dict[str, LayerStatus]:
        return {"uid": LayerStatus(True, "uid 61000"), "seccomp": LayerStatus(False, "off")}

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def one_hot_files(tmp_path):
    item = load_bank().questions[CHALLENGE]
    paths = []
    for name, data in [
        ("solution.py", item.code.solution.encode()),
        ("starter.py", item.code.starter.encode()),
        ("nul.py", b"def one_hot(labels, n):\x00\n"),
    ]:
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(str(path))
    return paths


@pytest.mark.sandbox
def test_json_prints_one_verdict_per_file_in_order(capsys, one_hot_files, needs_sandbox):
    code = cli.main(["--challenge", CHALLENGE, "--json", *one_hot_files])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    verdicts = [json.loads(line) for line in out]
    assert [v["status"] for v in verdicts] == ["passed", "failed", "rejected"]
    for v in verdicts:
        assert v.keys() >= REQUIRED_KEYS
    assert verdicts[0]["passed_tests"] == verdicts[0]["total_tests"] > 0


@pytest.mark.sandbox
def test_content_dir_setting_points_at_another_bank(capsys, tmp_path, monkeypatch, needs_sandbox):
    (tmp_path / "questions").mkdir()
    (tmp_path / "questions" / "extra.yaml").write_text(
        textwrap.dedent(
            """
            items:
              - id: code.add-one
                version: 3
                kind: code
                topics: [tensors]
                difficulty: 1
                seed_refs: ["000:1"]
                prompt: {en: p, zh-CN: p}
                explanation: {en: e, zh-CN: e}
                code:
                  entrypoint: f
                  signature: "def f(x)"
                  starter: "def f(x):\\n    ...\\n"
                  solution: "def f(x):\\n    return x + 1\\n"
                  tests:
                    generator: |
                      import torch
                      def cases(g):
                          return [{'args': [torch.ones(2)]}]
            """
        )
    )
    submission = tmp_path / "answer.py"
    submission.write_text("def f(x):\n    print('hi')\n    return x + 1\n")
    monkeypatch.setenv(cli.CONTENT_DIR_ENV, str(tmp_path))
    assert cli.main(["--challenge", "code.add-one", "--json", str(submission)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert (verdict["status"], verdict["challenge_version"], verdict["stdout"]) == (
        "passed", 3, "hi\n"
    )


@pytest.mark.sandbox
def test_doctor_prints_the_layer_table_and_exits_by_it(capsys, needs_sandbox):
    code = cli.main(["--doctor"])
    rows = capsys.readouterr().out.splitlines()
    assert rows
    states = [row.split()[1] for row in rows]
    assert set(states) <= {"ON", "OFF"}
    assert code == (0 if all(s == "ON" for s in states) else 1)


def test_doctor_exits_one_when_a_layer_is_off(capsys):
    assert cli.main(["--doctor"], make_zygote=UnavailableZygote) == 1
    out = capsys.readouterr().out
    assert "seccomp  OFF  off" in out


def test_missing_file_is_an_error_without_verdicts(capsys, one_hot_files):
    code = cli.main(["--challenge", CHALLENGE, "--json", one_hot_files[0], "/no/such/file.py"],
                    make_zygote=UnavailableZygote)
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert "/no/such/file.py" in captured.err


def test_unavailable_sandbox_names_the_layers_and_the_flag(capsys, one_hot_files):
    code = cli.main(["--challenge", CHALLENGE, "--json", one_hot_files[0]],
                    make_zygote=UnavailableZygote)
    err = capsys.readouterr().err
    assert code == 3
    assert "pid_namespace, seccomp" in err
    assert "--insecure-no-sandbox" in err


def test_insecure_flag_warns_loudly_and_reaches_the_sandbox(capsys, one_hot_files):
    seen = []

    def factory(insecure):
        seen.append(insecure)
        return UnavailableZygote(insecure)

    cli.main(["--insecure-no-sandbox", "--challenge", CHALLENGE, one_hot_files[0]],
             make_zygote=factory)
    assert seen == [True]
    assert "WITHOUT full isolation" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [[], ["--challenge", CHALLENGE], ["--json", "x.py"]],
    ids=["nothing", "no-files", "no-id"],
)
def test_incomplete_arguments_are_a_usage_error(capsys, argv):
    assert cli.main(argv, make_zygote=UnavailableZygote) == 2
    assert "--challenge ID" in capsys.readouterr().err


def test_content_root_defaults_to_the_packaged_bank():
    assert cli.content_root({}) == BANK_ROOT
    assert str(cli.content_root({cli.CONTENT_DIR_ENV: "/srv/bank"})) == "/srv/bank"


def test_gpu_check_script_explains_a_machine_without_cuda():
    pytest.importorskip("torch")
    import subprocess
    import sys

    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the script would run the real GPU checks")
    script = BANK_ROOT.parent / "scripts" / "gpu_check.sh"
    done = subprocess.run(
        ["bash", str(script)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "CUDA is not available here" in done.stdout
