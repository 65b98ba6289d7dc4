"""Create, watch, kill and remove the per-run cgroups (v1 memory+pids, or v2)."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import time
from dataclasses import dataclass

from executors.isolation.limits import Limits

log = logging.getLogger(__name__)

CGROUP_ROOT = "/sys/fs/cgroup"
# The forked warm image dirties some shared pages (reference counts); those copies are
# charged to the run. Headroom keeps a trivial run far from the limit.
COW_HEADROOM_BYTES = 64 * 1024 * 1024
# A CUDA context and the CUDA libraries' pages live in host memory on top of the budget
# (the budget itself is then enforced on the device by set_per_process_memory_fraction).
GPU_HOST_HEADROOM_BYTES = 2 * 1024 * 1024 * 1024


def host_memory_limit(limits: Limits, *, gpu: bool) -> int:
    """Return the cgroup memory limit for a run: the budget plus what the warm image needs."""
    return limits.memory_bytes + COW_HEADROOM_BYTES + (GPU_HOST_HEADROOM_BYTES if gpu else 0)


# The template waits inside the next run's cgroup and leaves right after forking its child.
TEMPLATE_ALLOWANCE = 1
# CFS bandwidth: a run gets `limits.threads` CPUs' worth of time per period, however many
# processes it forks, so a fork of spinners cannot starve the runs beside it.
CPU_PERIOD_US = 100_000


def cpu_quota_us(limits: Limits) -> int:
    """Return the CFS quota per period for a run."""
    return max(1, limits.threads) * CPU_PERIOD_US


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


@dataclass(frozen=True)
class RunCgroup:
    """Name the directories of one run's cgroup in every hierarchy it uses."""

    version: int
    dirs: tuple[str, ...]
    memory_dir: str
    pids_dir: str
    cpu_dir: str = ""  # empty when the cpu controller is not available

    def pids(self) -> set[int]:
        """Return every pid currently in the run's cgroups."""
        found: set[int] = set()
        for directory in self.dirs:
            for line in _read(os.path.join(directory, "cgroup.procs")).split():
                with contextlib.suppress(ValueError):
                    found.add(int(line))
        return found

    def oom_killed(self) -> bool:
        """Say whether the kernel OOM-killed anything in this run."""
        if self.version == 2:
            events = _read(os.path.join(self.memory_dir, "memory.events"))
        else:
            events = _read(os.path.join(self.memory_dir, "memory.oom_control"))
        for line in events.splitlines():
            key, _, value = line.partition(" ")
            if key in ("oom_kill", "oom") and value.strip() not in ("", "0"):
                return True
        return False

    def hit_limit(self) -> bool:
        """Say whether memory use ever reached the limit (v1 failcnt; v2 max events)."""
        if self.version == 2:
            for line in _read(os.path.join(self.memory_dir, "memory.events")).splitlines():
                key, _, value = line.partition(" ")
                if key == "max" and value.strip() != "0":
                    return True
            return False
        return _read(os.path.join(self.memory_dir, "memory.failcnt")).strip() not in ("", "0")

    def kill_all(self, *, timeout_s: float = 2.0, spare: int | None = None) -> bool:
        """SIGKILL every process in the run until none is left; return True when empty.

        ``spare`` is the template, which may sit in the cgroup for a moment after the fork.
        """
        deadline = time.monotonic() + timeout_s
        if self.version == 2:
            with contextlib.suppress(OSError):
                _write(os.path.join(self.pids_dir, "cgroup.kill"), "1")
        while True:
            pids = self.pids() - {spare}
            if not pids:
                return True
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                return False
            time.sleep(0.002)

    def remove(self, *, timeout_s: float = 2.0) -> bool:
        """Remove the run's cgroup directories; return False if one stays busy."""
        deadline = time.monotonic() + timeout_s
        ok = True
        for directory in self.dirs:
            while True:
                try:
                    os.rmdir(directory)
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        log.error("cgroup %s not removed: %s", directory, exc)
                        ok = False
                        break
                    time.sleep(0.002)
        return ok


