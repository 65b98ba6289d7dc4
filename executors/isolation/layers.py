"""Apply the isolation layers inside a freshly forked, single-threaded child.

Each layer is one small function so the zygote, the doctor and the tests can name it. They
run in this order (see ``executors.zygote.supervisor`` for who calls what):

template (root, host namespaces): ``unshare_pid_namespace`` -> fork -> ``reset_pid_namespace``
child (pid 1 of the new pid namespace, still root; usually born in its cgroup already):
    ``join_cgroups`` -> ``enter_mount_namespace`` -> ``build_root`` -> ``drop_to_sandbox_user``
    -> ``unshare_namespaces`` -> ``write_id_maps`` -> ``set_hostname`` -> ``apply_rlimits``
    -> ``drop_capabilities`` -> ``set_no_new_privs`` -> ``load_seccomp``

Nothing here may start a thread or run a torch op: the caller was forked from a process that
imported torch, and only the forking thread exists in the child.
"""

from __future__ import annotations

import ctypes
import errno
import glob
import os
import platform
import pwd
import resource
import signal
import sys
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass, field

from executors.isolation.limits import Limits

FALLBACK_SANDBOX_UID = 61000
SANDBOX_USER = "torchquiz-sandbox"

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
NAMESPACE_FLAGS = (
    CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
)
ALL_NAMESPACE_FLAGS = NAMESPACE_FLAGS | CLONE_NEWCGROUP | 0x00000080  # + CLONE_NEWTIME

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2
PROC_OPTIONS = "subset=pid,hidepid=invisible"

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

_SYSCALLS = {"x86_64": {"pivot_root": 155}, "aarch64": {"pivot_root": 41}}
_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mount.argtypes = [
    ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p
]  # fmt: skip
_LIBC.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_LIBC.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
_LIBC.unshare.argtypes = [ctypes.c_int]
_LIBC.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_LIBC.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


class SandboxError(OSError):
    """Report that one isolation step failed (an infrastructure fault, not a user error)."""


def _check(ret: int, what: str) -> None:
    if ret < 0:
        err = ctypes.get_errno()
        raise SandboxError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    """Call the prctl system call and raise SandboxError on failure."""
    ret = int(_LIBC.prctl(option, arg2, arg3, arg4, arg5))
    _check(ret, f"prctl({option})")
    return ret


@dataclass(frozen=True)
class SandboxConfig:
    """Say which layers to apply and with what: built once in the zygote, before any fork."""

    uid: int
    gid: int
    binds: tuple[str, ...]
    symlinks: tuple[tuple[str, str], ...]
    devices: tuple[str, ...] = ("/dev/null", "/dev/zero", "/dev/urandom")
    use_uid: bool = True
    use_namespaces: bool = True
    use_seccomp: bool = True
    nproc_fallback: bool = False  # set when no pids cgroup: RLIMIT_NPROC on a distinct uid
    gpu_devices: tuple[str, ...] = field(default=())
    masks: tuple[str, ...] = ()  # folders inside binds hidden under an empty read-only tmpfs
    last_cap: int = 63  # the kernel's highest capability number (read once, on the host)


def sandbox_ids() -> tuple[int, int]:
    """Return the uid/gid that runs submissions: the system user if present, else 61000."""
    try:
        entry = pwd.getpwnam(SANDBOX_USER)
    except KeyError:
        return FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID
    return entry.pw_uid, entry.pw_gid


