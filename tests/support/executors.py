"""Helpers shared by the tests of tests/executors/ (its conftest.py keeps the fixtures)."""

from __future__ import annotations

import os
import sysconfig
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from executors.grading import wire
from executors.isolation.layers import sandbox_ids
from executors.isolation.limits import MIB, Limits
from executors.zygote.reports import RawRun

SMALL_LIMITS = Limits(
    wall_s=3.0, cpu_s=3, memory_bytes=384 * MIB, pids=16, output_bytes=16 * 1024,
    result_bytes=1 * MIB, tmpfs_bytes=8 * MIB, file_bytes=2 * MIB,
)


FAKE_SECRETS = {"TORCHQUIZ_SECRET": "s3cr3t-torchquiz-value", "SLACK_BOT_TOKEN": "xoxb-fake-123"}


REPO = Path(__file__).resolve().parents[2]


SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])


CGROUP_PARENTS = ("/sys/fs/cgroup/memory/torchquiz", "/sys/fs/cgroup/pids/torchquiz")


@dataclass(frozen=True)
class Outcome:
    """A run plus its decoded records (None when the stream was malformed)."""

    raw: RawRun
    records: list[Any] | None

    @property
    def outputs(self) -> list[Any]:
        return [r.get("output") for r in (self.records or [])[1:] if isinstance(r, dict)]

    @property
    def errors(self) -> list[Any]:
        recs = self.records or []
        return [r.get("error") for r in recs if isinstance(r, dict) and r.get("error")]


def decode_records(result: bytes) -> list[Any] | None:
    try:
        return [wire.decode(f, max_bytes=len(f)) for f in wire.iter_frames(result)]
    except wire.WireError:
        return None


RunCode = Callable[..., Outcome]


def sandbox_processes() -> list[int]:
    """Return host pids owned by the sandbox uid."""
    uid = str(sandbox_ids()[0])
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        if uid in line.split()[1:]:
                            found.append(int(entry))
                        break
        except OSError:
            continue
    return found


def run_cgroups() -> list[str]:
    """Return the per-run cgroup directories that still exist."""
    left = []
    for parent in CGROUP_PARENTS:
        if os.path.isdir(parent):
            for zdir in os.listdir(parent):
                path = os.path.join(parent, zdir)
                if os.path.isdir(path):
                    left += [os.path.join(path, d) for d in os.listdir(path)
                             if os.path.isdir(os.path.join(path, d))]
    return left


def folder_exists(name: str) -> bool:
    """Say whether a zygote folder ``name`` is still in any cgroup hierarchy."""
    return any(os.path.isdir(os.path.join(parent, name)) for parent in CGROUP_PARENTS)


def zygote_folder(path: str) -> str | None:
    """Return the zygote folder name in a cgroup path (``.../torchquiz/NAME/...``), if any."""
    parts = path.split("/")
    if "torchquiz" in parts[:-1]:
        return parts[parts.index("torchquiz") + 1]
    return None


def held_folders(pid: int) -> set[str]:
    """Return the zygote folders process ``pid`` holds open (a zygote holds its own, locked)."""
    names = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return names
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/sys/fs/cgroup/") and (name := zygote_folder(target + "/x")):
            names.add(name)
    return names


def process_folder(pid: int) -> str | None:
    """Return the zygote folder whose run cgroup holds ``pid`` (None: in no run cgroup)."""
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        name = zygote_folder(line.partition(":")[2].partition(":")[2])
        if name:
            return name
    return None


def _status_fields(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as f:
            return {k: v.strip() for k, _, v in (line.partition(":") for line in f)}
    except OSError:
        return {}


def _templates() -> set[int]:
    """Return the pids of zygote templates: root children of an executors.zygote process."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if b"executors.zygote" not in f.read():
                    continue
        except OSError:
            continue
        for pid in os.listdir("/proc"):
            fields = _status_fields(int(pid)) if pid.isdigit() else {}
            if fields.get("PPid") == entry and fields.get("Uid", "").split()[:1] == ["0"]:
                found.add(int(pid))
    return found


def _zygotes() -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if b"executors.zygote" in f.read():
                        found.add(int(entry))
            except OSError:
                continue
    return found


def _foreign(pid: int, others: set[int]) -> bool:
    """Say whether ``pid`` descends from a zygote that this test process did not start."""
    for _ in range(64):
        if pid in others:
            return True
        parent = int(_status_fields(pid).get("PPid", "0") or 0)
        if parent <= 1:
            return False
        pid = parent
    return False


def leftovers() -> tuple[list[int], list[str]]:
    """Return sandbox processes and cgroups that belong to no idle or prepared slot.

    Between runs a zygote keeps one child pre-forked (isolated, waiting for a request, a direct
    child of the template) in its own cgroup, and the template waits in the next cgroup.
    Anything else - a process under a run's pid 1, a cgroup of a finished run - is a leak.
    Only this test process's zygotes are judged, by their cgroup folders (each zygote holds
    its own open): other suites on the machine, and the folders of a zygote another suite
    has just killed (left for its reaper), are not this suite's to judge. A sandbox process
    in no run cgroup at all always is (it escaped), unless it has exited and only waits for
    the host's init to reap it.
    """
    templates = _templates()
    zygotes = _zygotes()
    # Forked children keep the zygote's command line: a top-level zygote is one whose parent is
    # not a zygote; ours are the ones this test process started.
    parents = {z: int(_status_fields(z).get("PPid", "0") or 0) for z in zygotes}
    others = {z for z, parent in parents.items() if parent not in zygotes and parent != os.getpid()}
    ours = set().union(*(held_folders(z) for z, parent in parents.items()
                         if parent == os.getpid()))
    procs = []
    for p in sandbox_processes():
        fields = _status_fields(p)
        if fields.get("State", "").startswith("Z") and fields.get("PPid") == "1":
            # Exited, and orphaned: its tree's template is gone, so it is no live zygote's
            # run. It waits for the host's init, which may reap it seconds later on a busy
            # machine (most often a zygote another suite killed on purpose).
            continue
        folder = process_folder(p)
        if (folder is None and not _foreign(p, others)) or folder in ours:
            procs.append(p)
    idle = {p for p in procs if int(_status_fields(p).get("PPid", "0")) in templates}
    allowed = templates | idle
    groups = []
    for path in run_cgroups():
        if zygote_folder(path) not in ours:
            continue
        try:
            with open(os.path.join(path, "cgroup.procs")) as f:
                members = {int(x) for x in f.read().split()}
        except OSError:
            continue
        if not members or not members <= allowed:
            groups.append(path)
    return [p for p in procs if p not in idle], groups


def assert_nothing_left(timeout_s: float = 3.0) -> None:
    """Fail unless no sandbox process and no finished run's cgroup remain."""
    deadline = time.monotonic() + timeout_s
    while True:
        procs, groups = leftovers()
        if not procs and not groups:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"left behind: processes {procs}, cgroups {groups}")
        time.sleep(0.02)