class CgroupManager:
    """Own one parent cgroup per zygote and make a fresh child cgroup per run."""

    def __init__(self, name: str) -> None:
        self.version = 0
        self.parents: dict[str, str] = {}
        self.problem = ""
        self._detect(name)

    @property
    def available(self) -> bool:
        """Say whether per-run cgroups can be created on this machine."""
        return self.version != 0

    def reap_stale(self) -> None:
        """Remove cgroups left by zygotes that died without cleaning up (SIGKILL, OOM)."""
        tops = {os.path.dirname(parent) for parent in self.parents.values()}
        for top in tops:
            for entry in os.listdir(top):
                pid = entry[1:]
                if not entry.startswith("z") or not pid.isdigit() or _alive(int(pid)):
                    continue
                zdir = os.path.join(top, entry)
                runs = [os.path.join(zdir, d) for d in os.listdir(zdir)
                        if os.path.isdir(os.path.join(zdir, d))]  # fmt: skip
                for run in runs:
                    stale = RunCgroup(self.version, (run,), run, run)
                    stale.kill_all(timeout_s=1.0)
                    stale.remove(timeout_s=1.0)
                with contextlib.suppress(OSError):
                    os.rmdir(zdir)
                log.warning("removed cgroups of dead zygote %s", pid)

    def _detect(self, name: str) -> None:
        try:
            if os.path.exists(os.path.join(CGROUP_ROOT, "cgroup.controllers")):
                parent = os.path.join(CGROUP_ROOT, "torchquiz", name)
                os.makedirs(parent, exist_ok=True)
                # v2: controllers must be enabled on the way down; processes live in leaves.
                top = os.path.join(CGROUP_ROOT, "torchquiz")
                for directory in (CGROUP_ROOT, top, parent):
                    with contextlib.suppress(OSError):
                        _write(os.path.join(directory, "cgroup.subtree_control"),
                               "+memory +pids +cpu")
                self.parents = {"memory": parent, "pids": parent}
                if os.path.exists(os.path.join(parent, "cpu.max")):
                    self.parents["cpu"] = parent
                self.version = 2
                return
            for controller in ("memory", "pids"):
                parent = os.path.join(CGROUP_ROOT, controller, "torchquiz", name)
                os.makedirs(parent, exist_ok=True)
                self.parents[controller] = parent
            try:
                parent = os.path.join(CGROUP_ROOT, "cpu", "torchquiz", name)
                os.makedirs(parent, exist_ok=True)
                self.parents["cpu"] = parent
            except OSError as exc:  # CPU sharing is fairness, not containment: run without it
                log.warning("cgroup cpu controller unavailable: %s", exc)
            self.version = 1
        except OSError as exc:
            self.problem = f"cgroups not writable: {exc}"
            self.parents = {}

    def create(self, run_id: str, limits: Limits, *, gpu: bool = False) -> RunCgroup:
        """Make the run's cgroups with memory and pids limits set."""
        memory_limit = str(host_memory_limit(limits, gpu=gpu))
        if self.version == 2:
            directory = os.path.join(self.parents["memory"], run_id)
            os.mkdir(directory)
            _write(os.path.join(directory, "memory.max"), memory_limit)
            with contextlib.suppress(OSError):
                _write(os.path.join(directory, "memory.swap.max"), "0")
            _write(os.path.join(directory, "pids.max"), str(limits.pids + TEMPLATE_ALLOWANCE))
            cpu_dir = directory if "cpu" in self.parents else ""
            cgroup = RunCgroup(2, (directory,), directory, directory, cpu_dir)
            self._set_cpu(cgroup, limits)
            return cgroup
        memory_dir = os.path.join(self.parents["memory"], run_id)
        pids_dir = os.path.join(self.parents["pids"], run_id)
        os.mkdir(memory_dir)
        os.mkdir(pids_dir)
        dirs = [memory_dir, pids_dir]
        cpu_dir = ""
        if "cpu" in self.parents:
            cpu_dir = os.path.join(self.parents["cpu"], run_id)
            os.mkdir(cpu_dir)
            dirs.append(cpu_dir)
        _write(os.path.join(memory_dir, "memory.limit_in_bytes"), memory_limit)
        with contextlib.suppress(OSError):  # absent without swap accounting
            _write(os.path.join(memory_dir, "memory.memsw.limit_in_bytes"), memory_limit)
        _write(os.path.join(pids_dir, "pids.max"), str(limits.pids + TEMPLATE_ALLOWANCE))
        cgroup = RunCgroup(1, tuple(dirs), memory_dir, pids_dir, cpu_dir)
        self._set_cpu(cgroup, limits)
        return cgroup

    @staticmethod
    def _set_cpu(cgroup: RunCgroup, limits: Limits) -> None:
        if not cgroup.cpu_dir:
            return
        quota = cpu_quota_us(limits)
        if cgroup.version == 2:
            _write(os.path.join(cgroup.cpu_dir, "cpu.max"), f"{quota} {CPU_PERIOD_US}")
            return
        _write(os.path.join(cgroup.cpu_dir, "cpu.cfs_period_us"), str(CPU_PERIOD_US))
        _write(os.path.join(cgroup.cpu_dir, "cpu.cfs_quota_us"), str(quota))

    def set_limits(self, cgroup: RunCgroup, limits: Limits, *, gpu: bool = False) -> None:
        """Rewrite a prepared cgroup's limits for the run that takes it."""
        memory_limit = str(host_memory_limit(limits, gpu=gpu))
        pids = str(limits.pids + TEMPLATE_ALLOWANCE)
        self._set_cpu(cgroup, limits)
        if cgroup.version == 2:
            _write(os.path.join(cgroup.memory_dir, "memory.max"), memory_limit)
            _write(os.path.join(cgroup.pids_dir, "pids.max"), pids)
            return
        limit = os.path.join(cgroup.memory_dir, "memory.limit_in_bytes")
        memsw = os.path.join(cgroup.memory_dir, "memory.memsw.limit_in_bytes")
        if _read(limit).strip() != memory_limit:
            # memsw must stay >= the limit: raise it first when growing, last when shrinking.
            order = (memsw, limit) if int(memory_limit) > int(_read(limit) or 0) else (limit, memsw)
            for path in order:
                with contextlib.suppress(FileNotFoundError):
                    _write(path, memory_limit)
        _write(os.path.join(cgroup.pids_dir, "pids.max"), pids)

    def close(self) -> None:
        """Remove the zygote's parent cgroups (their runs must be gone already)."""
        for parent in set(self.parents.values()):
            with contextlib.suppress(OSError):
                os.rmdir(parent)
