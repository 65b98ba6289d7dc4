"""The speed timer's own cgroups: CPU accounting (the clock) and a cpuset (one CPU per call).

cgroup v1 mounts ``cpuacct`` and ``cpuset`` as hierarchies of their own (on this project's
machines ``cpuacct`` sits apart from ``cpu``); v2 keeps ``cpu.stat`` and ``cpuset.cpus`` in
the run's one folder. Either way the kernel counts every thread and process of the run, and
nothing inside the sandbox can write these files.
"""

from __future__ import annotations

import contextlib
import os

from executors.isolation.cgroups import CGROUP_ROOT, RunCgroup


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _inherit_cpuset(directory: str) -> None:
    """Copy the parent's CPUs and memory nodes into a new v1 cpuset (it starts with none)."""
    parent = os.path.dirname(directory)
    for name in ("cpuset.cpus", "cpuset.mems"):
        path = os.path.join(directory, name)
        if not _read(path).strip():
            _write(path, _read(os.path.join(parent, name)).strip())


class SpeedCgroups:
    """Make, beside a run's cgroup, the folders that time it and pin it to one CPU."""

    def __init__(self, name: str, version: int, cpu: int) -> None:
        self.version = version
        self.cpu = cpu
        self.parents: dict[str, str] = {}
        if version == 1:
            for controller in ("cpuacct", "cpuset"):
                top = os.path.join(CGROUP_ROOT, controller)
                if not os.path.isdir(top):
                    continue
                path = top
                for part in ("torchquiz", name):
                    path = os.path.join(path, part)
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(path)
                    if controller == "cpuset":
                        _inherit_cpuset(path)
                self.parents[controller] = path
        if version == 1 and "cpuacct" not in self.parents:
            raise OSError("no cpuacct cgroup hierarchy: the speed timer has no clock")

    def attach(self, run: RunCgroup, run_id: str) -> RunCgroup:
        """Return ``run`` with our folders added (they are killed and removed with it)."""
        dirs = list(run.dirs)
        if self.version == 1:
            for controller, parent in self.parents.items():
                directory = os.path.join(parent, run_id)
                os.mkdir(directory)
                if controller == "cpuset":
                    _inherit_cpuset(directory)
                    _write(os.path.join(directory, "cpuset.cpus"), str(self.cpu))
                dirs.append(directory)
        else:
            with contextlib.suppress(OSError):  # the cpuset controller may not be enabled
                _write(os.path.join(run.memory_dir, "cpuset.cpus"), str(self.cpu))
        return RunCgroup(run.version, tuple(dirs), run.memory_dir, run.pids_dir, run.cpu_dir)

    def usage_ns(self, run: RunCgroup) -> int:
        """Return the CPU nanoseconds every task of ``run`` has used so far."""
        if self.version == 1:
            directory = next(d for d in run.dirs if "/cpuacct/" in d)
            return int(_read(os.path.join(directory, "cpuacct.usage")).strip())
        for line in _read(os.path.join(run.memory_dir, "cpu.stat")).splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) * 1000
        raise OSError("cpu.stat has no usage_usec")

    def close(self) -> None:
        """Remove our parent folders (every run's folder is gone by now)."""
        for path in self.parents.values():
            with contextlib.suppress(OSError):
                os.rmdir(path)
