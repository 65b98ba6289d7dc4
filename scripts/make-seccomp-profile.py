#!/usr/bin/env python3
"""Write deploy/seccomp/executor.json: the executor container's seccomp profile.

Docker's default profile blocks the namespace and mount syscalls the sandbox needs to build
each child's isolation (unshare, setns, clone with namespace flags, mount, pivot_root), so
`--security-opt seccomp=unconfined` would "work" by dropping every filter. This profile keeps
the shape of Docker's default instead: an allowlist (anything unknown fails with EPERM, and
the 32-bit ABIs are not allowed at all), denying the same classes of syscalls Docker's
documentation lists as blocked, except the few the sandbox uses. The sandbox then loads its
own, much stricter filter (executors/isolation/seccomp.py) in every child.

The allowlist is every syscall libseccomp knows for x86_64 and aarch64, minus DENIED:
    .venv/bin/python scripts/make-seccomp-profile.py [OUT]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyseccomp

OUT = Path(__file__).resolve().parents[1] / "deploy" / "seccomp" / "executor.json"

# What the sandbox needs beyond a default container: a private mount namespace and a new root
# (mount, umount2, pivot_root), the namespaces themselves (unshare, setns, clone/clone3 with
# namespace flags) and the hostname of the UTS namespace.
NEEDED = ("mount", "umount", "umount2", "pivot_root", "unshare", "setns", "clone", "clone3",
          "sethostname")  # fmt: skip

DENIED = (
    # other processes' memory and state
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
    # kernel keyrings, BPF, perf, userfaultfd, io_uring
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # the new mount API and file handles (the sandbox uses only the classic calls above)
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at",
    # kernel modules, kexec, the machine's clock, swap, accounting, quotas, logs
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "create_module", "query_module", "get_kernel_syms", "reboot", "swapon", "swapoff", "acct",
    "syslog", "quotactl", "quotactl_fd", "lookup_dcookie", "fanotify_init", "nfsservctl",
    "settimeofday", "stime", "clock_settime", "clock_adjtime", "adjtimex", "setdomainname",
    # NUMA placement, port I/O, old or obsolete interfaces, execution domains
    "mbind", "set_mempolicy", "get_mempolicy", "move_pages", "iopl", "ioperm", "uselib",
    "ustat", "sysfs", "_sysctl", "vm86", "vm86old", "personality",
)  # fmt: skip


def known_syscalls() -> set[str]:
    """Return every syscall name libseccomp resolves on x86_64 and aarch64."""
    names: set[str] = set()
    for arch in (pyseccomp.Arch.X86_64, pyseccomp.Arch.AARCH64):
        for number in range(0, 1024):
            try:
                name = pyseccomp.resolve_syscall(arch, number)
            except (ValueError, OSError):
                continue
            if name:
                names.add(name.decode() if isinstance(name, bytes) else str(name))
    return names


def profile() -> dict[str, object]:
    """Return the profile as Docker (and Kubernetes' Localhost profiles) read it."""
    allowed = sorted((known_syscalls() | set(NEEDED)) - set(DENIED))
    return {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": 1,
        "archMap": [
            {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": []},
            {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": []},
        ],
        "syscalls": [{"names": allowed, "action": "SCMP_ACT_ALLOW"}],
    }


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(profile(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