def default_binds() -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """List what the harness needs, read-only and at the same absolute paths as on the host."""
    wanted = [sys.base_prefix, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    wanted += ["/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/lib32"]
    binds: list[str] = []
    symlinks: list[tuple[str, str]] = []
    for path in wanted:
        if os.path.islink(path) and os.path.dirname(path) == "/":
            symlinks.append((path, os.readlink(path)))  # merged-/usr: /lib -> usr/lib
            continue
        real = os.path.realpath(path)
        if os.path.exists(real) and not any(_is_within(real, b) for b in binds):
            binds = [b for b in binds if not _is_within(b, real)] + [real]
    return tuple(sorted(set(binds))), tuple(symlinks)


PROJECT_PACKAGES = ("bot", "content", "db", "executors")


def project_masks(binds: Iterable[str]) -> tuple[str, ...]:
    """List torchquiz's own installed folders that a bind would expose inside the sandbox.

    An editable install keeps the source outside every bind, but a regular install puts the
    packages, and with them the bank's reference solutions, into site-packages, which the
    harness needs. Those folders are hidden; the zygote imported what it needs before forking.
    """
    masks: set[str] = set()
    bound = list(binds)
    for lib in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        real = os.path.realpath(lib)
        if not any(_is_within(real, b) for b in bound):
            continue
        masks.update(p for p in glob.glob(os.path.join(real, "torchquiz-*.dist-info")))
        for name in PROJECT_PACKAGES:
            path = os.path.join(real, name)
            # Only our own package: another distribution may own a folder of the same name.
            if os.path.isfile(os.path.join(path, "__init__.py")) and _is_ours(real, name):
                masks.add(path)
    return tuple(sorted(masks))


def _is_ours(site: str, package: str) -> bool:
    for record in glob.glob(os.path.join(site, "torchquiz-*.dist-info", "RECORD")):
        with open(record, encoding="utf-8") as f:
            if any(line.startswith(f"{package}/") for line in f):
                return True
    return False


def gpu_device_nodes() -> tuple[str, ...]:
    """List the NVIDIA device nodes a CUDA run needs bound into its root."""
    return tuple(sorted(glob.glob("/dev/nvidia*")))


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


# ---------------------------------------------------------------- middle process layers


def join_cgroups(dirs: Iterable[str]) -> None:
    """Move this process into the run's cgroups (must happen while still root)."""
    for directory in dirs:
        with open(os.path.join(directory, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))


def drop_to_sandbox_user(uid: int, gid: int) -> None:
    """Become the unprivileged sandbox user; stay dumpable so we may write our own id maps."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SandboxError(errno.EPERM, "setuid did not stick")
    # setuid made us non-dumpable: /proc/self/uid_map would then be owned by root.
    prctl(PR_SET_DUMPABLE, 1)


def set_parent_death_signal(expected_parent: int | None) -> None:
    """Die with SIGKILL when our parent dies, and catch the race where it already has."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)


def unshare_pid_namespace() -> None:
    """Make this process's next child pid 1 of a new pid namespace (template, as root)."""
    _check(_LIBC.unshare(CLONE_NEWPID), "unshare pid namespace")


def reset_pid_namespace(host_pid_ns_fd: int) -> None:
    """Point later children back at our own pid namespace (unshare works once otherwise)."""
    _check(_LIBC.setns(host_pid_ns_fd, CLONE_NEWPID), "setns pid namespace")


def unshare_namespaces() -> None:
    """Enter new user, net, mount, ipc and uts namespaces (needs a single thread).

    The pid namespace already exists: the template forked us as its pid 1.
    """
    _check(_LIBC.unshare(NAMESPACE_FLAGS & ~CLONE_NEWPID), "unshare")


def set_hostname() -> None:
    """Name the private uts namespace so nothing of the host's name leaks."""
    _check(_LIBC.sethostname(b"sandbox", 7), "sethostname")


def write_id_maps(uid: int, gid: int) -> None:
    """Map the sandbox uid/gid to themselves: nothing maps to host root."""
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"{uid} {uid} 1\n")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"{gid} {gid} 1\n")
    # Dumpable was only needed to write the maps. Left on, a crash could hand a core to a host
    # core_pattern helper running as root; off, user code also cannot be ptrace-attached.
    prctl(PR_SET_DUMPABLE, 0)


# ---------------------------------------------------------------- grandchild layers


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    ret = _LIBC.mount(
        src.encode() if src else None,
        target.encode(),
        fstype.encode() if fstype else None,
        flags,
        data.encode() if data else None,
    )
    _check(ret, f"mount {target}")


def _locked_flags(path: str) -> int:
    # A bind mount in a user namespace must keep the flags the host mount had (they are
    # locked); remounting read-only without them fails with EPERM.
    st = os.statvfs(path).f_flag
    flags = 0
    for st_flag, ms_flag in (
        (os.ST_NOSUID, MS_NOSUID),
        (os.ST_NODEV, MS_NODEV),
        (os.ST_NOEXEC, MS_NOEXEC),
        (os.ST_NOATIME, MS_NOATIME),
        (os.ST_NODIRATIME, MS_NODIRATIME),
        (os.ST_RELATIME, MS_RELATIME),
    ):
        if st & st_flag:
            flags |= ms_flag
    return flags


def _bind(src: str, dst: str, *, read_only: bool) -> None:
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.close(os.open(dst, os.O_CREAT | os.O_WRONLY, 0o644))
    _mount(src, dst, None, MS_BIND | MS_REC, None)
    if read_only:
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | _locked_flags(dst)
        _mount(None, dst, None, flags, None)


def _staging_dir(binds: Iterable[str]) -> str:
    # Mount the new root's tmpfs where it hides none of the paths we still have to bind.
    candidates = ("/mnt", "/media", "/srv", "/opt", "/var/tmp", "/tmp")  # noqa: S108 - mount points
    for candidate in candidates:
        if os.path.isdir(candidate) and not any(_is_within(b, candidate) for b in binds):
            return candidate
    raise SandboxError(errno.ENOENT, "no directory to stage the new root in")


def enter_mount_namespace() -> None:
    """Get a private mount namespace while still host root (before the user namespace)."""
    _check(_LIBC.unshare(CLONE_NEWNS), "unshare mount namespace")
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)


