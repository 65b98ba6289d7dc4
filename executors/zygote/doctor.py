"""Probe every isolation layer from inside a real sandboxed child and report what is active."""

from __future__ import annotations

import os
import resource
from typing import Any, Protocol

from executors.grading import wire
from executors.zygote.reports import LayerStatus, RawRun

# Runs inside the sandbox as an ordinary submission and returns what it sees.
PROBE_CODE = r'''
import os, resource, socket

def probe():
    def read(path):
        try:
            with open(path) as f:
                return f.read()
        except OSError as exc:
            return "ERR " + type(exc).__name__
    status = {}
    for line in read("/proc/self/status").splitlines():
        key, _, value = line.partition(":")
        status[key] = value.strip()
    names = {"cpu": resource.RLIMIT_CPU, "data": resource.RLIMIT_DATA,
             "fsize": resource.RLIMIT_FSIZE, "nofile": resource.RLIMIT_NOFILE,
             "core": resource.RLIMIT_CORE, "nproc": resource.RLIMIT_NPROC}
    visible = {}
    for path in ("/etc/shadow", "/etc/passwd", "/root/.bashrc", "/home", "/var", "/sys",
                 "/usr/bin/sh", "/bin/sh"):
        visible[path] = os.path.exists(path)
    proc_extra = sorted(n for n in os.listdir("/proc")
                        if not n.isdigit() and n not in ("self", "thread-self"))
    tmp_writable = True
    try:
        with open("/tmp/.probe", "w") as f:
            f.write("x")
    except OSError:
        tmp_writable = False
    root_writable = True
    try:
        open("/probe", "w").close()
    except OSError:
        root_writable = False
    return {
        "uid": os.getuid(), "gid": os.getgid(), "pid": os.getpid(),
        "ns": {n: os.readlink("/proc/self/ns/" + n)
               for n in ("user", "pid", "net", "mnt", "ipc", "uts")},
        "uid_map": read("/proc/self/uid_map").split(),
        "seccomp": status.get("Seccomp"), "no_new_privs": status.get("NoNewPrivs"),
        "cap_eff": status.get("CapEff"), "cap_bnd": status.get("CapBnd"),
        "rlimits": {k: list(resource.getrlimit(v)) for k, v in names.items()},
        "cgroup": read("/proc/self/cgroup"),
        "mounts": read("/proc/self/mounts"),
        "interfaces": [name for _, name in socket.if_nameindex()],
        "env": sorted(os.environ),
        "visible": visible, "tmp_writable": tmp_writable, "root_writable": root_writable,
        "proc_extra": proc_extra,
        "hostname": socket.gethostname(),
    }
'''

HOST_ONLY_PATHS = ("/etc/shadow", "/root/.bashrc", "/home", "/var", "/sys", "/bin/sh")
ALLOWED_ENV = {"PATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
               "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "OMP_NUM_THREADS",
               "MKL_NUM_THREADS", "PYTHONDONTWRITEBYTECODE"}  # fmt: skip


class ProbeTarget(Protocol):
    """A running zygote as the doctor sees it: it runs a request and says how it started."""

    @property
    def hello(self) -> dict[str, Any]:
        """Return what the zygote reported about itself at start."""
        ...

    def run(self, request: bytes) -> RawRun:
        """Run one harness request in a fresh sandboxed child."""
        ...


def probe_request() -> bytes:
    """Build the harness request that reports what the child sees."""
    return wire.encode(
        {"code": PROBE_CODE, "entrypoint": "probe", "device": "cpu",
         "cases": [{"args": [], "kwargs": {}, "grad": None, "check_inputs": False}]},
    )  # fmt: skip


def probe_view(zygote: ProbeTarget) -> dict[str, Any]:
    """Run the probe in a real child and return its decoded report (raise if it failed)."""
    raw = zygote.run(probe_request())
    records = [wire.decode(f, max_bytes=len(f), max_depth=8) for f in wire.iter_frames(raw.result)]
    if len(records) < 2 or not records[1].get("ok"):
        raise RuntimeError(f"doctor probe failed: {records!r} {raw.stderr[-500:]!r}")
    report = records[1]["output"]
    if not isinstance(report, dict):
        raise RuntimeError("doctor probe returned no report")
    return report


