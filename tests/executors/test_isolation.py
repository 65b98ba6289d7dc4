"""Each isolation layer, asserted from inside a real sandboxed child."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import pytest

from executors.grading import wire
from executors.isolation.cgroups import COW_HEADROOM_BYTES, TEMPLATE_ALLOWANCE, cpu_quota_us
from executors.isolation.layers import sandbox_ids
from executors.zygote import doctor
from executors.zygote.reports import LayerStatus
from executors.zygote.supervisor import (
    SandboxUnavailable,
    Zygote,
    ZygoteError,
    scrubbed_env,
)
from tests.support.executors import (
    FAKE_SECRETS,
    REPO,
    SMALL_LIMITS,
    assert_nothing_left,
    decode_records,
    folder_exists,
    run_cgroups,
    sandbox_processes,
    zygote_folder,
)

pytestmark = pytest.mark.sandbox

INSPECT = r'''
import os, socket
def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as exc:
        return "ERR " + type(exc).__name__
def f(what):
    return eval(what)
'''


def inside(run_code, expr):
    out = run_code(INSPECT, expr)
    assert out.records and out.records[1]["ok"], (out.records, out.raw.stderr)
    return out.outputs[0]


def status_field(run_code, name):
    status = inside(run_code, "read('/proc/self/status')")
    for line in status.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(name)


def test_uid_is_the_unprivileged_sandbox_user(run_code):
    uid, gid = sandbox_ids()
    assert inside(run_code, "(os.getuid(), os.geteuid(), os.getgid(), os.getgroups())") == (
        uid, uid, gid, [])
    assert uid != 0
    # Mapped 1:1, so the host sees the same uid; no line maps anything to host root.
    assert inside(run_code, "read('/proc/self/uid_map').split()") == [str(uid), str(uid), "1"]
    assert status_field(run_code, "Uid").split() == [str(uid)] * 4


@pytest.mark.parametrize("ns", ["user", "pid", "net", "mnt", "ipc", "uts"])
def test_namespace_differs_from_the_host(run_code, ns):
    assert inside(run_code, f"os.readlink('/proc/self/ns/{ns}')") != os.readlink(
        f"/proc/self/ns/{ns}")


def test_submission_is_pid_1_and_sees_only_its_own_processes(run_code):
    pid, procs = inside(run_code, "(os.getpid(), [p for p in os.listdir('/proc') if p.isdigit()])")
    assert pid == 1 and procs == ["1"]


def test_only_loopback_and_no_connection_to_the_host(run_code):
    assert inside(run_code, "[n for _, n in socket.if_nameindex()]") == ["lo"]
    code = ("import socket\ndef f():\n    s = socket.socket()\n    s.settimeout(1)\n"
            "    try:\n        s.connect(('127.0.0.1', 22))\n        return 'connected'\n"
            "    except OSError as e:\n        return type(e).__name__\n")
    # lo is down in a fresh network namespace: unreachable, refused, whatever - never open.
    assert run_code(code).outputs[0] in ("OSError", "ConnectionRefusedError", "TimeoutError")


@pytest.mark.parametrize(
    "path", ["/etc/shadow", "/etc/passwd", "/root/.bashrc", str(REPO / "executors"),
             str(REPO / "content"), str(REPO / "pyproject.toml"), "/home", "/var", "/sys",
             "/bin/sh", "/usr/bin"],
)
def test_host_path_is_absent(run_code, path):
    assert inside(run_code, f"os.path.exists({path!r})") is False


def test_host_tmp_is_not_visible(run_code, tmp_path):
    marker = tmp_path / "host-only"
    marker.write_text("x")
    assert inside(run_code, f"os.path.exists({str(marker)!r})") is False
    # Only the way down to binds that live under /tmp (a checkout there, as in CI) may show.
    bound = (sysconfig.get_paths()["purelib"], sys.prefix, sys.base_prefix)
    for entry in inside(run_code, "sorted(os.listdir('/tmp'))"):
        assert any(path.startswith(f"/tmp/{entry}/") for path in bound), entry


def test_root_lists_only_what_the_harness_needs(run_code):
    top = set(inside(run_code, "os.listdir('/')"))
    assert top <= {"usr", "lib", "lib64", "lib32", "bin", "dev", "proc", "tmp", "root", "work",
                   "opt", "home"} | {p.split("/")[1] for p in (sysconfig.get_paths()["purelib"],)}
    assert inside(run_code, "os.listdir('/root')") == [".pyenv"] or "/root" not in top
    assert sorted(inside(run_code, "os.listdir('/dev')")) == sorted(
        ["null", "zero", "urandom", "shm", "fd", "stdin", "stdout", "stderr"])


def test_site_packages_and_interpreter_are_read_only(run_code):
    site = sysconfig.get_paths()["purelib"]
    code = ("import os\ndef f(p):\n    try:\n        open(os.path.join(p, 'x'), 'w')\n"
            "        return 'wrote'\n    except OSError as e:\n        return e.errno\n")
    assert run_code(code, site).outputs == [30]  # EROFS
    assert run_code(code, "/").outputs == [30]
    assert run_code(code, "/tmp").outputs == ["wrote"]


def test_seccomp_no_new_privs_and_no_capabilities(run_code):
    assert status_field(run_code, "Seccomp") == "2"
    assert status_field(run_code, "NoNewPrivs") == "1"
    for cap in ("CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"):
        assert int(status_field(run_code, cap), 16) == 0


@pytest.mark.parametrize(
    ("name", "expected"),
    [("RLIMIT_CPU", (SMALL_LIMITS.cpu_s, SMALL_LIMITS.cpu_s + 1)),
     ("RLIMIT_FSIZE", (SMALL_LIMITS.file_bytes,) * 2),
     ("RLIMIT_NOFILE", (SMALL_LIMITS.open_files,) * 2),
     ("RLIMIT_CORE", (0, 0))],
)
def test_rlimit_is_set(run_code, name, expected):
    code = f"import resource\ndef f():\n    return resource.getrlimit(resource.{name})\n"
    assert run_code(code).outputs == [expected]


def test_rlimit_data_caps_new_memory_and_address_space_is_unlimited(run_code):
    code = ("import resource\ndef f():\n    return (resource.getrlimit(resource.RLIMIT_DATA),"
            " resource.getrlimit(resource.RLIMIT_AS))\n")
    (data, as_), = run_code(code).outputs
    assert data[0] == data[1] != resource.RLIM_INFINITY
    assert SMALL_LIMITS.memory_bytes < data[1] < SMALL_LIMITS.memory_bytes + 600 * 2**20
    assert as_ == (resource.RLIM_INFINITY, resource.RLIM_INFINITY)


def test_run_is_in_its_own_cgroup_with_limits(run_code):
    cgroup = inside(run_code, "read('/proc/self/cgroup')")
    paths = {line.split(":")[1]: line.split(":")[2] for line in cgroup.splitlines()}
    memory, pids = paths["memory"], paths["pids"]
    assert "/torchquiz/" in memory and "/torchquiz/" in pids
    # The run's cgroups are removed afterwards (just after the verdict: a complete run is
    # answered before its process has finished exiting).
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and (os.path.exists("/sys/fs/cgroup/memory" + memory)
                                           or os.path.exists("/sys/fs/cgroup/pids" + pids)):
        time.sleep(0.02)
    assert not os.path.exists("/sys/fs/cgroup/memory" + memory)
    assert not os.path.exists("/sys/fs/cgroup/pids" + pids)


def test_cgroup_limit_values_are_applied(run_code, sandbox_zygote):
    # Read the limits from the host while the run is alive: only this zygote's run, since
    # another executor on the machine (another test process) runs with other limits.
    ours = sandbox_zygote.hello["cgroup_name"]
    result = {}
    thread = threading.Thread(target=lambda: result.update(
        out=run_code("import time\ndef f():\n    time.sleep(1.5)\n    return 1\n")))
    thread.start()
    values = None
    deadline = time.monotonic() + 3
    while values is None and time.monotonic() < deadline:
        for pid in sandbox_processes():
            with contextlib.suppress(OSError, StopIteration):
                lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
                paths = {line.split(":")[1]: line.split(":")[2] for line in lines}
                if ours not in paths["pids"]:
                    continue
                values = {
                    "memory.limit_in_bytes": Path(
                        f"/sys/fs/cgroup/memory{paths['memory']}/memory.limit_in_bytes"
                    ).read_text().strip(),
                    "pids.max": Path(f"/sys/fs/cgroup/pids{paths['pids']}/pids.max")
                    .read_text().strip(),
                    "cpu.cfs_quota_us": Path(
                        f"/sys/fs/cgroup/cpu{paths['cpu']}/cpu.cfs_quota_us"
                    ).read_text().strip(),
                }
                break
        time.sleep(0.01)
    thread.join(10)
    assert result["out"].outputs == [1]
    assert values == {"pids.max": str(SMALL_LIMITS.pids + TEMPLATE_ALLOWANCE),
                      "memory.limit_in_bytes": str(SMALL_LIMITS.memory_bytes + COW_HEADROOM_BYTES),
                      "cpu.cfs_quota_us": str(cpu_quota_us(SMALL_LIMITS))}


def test_environment_holds_no_secret(run_code):
    env = inside(run_code, "dict(os.environ)")
    init_env = inside(run_code, "read('/proc/1/environ')")
    for key, value in FAKE_SECRETS.items():
        assert key not in env and value not in init_env and key not in init_env
    assert set(env) <= doctor.ALLOWED_ENV


def test_zygote_has_no_cuda_context_and_ran_no_op(sandbox_zygote):
    hello = sandbox_zygote.hello
    assert hello["cuda_initialized"] is False
    assert hello["threads"] == 1  # an op on the CPU would have started OpenMP workers
    maps = Path(f"/proc/{sandbox_zygote.pid}/maps").read_text()
    assert "libcuda.so" not in maps


def test_no_state_survives_between_runs(run_code):
    first = ("import os, torch\ndef f():\n    open('/tmp/leftover', 'w').write('x')\n"
             "    torch.leftover = 1\n    os.environ['LEFT'] = '1'\n    return True\n")
    second = ("import os, torch\ndef f():\n    return (os.path.exists('/tmp/leftover'),"
              " hasattr(torch, 'leftover'), 'LEFT' in os.environ)\n")
    assert run_code(first).outputs == [True]
    assert run_code(second).outputs == [(False, False, False)]
    assert_nothing_left()


def test_doctor_reports_every_layer_active(sandbox_zygote):
    layers = sandbox_zygote.layers()
    assert {"uid", "user_namespace", "pid_namespace", "net_namespace", "mnt_namespace",
            "ipc_namespace", "uts_namespace", "filesystem", "seccomp", "no_new_privs",
            "capabilities", "rlimits", "memory_limit", "pids_limit", "environment"} <= set(layers)
    assert all(status.active for status in layers.values()), layers


def test_cuda_request_reports_unavailable_on_a_cpu_machine(sandbox_zygote):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    request = wire.encode({"code": "def f():\n    return 1\n", "entrypoint": "f",
                           "device": "cuda", "cases": [{"args": [], "kwargs": {}}]})
    raw = sandbox_zygote.run(request)
    records = decode_records(raw.result)
    assert records is not None and records[0]["loaded"] is False
    assert "CUDA is unavailable" in records[0]["error"]["message"]
    assert sandbox_zygote.hello["cuda_initialized"] is False


def test_dead_zygote_is_restarted_once_and_the_run_retried():
    zygote = Zygote(SMALL_LIMITS)
    try:
        zygote.start()
        first, first_folder = zygote.pid, zygote.hello["cgroup_name"]
        os.kill(first, signal.SIGKILL)
        request = wire.encode({"code": "def f():\n    return 7\n", "entrypoint": "f",
                               "device": "cpu", "cases": [{"args": [], "kwargs": {}}]})
        raw = zygote.run(request)
        assert decode_records(raw.result)[1]["output"] == 7
        assert zygote.pid not in (None, first)
        second_folder = zygote.hello["cgroup_name"]
        assert second_folder != first_folder
        # The killed zygote could not clean up: its cgroups went when its death was seen.
        assert not folder_exists(first_folder)
    finally:
        zygote.close()
    assert not folder_exists(first_folder) and not folder_exists(second_folder)
    assert_nothing_left()


class SlowReaderZygote(Zygote):
    """A zygote whose reader thread learns of a death late, as on a busy machine."""

    def _declare_dead(self, generation: int) -> None:
        if threading.current_thread().name.startswith("zygote-reader"):
            time.sleep(1.0)
        super()._declare_dead(generation)


def test_a_run_that_finds_the_zygote_dead_restarts_it_without_waiting_for_the_reader():
    # The run's own send failing is proof enough: it must not retry on the dead zygote's
    # socket, and the late reader must not fail the retried run on the new one.
    zygote = SlowReaderZygote(SMALL_LIMITS)
    try:
        zygote.start()
        first = zygote.pid
        os.kill(first, signal.SIGKILL)
        while os.path.exists(f"/proc/{first}") and not _is_zombie(first):
            time.sleep(0.01)
        request = wire.encode({"code": "def f():\n    return 7\n", "entrypoint": "f",
                               "device": "cpu", "cases": [{"args": [], "kwargs": {}}]})
        for _ in range(3):
            raw = zygote.run(request)
            assert decode_records(raw.result)[1]["output"] == 7
        assert zygote.pid not in (None, first)
    finally:
        zygote.close()
    assert_nothing_left()


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_closed_zygote_leaves_no_process_for_the_hosts_init_to_reap():
    # The template reaps the children the zygote killed before it exits: an orphan would wait
    # for the host's init (seconds on a busy machine) as a sandbox process nobody owns.
    zygote = Zygote(SMALL_LIMITS)
    try:
        zygote.start()
        request = wire.encode({"code": "def f():\n    return 1\n", "entrypoint": "f",
                               "device": "cpu", "cases": [{"args": [], "kwargs": {}}]})
        zygote.run(request)
        template = zygote.hello["template_pid"]
        with open(f"/proc/{template}/task/{template}/children") as f:
            children = [int(pid) for pid in f.read().split()]
        assert children  # the next run's child waits, isolated
    finally:
        zygote.close()
    assert [pid for pid in children if os.path.exists(f"/proc/{pid}")] == []


# A template whose I/O loop has gone, with a child the loop never heard of (forked just before
# a stop): the child sleeps until killed, so only the template's own kill can end it.
_TEMPLATE_LEFT_ALONE = """
import os, signal, socket, sys
from executors.zygote.child import _Template
ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
template = _Template(ours)
pid = os.fork()
if pid == 0:
    while True:
        signal.pause()
