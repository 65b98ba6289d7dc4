"""A zygote's cgroups belong to it whatever PID namespace anyone runs in; a start that fails is
retried once, and `torchquiz exec` still gives every file a verdict."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from content.loader import load_bank
from executors.cli import exec_command as cli
from executors.grading import wire
from executors.isolation.cgroups import CgroupManager, new_zygote_name
from executors.isolation.limits import Limits
from executors.zygote.supervisor import START_ATTEMPTS, Zygote, ZygoteError
from tests.support.executors import REPO, decode_records, folder_exists

CHALLENGE = "code.one-hot"  # cheap to run: no gradient check
# Runs only inside the sandbox, where it can reach nothing but its own run's processes.
KILL_EVERYTHING = "import os, signal\ndef one_hot(labels, n):\n    os.kill(-1, signal.SIGKILL)\n"
PIDNS = ["unshare", "--pid", "--fork", "--mount-proc"]


def needs_root_and_cgroups() -> CgroupManager:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("CI must run the sandbox tests, as root")
        pytest.skip("cgroups and PID namespaces need root (CI runs as root)")
    if shutil.which("unshare") is None:
        pytest.fail("util-linux's unshare is missing (scripts/system-deps.sh installs it)")
    manager = CgroupManager()
    if not manager.available:
        pytest.fail(f"cgroups are not writable here as root: {manager.problem}")
    return manager


def in_new_pid_namespace(code: str, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run Python ``code`` as pid 1 of a fresh PID namespace (our pids look dead from there)."""
    return subprocess.run(
        [*PIDNS, sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120, check=False, **kwargs,
    )


def put_in(cgroup_dirs: tuple[str, ...], pid: int) -> None:
    for directory in cgroup_dirs:
        with open(os.path.join(directory, "cgroup.procs"), "w") as f:
            f.write(str(pid))


REAP = ("from executors.isolation.cgroups import CgroupManager\n"
        "m = CgroupManager()\nprint(m.reap_stale())\nm.close()\n")


def test_zygote_folder_names_are_random_ids_not_pids():
    names = {new_zygote_name() for _ in range(100)}
    assert len(names) == 100
    assert all(re.fullmatch(r"zygote-[0-9a-f]{32}", name) for name in names)


@pytest.mark.sandbox
def test_reaper_in_another_pid_namespace_leaves_a_live_zygotes_cgroups_alone():
    # From inside a fresh PID namespace this process's pid does not exist: a reaper that
    # judged owners by pid took every executor outside its namespace for dead, and removed
    # what it could of theirs: the empty cgroup a zygote prepares for its next run, first.
    owner = needs_root_and_cgroups()
    running = owner.create("r1", Limits())
    prepared = owner.create("r2", Limits())  # a zygote's next run: empty until the fork
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        put_in(running.dirs, sleeper.pid)
        reaper = in_new_pid_namespace(REAP)
        assert reaper.returncode == 0, reaper.stderr
        assert all(os.path.isdir(d) for d in running.dirs + prepared.dirs)
        assert sleeper.poll() is None
        assert running.pids() == {sleeper.pid}
    finally:
        sleeper.kill()
        sleeper.wait()
        running.remove()
        prepared.remove()
        owner.close()
    assert not folder_exists(owner.name)


@pytest.mark.sandbox
def test_a_dead_zygotes_cgroups_are_reaped_from_another_pid_namespace():
    needs_root_and_cgroups().close()
    # The owner makes its folder and a run holding a process, then dies without cleaning up
    # (as after SIGKILL or an OOM kill): its lock goes with it, and the run's process with it.
    owner = in_new_pid_namespace(textwrap.dedent("""
        import os, subprocess
        from executors.isolation.cgroups import CgroupManager
        from executors.isolation.limits import Limits
        m = CgroupManager()
        run = m.create("r1", Limits())
        child = subprocess.Popen(["sleep", "600"], start_new_session=True)
        for d in run.dirs:
            open(os.path.join(d, "cgroup.procs"), "w").write(str(child.pid))
        print(m.name, flush=True)
        os._exit(0)
    """))
    assert owner.returncode == 0, owner.stderr
    name = owner.stdout.strip()
    assert folder_exists(name)  # nothing cleaned it up
    reaper = in_new_pid_namespace(REAP)
    assert reaper.returncode == 0, reaper.stderr
    assert int(reaper.stdout) >= 1
    assert not folder_exists(name)


@pytest.mark.sandbox
def test_reaper_leaves_the_pid_named_folders_of_older_executors_alone():
    # An older executor still running on the machine names its folder z<pid> and holds no
    # lock: nothing proves it dead, so its folders are its own reaper's business.
    manager = needs_root_and_cgroups()
    legacy = [os.path.join(os.path.dirname(parent), "z4194303", "r1")
              for parent in set(manager.parents.values())]
    try:
        for run in legacy:
            os.makedirs(run)
        manager.reap_stale()
        assert all(os.path.isdir(run) for run in legacy)
    finally:
        for run in legacy:
            for directory in (run, os.path.dirname(run)):
                with contextlib.suppress(FileNotFoundError):
                    os.rmdir(directory)
        manager.close()


def failing_interpreter(tmp_path: Path) -> tuple[str, Path]:
    """Return an interpreter that says why on stderr and exits, counting its starts."""
    starts = tmp_path / "starts"
    script = tmp_path / "broken-python"
    script.write_text(f"#!/bin/sh\necho start >> {starts}\n"
                      "echo 'ImportError: torch is broken on this machine' >&2\nexit 1\n")
    script.chmod(0o755)
    return str(script), starts


def test_a_failed_zygote_start_is_retried_once_with_its_stderr_logged(tmp_path, caplog):
    interpreter, starts = failing_interpreter(tmp_path)
    zygote = Zygote(interpreter=interpreter)
    with caplog.at_level(logging.WARNING), pytest.raises(ZygoteError, match="did not start"):
        zygote.start()
    zygote.close()
    assert starts.read_text().splitlines() == ["start"] * START_ATTEMPTS == ["start", "start"]
    starts_logged = [r for r in caplog.records if "torch is broken on this machine" in r.message]
    assert [r.levelname for r in starts_logged] == ["WARNING", "ERROR"]


@pytest.mark.sandbox
def test_a_zygote_that_fails_its_first_start_serves_after_the_retry(tmp_path, caplog):
    needs_root_and_cgroups().close()
    marker = tmp_path / "failed-once"
    script = tmp_path / "flaky-python"
    # In Python, not sh: a shell would add variables to the zygote's allow-listed environment.
    script.write_text(textwrap.dedent(f"""\
        #!{sys.executable} -I
        import os, sys
        if not os.path.exists({str(marker)!r}):
            open({str(marker)!r}, "w").close()
            sys.exit("MemoryError: the machine is busy")
        os.execv({sys.executable!r}, [{sys.executable!r}, *sys.argv[1:]])
    """))
    script.chmod(0o755)
    request = wire.encode({"code": "def f():\n    return 7\n", "entrypoint": "f",
                           "device": "cpu", "cases": [{"args": [], "kwargs": {}}]})
    with caplog.at_level(logging.WARNING), Zygote(interpreter=str(script)) as zygote:
        assert decode_records(zygote.run(request).result)[1]["output"] == 7
    assert marker.exists()
    assert "MemoryError: the machine is busy" in caplog.text


def test_exec_gives_every_file_a_fault_verdict_when_the_sandbox_cannot_start(
        tmp_path, capsys):
    interpreter, starts = failing_interpreter(tmp_path)
    item = load_bank().questions[CHALLENGE]
    files = []
    for index in range(3):
        path = tmp_path / f"answer{index}.py"
        path.write_text(item.code.solution)
        files.append(str(path))
    code = cli.main(["--challenge", CHALLENGE, "--json", *files],
                    make_zygote=lambda insecure: Zygote(interpreter=interpreter))
    captured = capsys.readouterr()
    assert code == 0  # every file got a verdict
    verdicts = [json.loads(line) for line in captured.out.splitlines()]
    assert len(verdicts) == len(files)
    for verdict in verdicts:
        assert (verdict["status"], verdict["fault"]) == ("error", True)
        assert verdict["message"] == cli.NO_SANDBOX_MESSAGE
        assert verdict["challenge_id"] == CHALLENGE
    assert "the sandbox could not start" in captured.err
    assert len(starts.read_text().splitlines()) == START_ATTEMPTS


def _exec_in_pid_namespace(files: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PIDNS, sys.executable, "-m", "executors.cli.exec_command", "--challenge", CHALLENGE,
         "--json", *files],
        cwd=REPO, capture_output=True, text=True, timeout=500, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.sandbox
@pytest.mark.slow
def test_two_executors_in_separate_pid_namespaces_each_answer_every_file(
        tmp_path, sandbox_zygote):
    # Each `torchquiz exec` is pid 1 of its own namespace, so both zygotes have the same pid
    # there: pid-named cgroups were shared (a run's folder made twice), and each reaped the
    # folders of every zygote outside its namespace, such as this host's, serving meanwhile.
    needs_root_and_cgroups().close()
    solution = load_bank().questions[CHALLENGE].code.solution
    kinds = ["honest", "hostile", "honest", "hostile", "honest"]
    batches = []
    for executor in ("a", "b"):
        files = []
        for index, kind in enumerate(kinds):
            path = tmp_path / f"{executor}{index}-{kind}.py"
            path.write_text(solution if kind == "honest" else KILL_EVERYTHING)
            files.append(str(path))
        batches.append(files)
    host_pid = sandbox_zygote.pid
    request = wire.encode({"code": "def f():\n    return 7\n", "entrypoint": "f",
                           "device": "cpu", "cases": [{"args": [], "kwargs": {}}]})
    host_outputs, stop = [], threading.Event()

    def host_runs() -> None:
        while not stop.is_set():
            host_outputs.append(decode_records(sandbox_zygote.run(request).result)[1]["output"])

    with ThreadPoolExecutor(max_workers=3) as pool:
        host = pool.submit(host_runs)
        done = list(pool.map(_exec_in_pid_namespace, batches))
        stop.set()
        host.result()
    for result in done:
        assert result.returncode == 0, result.stderr[-4000:]
        verdicts = [json.loads(line) for line in result.stdout.splitlines()]
        assert len(verdicts) == len(kinds), result.stdout
        for kind, verdict in zip(kinds, verdicts, strict=True):
            assert not verdict["fault"], (kind, verdict, result.stderr[-4000:])
            if kind == "honest":
                assert verdict["status"] == "passed", verdict
            else:
                assert verdict["status"] != "passed", verdict
    assert host_outputs and set(host_outputs) == {7}
    assert sandbox_zygote.pid == host_pid  # the host's zygote was never hurt
