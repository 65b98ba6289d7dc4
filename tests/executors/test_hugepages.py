"""The zygote forks from huge pages where the kernel can collapse them, and only then."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from executors.zygote.hugepages import HUGE_PAGE, anonymous_ranges, huge_anonymous_bytes

MAPS = """\
55d0c0000000-55d0c0001000 r--p 00000000 08:01 123  /usr/bin/python3.11
55d0c1000000-55d0c7500000 rw-p 00000000 00:00 0    [heap]
7f0000100000-7f0000900000 rw-p 00000000 00:00 0
7f0000900000-7f0000a00000 rw-p 00000000 00:00 0
7f0001000000-7f0001800000 rw-s 00000000 00:01 77   /memfd:shared (deleted)
7f0002000000-7f0002800000 r--p 00000000 00:00 0
7f0003000000-7f0003800000 rw-p 00001000 08:01 456  /usr/lib/libtorch_cpu.so
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0    [stack]
"""


def test_only_private_writable_anonymous_memory_is_chosen_in_whole_huge_pages():
    ranges = anonymous_ranges(MAPS)
    # The heap, trimmed to 2 MiB boundaries; the 8 MiB anonymous block from its first boundary;
    # the 1 MiB block holds no whole huge page; shared, read-only, file and stack are left.
    assert ranges == [(0x55D0C1000000, 0x55D0C7400000), (0x7F0000200000, 0x7F0000800000)]
    assert all(start % HUGE_PAGE == 0 and end % HUGE_PAGE == 0 for start, end in ranges)


def test_the_huge_page_total_is_read_from_smaps_rollup():
    rollup = "Rss:   296104 kB\nAnonymous:   216132 kB\nAnonHugePages:   190464 kB\n"
    assert huge_anonymous_bytes(rollup) == 190464 * 1024
    assert huge_anonymous_bytes("Rss: 1 kB\n") == 0


def _kernel_can_collapse() -> bool:
    mode = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not mode.is_file() or "[never]" in mode.read_text():
        return False
    major, minor = (int(part) for part in os.uname().release.split(".")[:2])
    return (major, minor) >= (6, 1)  # MADV_COLLAPSE


def _anon_huge_mb(pid: int) -> int:
    return huge_anonymous_bytes(Path(f"/proc/{pid}/smaps_rollup").read_text()) >> 20


@pytest.mark.sandbox
def test_the_template_that_forks_every_child_holds_huge_pages_where_the_kernel_can(
    sandbox_zygote,
):
    hello = sandbox_zygote.hello
    template = hello["template_pid"]
    if _kernel_can_collapse():
        # ~190 MB here after the warm imports; most of it must stay shared with the template.
        assert hello["huge_pages_mb"] >= 64
        assert _anon_huge_mb(template) >= 64
    else:
        assert hello["huge_pages_mb"] == 0