template.kids.add(pid)
print(pid, flush=True)
template.exit_after_reaping(timeout_s=600.0)
"""


def test_a_template_left_alone_kills_its_children_before_it_exits():
    # It waited for them instead, until its timeout: every zygote stop after a run took 2 s
    # longer, a child forked in the last moment waiting for a request that never came.
    process = subprocess.Popen([sys.executable, "-c", _TEMPLATE_LEFT_ALONE], cwd=REPO,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        child = int(process.stdout.readline())
        assert process.wait(timeout=120) == 0
    finally:
        process.kill()
        process.wait()
    assert not os.path.exists(f"/proc/{child}")


def test_zygote_environment_is_an_allow_list():
    env = scrubbed_env({"PATH": "/usr/bin", "LANG": "C.UTF-8", "SLACK_BOT_TOKEN": "xoxb",
                        "TORCHQUIZ_DATABASE_URL": "postgresql://u:p@h/db", "HOME": "/root",
                        "CUDA_VISIBLE_DEVICES": "0"})
    assert set(env) <= doctor.ALLOWED_ENV
    assert "SLACK_BOT_TOKEN" not in env and "TORCHQUIZ_DATABASE_URL" not in env
    assert env["CUDA_VISIBLE_DEVICES"] == "0" and env["OMP_NUM_THREADS"] == "1"


def test_a_closed_zygote_refuses_runs():
    zygote = Zygote(SMALL_LIMITS)
    zygote.close()
    with pytest.raises(ZygoteError):
        zygote.run(b"")


def test_missing_layer_refuses_to_start_and_names_no_command_flag(monkeypatch):
    # Each command adds the options it has: exec names --insecure-no-sandbox, serve has none.
    monkeypatch.setattr(doctor, "probe_layers", lambda z: {
        "seccomp": LayerStatus(False, "off"), "uid": LayerStatus(True, "ok")})
    zygote = Zygote(SMALL_LIMITS)
    with pytest.raises(SandboxUnavailable, match=r"layers missing: seccomp") as raised:
        zygote.start()
    assert "--" not in str(raised.value)
    assert zygote.pid is None


def test_insecure_mode_warns_at_start_and_runs(monkeypatch, caplog):
    monkeypatch.setattr(doctor, "probe_layers", lambda z: {"seccomp": LayerStatus(False, "off")})
    with Zygote(SMALL_LIMITS, insecure=True) as zygote:
        assert "INSECURE" in caplog.text and "--insecure-no-sandbox" in caplog.text
        request = wire.encode({"code": "def f():\n    return 3\n", "entrypoint": "f",
                               "device": "cpu", "cases": [{"args": [], "kwargs": {}}]})
        assert decode_records(zygote.run(request).result)[1]["output"] == 3
    assert_nothing_left()


def test_host_sees_the_running_submission_as_the_sandbox_uid(run_code, sandbox_zygote):
    uid = str(sandbox_ids()[0])
    # Only this zygote's cgroups, and never its template: the template (root, by design) waits
    # in the next run's cgroup and leaves it just after forking that run's child, so on a busy
    # machine it is seen there beside the child. Other suites' zygotes are theirs to check.
    ours = sandbox_zygote.hello["cgroup_name"]
    template = sandbox_zygote.hello["template_pid"]
    result = {}
    thread = threading.Thread(target=lambda: result.update(
        out=run_code("import time\ndef f():\n    time.sleep(1.0)\n    return 1\n")))
    thread.start()
    seen: dict[int, list[str]] = {}
    deadline = time.monotonic() + 3
    while not seen and time.monotonic() < deadline:
        time.sleep(0.2)  # let the run settle: the template leaves a cgroup right after the fork
        for path in run_cgroups():
            if zygote_folder(path) != ours:
                continue
            with contextlib.suppress(OSError, StopIteration):
                members = {}
                for pid in Path(path, "cgroup.procs").read_text().split():
                    if int(pid) == template:
                        continue
                    status = Path(f"/proc/{pid}/status").read_text().splitlines()
                    uid_line = next(li for li in status if li.startswith("Uid:"))
                    members[int(pid)] = uid_line.split()[1:]
                if any(v != ["0"] * 4 for v in members.values()):  # a sandbox's cgroup
                    seen |= members
    thread.join(10)
    assert result["out"].outputs == [1]
    # Every process in a sandbox's cgroup (the sleeping run, the idle pre-forked child) is the
    # sandbox uid as the host sees it: real, effective, saved and filesystem uid.
    assert seen and all(v == [uid] * 4 for v in seen.values()), seen


def test_an_installed_torchquiz_is_hidden_from_the_sandbox(tmp_path, monkeypatch):
    """A regular (non-editable) install puts the bank, solutions included, in site-packages."""
    from executors.isolation import layers

    site = tmp_path / "site-packages"
    for package in ("content", "executors", "db"):
        (site / package).mkdir(parents=True)
        (site / package / "__init__.py").write_text("")
    (site / "db" / "__init__.py").write_text("")  # another distribution's "db"
    info = site / "torchquiz-0.1.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("content/__init__.py,,\nexecutors/__init__.py,,\n")
    monkeypatch.setattr(layers.sysconfig, "get_paths",
                        lambda: {"purelib": str(site), "platlib": str(site)})
    masks = layers.project_masks([str(site)])
    assert masks == (str(site / "content"), str(site / "executors"), str(info))
    assert layers.project_masks(["/elsewhere"]) == ()


def test_user_code_runs_non_dumpable(run_code):
    """No core for a host core_pattern helper, no ptrace attach from a sibling."""
    code = "import ctypes\ndef f():\n    return ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)\n"
    assert run_code(code).outputs == [0]  # PR_GET_DUMPABLE


@pytest.mark.parametrize("path", [
    "/proc/cmdline", "/proc/config.gz", "/proc/kallsyms", "/proc/meminfo", "/proc/loadavg",
    "/proc/sys/kernel/hostname", "/proc/mounts", "/proc/version", "/proc/modules",
])
def test_procfs_shows_nothing_but_processes(run_code, path):
    assert inside(run_code, f"read({path!r})").startswith("ERR ")


def test_procfs_lists_only_the_runs_own_processes(run_code):
    names = inside(run_code, "sorted(os.listdir('/proc'))")
    assert names == ["1", "self", "thread-self"]


def test_mountinfo_shows_only_the_sandbox_own_mounts(run_code, sandbox_zygote):
    # What a submission can still read of the host: the mount points of the read-only binds
    # (the interpreter and its libraries, at their host paths, as sys.path shows anyway).
    from executors.isolation.layers import default_binds, project_masks

    binds, _ = default_binds()
    expected = {"/", "/tmp", "/dev/shm", "/proc", "/dev/null", "/dev/zero", "/dev/urandom",
                *binds, *project_masks(binds)}
    lines = inside(run_code, "read('/proc/self/mountinfo').splitlines()")
    mount_points = {line.split()[4] for line in lines}
    assert mount_points == expected


def test_cpu_features_are_known_without_proc_cpuinfo(run_code):
    # torch detects CPU features lazily from /proc/cpuinfo, which the sandbox does not show;
    # the zygote detects them before forking. A float16 -> float32 copy of a transposed
    # tensor was the first kernel seen to need them.
    code = ("import torch\ndef f():\n    a = torch.ones(3, 4).t()\n"
            "    b = torch.ones(4, 1, dtype=torch.float16)\n"
            "    return (a + b.to(a)).sum().item()\n")
    out = run_code(code)
    assert out.outputs == [24.0], out.errors
