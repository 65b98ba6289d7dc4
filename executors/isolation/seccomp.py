"""Build the seccomp filter that submissions run under."""

from __future__ import annotations

import errno
from typing import Any

from executors.isolation.layers import ALL_NAMESPACE_FLAGS

# Denied with EPERM so Python sees a clean OSError. Each group is a known escape or
# kernel-attack surface that no PyTorch answer needs.
DENIED_SYSCALLS: tuple[str, ...] = (
    # looking into or steering other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # kernel keyrings, BPF, perf, userfaultfd, io_uring: large attack surfaces
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # changing the filesystem view or entering other namespaces
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at",
    # kernel modules, kexec, machine state
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "reboot", "swapon", "swapoff", "acct", "syslog", "quotactl", "lookup_dcookie",
    "fanotify_init", "iopl", "ioperm", "uselib", "sethostname", "setdomainname",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "mknod", "mknodat",
    # execution-domain tricks (e.g. READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE)
    "personality",
)  # fmt: skip
AF_VSOCK = 40


def build_seccomp_filter() -> Any:
    """Return a pyseccomp filter: allow by default, deny the list above, kill foreign ABIs."""
    import pyseccomp

    # The default action for a non-native architecture (i386, x32) is KILL: a foreign ABI
    # would bypass every rule written for x86_64 syscall numbers.
    flt = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    deny = pyseccomp.ERRNO(errno.EPERM)
    for name in DENIED_SYSCALLS:
        try:
            flt.add_rule(deny, name)
        except (ValueError, OSError, RuntimeError):
            continue  # unknown to this libseccomp/kernel: nothing to deny
    # clone with any namespace flag; clone3 hides its flags in memory seccomp cannot read,
    # so it gets ENOSYS and glibc falls back to plain clone.
    for bit in range(32):
        flag = 1 << bit
        if ALL_NAMESPACE_FLAGS & flag:
            flt.add_rule(deny, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
    flt.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
    flt.add_rule(deny, "socket", pyseccomp.Arg(0, pyseccomp.EQ, AF_VSOCK))
    return flt
