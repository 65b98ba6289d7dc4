"""Helpers shared by the tests of tests/packs/ (its conftest.py keeps the fixtures)."""

from __future__ import annotations

import textwrap

from executors.isolation.limits import MIB, Limits

PACK_LIMITS = Limits(
    wall_s=3.0, cpu_s=3, memory_bytes=512 * MIB, pids=16, output_bytes=16 * 1024,
    result_bytes=1 * MIB, tmpfs_bytes=8 * MIB, file_bytes=2 * MIB,
)


HEADER = "pack:\n  id: team\n  title: Team pack\n  version: 1\n  locales: [en]\nitems:\n"


def code_item(*, generator: str | None = None, solution: str | None = None,
              starter: str | None = None, item_id: str = "double", examples: str = "",
              extra: str = "") -> str:
    """Return the YAML of one code item (a sound one unless a part is replaced)."""
    generator = generator or (
        "def cases(g):\n    return [{'args': [torch.rand(3, generator=g)]} for _ in range(3)]\n")
    solution = solution or "import torch\n\n\ndef double(x):\n    return x * 2\n"
    starter = starter or "import torch\n\n\ndef double(x):\n    return x\n"

    def block(text: str, indent: int) -> str:
        return textwrap.indent(text, " " * indent)

    return (
        f"  - id: {item_id}\n    version: 1\n    kind: code\n    topics: [tensors]\n"
        f"    difficulty: 1\n    prompt: Double it.\n    explanation: Multiply by two.\n"
        f"    code:\n      entrypoint: double\n      signature: def double(x)\n"
        f"      starter: |\n{block(starter, 8)}"
        f"      solution: |\n{block(solution, 8)}{examples}"
        f"      tests:\n        seed: 3\n        generator: |\n{block(generator, 10)}{extra}"
    )


def pack_text(*items: str) -> bytes:
    return (HEADER + "".join(items)).encode()


HOSTILE_TITLE = "Team <!channel> @everyone <@123> **bold**"


def choice_pack(pack_id: str = "team", *, version: int = 1, title: str = HOSTILE_TITLE,
                b_correct: str = "false", prompt: str = "Is it?") -> bytes:
    """Return a valid one-question pack (its title tries mentions and markdown)."""
    return f"""\
pack:
  id: {pack_id}
  title: "{title}"
  version: {version}
  locales: [en]
items:
  - id: q1
    version: 1
    kind: choice
    topics: [tensors]
    difficulty: 1
    prompt: "{prompt}"
    choices:
      - key: A
        text: "yes"
        correct: true
      - key: B
        text: "not at all"
        correct: {b_correct}
        why: "no"
    explanation: because
""".encode()