def build_root(config: SandboxConfig, limits: Limits, *, gpu: bool) -> None:
    """Pivot into a tmpfs root holding only read-only binds, /dev nodes, /proc, /tmp, /dev/shm.

    Runs as host root in a private mount namespace: the bind sources sit under directories
    the sandbox uid cannot search (/root), and a bind source must live in the caller's own
    mount namespace. The user namespace created afterwards copies these mounts and locks
    them, so nothing inside can unmount a bind to see what lies beneath.
    """
    root = _staging_dir(config.binds)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    # The private /tmp and /dev/shm come first so that binds beneath them (a venv or checkout
    # under /tmp, as in a CI clone) are mounted on top instead of being hidden by the tmpfs.
    size = f"size={limits.tmpfs_bytes},mode=1777"
    for path in ("/tmp", "/dev/shm"):  # noqa: S108 - the sandbox's own private tmpfs
        os.makedirs(root + path, exist_ok=True)
        _mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, size)
    for path in config.binds:
        _bind(path, root + path, read_only=True)
    for path in config.masks:
        _mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
               "size=4k,mode=0555")
    for path, target in config.symlinks:
        os.symlink(target, root + path)
    os.makedirs(root + "/dev", exist_ok=True)
    for node in config.devices + (config.gpu_devices if gpu else ()):
        _bind(node, root + node, read_only=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, f"{root}/dev/{name}")
    os.makedirs(root + "/proc", exist_ok=True)
    # We are pid 1 of the run's pid namespace: this procfs shows only the run's processes, and
    # subset=pid drops everything that is not a process (the kernel command line, config.gz,
    # kallsyms, host-wide meminfo and loadavg, /proc/sys). hidepid=invisible hides processes of
    # other users, of which there should be none. Kernels before 5.8 lack both options: the
    # mount then falls back to a plain procfs, and the doctor reports the layer as off.
    try:
        _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, PROC_OPTIONS)
    except SandboxError as exc:
        if exc.errno != errno.EINVAL:
            raise
        _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    os.mkdir(root + "/.oldroot")
    _check(_LIBC.syscall(_SYSCALLS[platform.machine()]["pivot_root"], root.encode(),
                         (root + "/.oldroot").encode()), "pivot_root")  # fmt: skip
    os.chdir("/")
    _check(_LIBC.umount2(b"/.oldroot", MNT_DETACH), "umount old root")
    os.rmdir("/.oldroot")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None)
    os.chdir("/tmp")  # noqa: S108 - inside the new root: the private tmpfs


def _vm_data_bytes() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def rlimit_values(limits: Limits, *, gpu: bool, nproc_fallback: bool) -> dict[int, int]:
    """Compute the rlimits for one run (RLIMIT_DATA on top of what the warm image already has)."""
    values = {
        resource.RLIMIT_CPU: limits.cpu_s,
        resource.RLIMIT_FSIZE: limits.file_bytes,
        resource.RLIMIT_NOFILE: limits.open_files,
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_MEMLOCK: 0,
        resource.RLIMIT_MSGQUEUE: 0,
    }
    if not gpu:
        # Not RLIMIT_AS: CPU torch breaks below ~650 MB of address space. The forked image
        # already holds ~220 MB of data mappings; the budget is on top of that.
        values[resource.RLIMIT_DATA] = _vm_data_bytes() + limits.memory_bytes
    if nproc_fallback:
        values[resource.RLIMIT_NPROC] = limits.pids
    return values


def apply_rlimits(limits: Limits, *, gpu: bool, nproc_fallback: bool) -> None:
    """Set hard and soft rlimits; CPU gets one second of grace between SIGXCPU and SIGKILL."""
    for which, value in rlimit_values(limits, gpu=gpu, nproc_fallback=nproc_fallback).items():
        hard = value + 1 if which == resource.RLIMIT_CPU else value
        resource.setrlimit(which, (value, hard))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def last_capability() -> int:
    """Return the highest capability number this kernel knows (read on the host side)."""
    with open("/proc/sys/kernel/cap_last_cap") as f:
        return int(f.read())


def drop_capabilities(last_cap: int) -> None:
    """Empty the bounding, ambient, effective, permitted and inheritable capability sets.

    ``last_cap`` comes from :func:`last_capability`, read before the child's procfs, which
    shows no /proc/sys, was mounted.
    """
    for cap in range(last_cap + 1):
        prctl(PR_CAPBSET_DROP, cap)
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    _check(_LIBC.capset(ctypes.byref(header), data), "capset")


def set_no_new_privs() -> None:
    """Forbid gaining privileges through execve (setuid binaries, file capabilities)."""
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def load_seccomp(seccomp_filter: object) -> None:
    """Load the filter built in the zygote (a pyseccomp.SyscallFilter)."""
    seccomp_filter.load()  # type: ignore[attr-defined]