def evaluate(report: dict[str, Any], hello: dict[str, Any]) -> dict[str, LayerStatus]:
    """Turn the child's report into one LayerStatus per layer."""
    layers: dict[str, LayerStatus] = {}
    uid = report["uid"]
    layers["uid"] = LayerStatus(
        uid != 0 and report["uid_map"][:2] == [str(uid), str(uid)],
        f"uid {uid} inside and on the host (uid_map {' '.join(report['uid_map'])})",
    )
    for name, value in report["ns"].items():
        host = os.readlink(f"/proc/self/ns/{name}")
        layers[f"{name}_namespace"] = LayerStatus(value != host, f"{value} (host {host})")
    layers["pid_namespace"] = LayerStatus(
        layers["pid_namespace"].active and report["pid"] == 1,
        layers["pid_namespace"].detail + f", pid {report['pid']}",
    )
    layers["network"] = LayerStatus(
        report["interfaces"] == ["lo"], f"interfaces: {report['interfaces']}"
    )
    leaks = [p for p in HOST_ONLY_PATHS if report["visible"].get(p)]
    mounts = report["mounts"].splitlines()
    root_fs = next((m.split()[2] for m in mounts if m.split()[1:2] == ["/"]), "?")
    layers["filesystem"] = LayerStatus(
        not leaks and not report["root_writable"] and report["tmp_writable"] and root_fs == "tmpfs",
        f"root {root_fs}, read-only {not report['root_writable']}, host paths visible: {leaks}, "
        f"{len(mounts)} mounts",
    )
    extra = report["proc_extra"]
    layers["procfs"] = LayerStatus(
        not extra, "processes only (subset=pid, hidepid=invisible)" if not extra
        else f"{len(extra)} non-process entries visible, e.g. {', '.join(extra[:4])}",
    )
    layers["seccomp"] = LayerStatus(report["seccomp"] == "2", f"Seccomp: {report['seccomp']}")
    layers["no_new_privs"] = LayerStatus(
        report["no_new_privs"] == "1", f"NoNewPrivs: {report['no_new_privs']}"
    )
    layers["capabilities"] = LayerStatus(
        int(report["cap_eff"] or "1", 16) == 0 and int(report["cap_bnd"] or "1", 16) == 0,
        f"CapEff {report['cap_eff']}, CapBnd {report['cap_bnd']}",
    )
    rl = report["rlimits"]
    layers["rlimits"] = LayerStatus(
        all(rl[k][1] != resource.RLIM_INFINITY for k in ("cpu", "data", "fsize", "nofile"))
        and rl["core"] == [0, 0],
        "cpu {cpu} data {data} fsize {fsize} nofile {nofile} core {core}".format(**rl),
    )
    in_cgroup = "torchquiz" in report["cgroup"]
    fallback = bool(hello.get("nproc_fallback"))
    layers["memory_limit"] = LayerStatus(
        in_cgroup or rl["data"][1] != resource.RLIM_INFINITY,
        "cgroup memory limit + RLIMIT_DATA" if in_cgroup else "fallback: RLIMIT_DATA only",
    )
    layers["pids_limit"] = LayerStatus(
        in_cgroup or (fallback and rl["nproc"][1] != resource.RLIM_INFINITY),
        f"cgroup v{hello.get('cgroups')} pids.max" if in_cgroup
        else "fallback: RLIMIT_NPROC on a distinct uid per slot",
    )  # fmt: skip
    extra_env = sorted(set(report["env"]) - ALLOWED_ENV)
    layers["environment"] = LayerStatus(not extra_env, f"unexpected variables: {extra_env}")
    layers["zygote_cuda_free"] = LayerStatus(
        not hello.get("cuda_initialized"), "CUDA never initialised in the zygote"
    )
    return layers


def probe_layers(zygote: ProbeTarget) -> dict[str, LayerStatus]:
    """Probe a running zygote's layers; a failed probe marks every layer inactive."""
    try:
        report = probe_view(zygote)
    except Exception as exc:
            return {"sandbox": LayerStatus(False, f"probe failed: {exc}"[:500])}
    return evaluate(report, zygote.hello)
