"""Create, watch, kill and remove the per-run cgroups (v1 memory+pids, or v2).

Each zygote owns one folder per hierarchy, named by a random id (``zygote-<hex>``), never by
its pid: pids repeat across pid namespaces (containers, supervisors that unshare), so a name
or a liveness check built from a pid lets two executors share, or reap, each other's cgroups.
Ownership is an ``flock`` the zygote holds on each of its folders for as long as it lives.
The kernel drops the lock when the owner dies, in whatever namespace it ran, so a reaper
removes only folders whose lock it can take: a live zygote's folders are never touched.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import secrets
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


ZYGOTE_PREFIX = "zygote-"
# Creating a folder and locking it are two steps: a reaper may lock (and remove) a folder in
# between. The owner then sees its folder gone and starts again under a new id.
CREATE_ATTEMPTS = 5


def new_zygote_name() -> str:
    """Return a fresh zygote folder name, unique whatever pid namespace the zygote runs in."""
    return ZYGOTE_PREFIX + secrets.token_hex(16)


def _lock_folder(path: str, *, wait: bool) -> int | None:
    """Open ``path`` and take its flock; return the descriptor, or None if another holds it."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:
        os.close(fd)
        raise
    return fd


def _same_folder(path: str, fd: int) -> bool:
    """Say whether ``path`` still names the folder open at ``fd`` (not removed, not replaced)."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except OSError:
        return False


def _reap_folder(zdir: str, version: int) -> bool:
    """Kill and remove the runs of a dead zygote's folder, then the folder; False if it lives."""
    try:
        fd = _lock_folder(zdir, wait=False)
    except OSError:
        return False  # gone already, or not ours to open
    if fd is None:
        return False  # its owner holds the lock: alive, whatever its pid looks like from here
    try:
        if not _same_folder(zdir, fd):
            return False  # another reaper removed it while we waited for the lock
        runs = [os.path.join(zdir, d) for d in os.listdir(zdir)
                if os.path.isdir(os.path.join(zdir, d))]  # fmt: skip
        for run in runs:
            stale = RunCgroup(version, (run,), run, run)
            stale.kill_all(timeout_s=1.0)
            stale.remove(timeout_s=1.0)
        with contextlib.suppress(OSError):
            os.rmdir(zdir)
    except OSError as exc:
        log.warning("cgroups of dead zygote %s not removed: %s", os.path.basename(zdir), exc)
    finally:
        os.close(fd)
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

    def __init__(self, name: str | None = None) -> None:
        self.version = 0
        self.parents: dict[str, str] = {}
        self.problem = ""
        self.name = ""
        self._locks: list[int] = []
        for _ in range(CREATE_ATTEMPTS if name is None else 1):
            self.name = name or new_zygote_name()
            if self._detect(self.name):
                return
            # A reaper took one of our fresh folders between mkdir and flock: new id.
            self._release()
            self.parents, self.version = {}, 0
        self.problem = "cgroups: our folder was removed while it was being created"

    @property
    def available(self) -> bool:
        """Say whether per-run cgroups can be created on this machine."""
        return self.version != 0

    def reap_stale(self) -> int:
        """Remove cgroups left by zygotes that died without cleaning up; return how many.

        Only folders named ``zygote-<id>`` whose lock is free are touched. Folders of the
        older pid-named scheme (``z<pid>``) are left alone: nothing proves their owner dead.
        """
        tops = {os.path.dirname(parent) for parent in self.parents.values()}
        reaped = 0
        for top in tops:
            try:
                entries = os.listdir(top)
            except OSError:
                continue
            for entry in entries:
                if not entry.startswith(ZYGOTE_PREFIX) or entry == self.name:
                    continue
                if _reap_folder(os.path.join(top, entry), self.version):
                    reaped += 1
                    log.warning("removed cgroups of dead zygote %s", entry)
        return reaped

    def _hold(self, path: str) -> bool:
        """Lock our own folder; False when a reaper removed it before we held it."""
        try:
            fd = _lock_folder(path, wait=True)
        except FileNotFoundError:
            return False
        if fd is None:  # a blocking flock either succeeds or raises
            return False
        self._locks.append(fd)
        return _same_folder(path, fd)

    def _release(self) -> None:
        for fd in self._locks:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._locks = []
        for parent in set(self.parents.values()):
            with contextlib.suppress(OSError):
                os.rmdir(parent)

    def lock_fds(self) -> tuple[int, ...]:
        """Return the descriptors that hold our folders (a forked helper closes its copies)."""
        return tuple(self._locks)

    def _detect(self, name: str) -> bool:
        """Make and lock our folders; False when one vanished meanwhile (try another name)."""
        try:
            if os.path.exists(os.path.join(CGROUP_ROOT, "cgroup.controllers")):
                parent = os.path.join(CGROUP_ROOT, "torchquiz", name)
                os.makedirs(parent)
                self.parents = {"memory": parent, "pids": parent}
                if not self._hold(parent):
                    return False
                # v2: controllers must be enabled on the way down; processes live in leaves.
                top = os.path.join(CGROUP_ROOT, "torchquiz")
                for directory in (CGROUP_ROOT, top, parent):
                    with contextlib.suppress(OSError):
                        _write(os.path.join(directory, "cgroup.subtree_control"),
                               "+memory +pids +cpu")
                if os.path.exists(os.path.join(parent, "cpu.max")):
                    self.parents["cpu"] = parent
                self.version = 2
                return True
            for controller in ("memory", "pids"):
                parent = os.path.join(CGROUP_ROOT, controller, "torchquiz", name)
                os.makedirs(parent)
                self.parents[controller] = parent
                if not self._hold(parent):
                    return False
            try:
                parent = os.path.join(CGROUP_ROOT, "cpu", "torchquiz", name)
                os.makedirs(parent)
                self.parents["cpu"] = parent
                if not self._hold(parent):
                    return False
            except OSError as exc:  # CPU sharing is fairness, not containment: run without it
                log.warning("cgroup cpu controller unavailable: %s", exc)
                self.parents.pop("cpu", None)
            self.version = 1
        except OSError as exc:
            self.problem = f"cgroups not writable: {exc}"
            self._release()
            self.parents = {}
        return True

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
        """Remove the zygote's parent cgroups (their runs must be gone already), then unlock."""
        self._release()


def reap_zygote(name: str) -> bool:
    """Remove the folders of the dead zygote ``name`` in every hierarchy; False if it lives.

    The supervisor calls this when its own zygote died, so that the runs' cgroups go at once
    rather than when the next zygote starts.
    """
    if not name.startswith(ZYGOTE_PREFIX) or "/" in name:
        return False
    if os.path.exists(os.path.join(CGROUP_ROOT, "cgroup.controllers")):
        folders = [(os.path.join(CGROUP_ROOT, "torchquiz", name), 2)]
    else:
        folders = [(os.path.join(CGROUP_ROOT, c, "torchquiz", name), 1)
                   for c in ("memory", "pids", "cpu")]  # fmt: skip
    dead = True
    for zdir, version in folders:
        if os.path.isdir(zdir):
            dead = _reap_folder(zdir, version) and dead
    return dead
