"""Measure pack validation and loading: ``torchquiz bench packs [--items N] [--code N]``.

Validates one generated pack of N items (``--code`` of them code challenges, the rest choice
and text questions) through the real sandbox, the way ``torchquiz pack validate`` does, and
times parsing 50 such packs (the static part the bot does at start; challenges are built in
the sandbox only when first drawn), then the bot's start with those 50 packs stored (the live
library over a SQLite file) and the stamp check a request makes every few seconds.
``--load-only`` skips the sandbox.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from content.loader import Bank, load_bank
from content.packs import HEADER_TEMPLATE, Pack, load_stored_pack, parse_pack

CHOICE = """\
  - id: c{i}
    version: 1
    kind: choice
    topics: [tensors]
    difficulty: 1
    prompt: "Question {i}: which one?"
    choices:
{choices}
    explanation: "Because {i}."
"""
TEXT = """\
  - id: t{i}
    version: 1
    kind: text
    topics: [tensors]
    difficulty: 1
    prompt: "Name {i}?"
    accepted: [name{i}]
    explanation: "It is name{i}."
"""
CODE = """\
  - id: k{i}
    version: 1
    kind: code
    topics: [tensors]
    difficulty: 2
    prompt: "Scale by {i}."
    explanation: "Multiply."
    code:
      entrypoint: scale
      signature: "def scale(x)"
      starter: |
        def scale(x):
            return x
      solution: |
        import torch


        def scale(x):
            return x * {i} + 1
      examples:
        - call: "scale(torch.tensor([1]))"
          result: "tensor([{a}])"
      tests:
        seed: {i}
        generator: |
          def cases(g):
              return [{{"args": [torch.rand(4, 3, generator=g)]}} for _ in range(5)]
"""


def _choice(i: int) -> str:
    correct = i % 4
    lines = []
    for k in range(4):
        key = "ABCD"[k]
        text = f"option {k}{i:04d}"  # every option has the same length
        line = f"      - key: {key}\n        text: \"{text}\"\n"
        line += "        correct: true\n" if k == correct else f"        why: \"not {k}\"\n"
        lines.append(line)
    return CHOICE.format(i=i, choices="".join(lines))


def make_pack(items: int, code: int, pack_id: str = "bench") -> bytes:
    """Return a valid pack of ``items`` items, ``code`` of them code challenges."""
    parts = [HEADER_TEMPLATE.format(id=pack_id, version=1)]
    for i in range(items):
        if i < code:
            parts.append(CODE.format(i=i + 2, a=(i + 2) + 1))
        elif i % 2:
            parts.append(_choice(i))
        else:
            parts.append(TEXT.format(i=i))
    return "".join(parts).encode()


def main(argv: list[str]) -> int:
    """Run the benchmark; print figures (one JSON object with --json)."""
    parser = argparse.ArgumentParser(prog="torchquiz bench packs")
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--code", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--load-only", action="store_true",
                        help="skip the sandboxed validation: only the loading figures")
    args = parser.parse_args(argv)
    bank = load_bank()
    validated: dict[str, object] = {}
    ok = True
    if not args.load_only:
        from executors.grading.pack_challenges import validate_pack
        from executors.zygote.supervisor import Zygote

        data = make_pack(args.items, args.code)
        started = time.monotonic()
        with Zygote() as zygote:
            zygote.start()
            warm = time.monotonic()
            report = validate_pack(data, bank, zygote)
            done = time.monotonic()
        ok = report.ok
        validated = {"ok": report.ok, "errors": list(report.errors[:5]), "items": report.items,
                     "code": args.code, "sandbox_start_s": round(warm - started, 2),
                     "validate_s": round(done - warm, 2)}
    loads: dict[str, object] = {}
    for size in (20, args.items):
        stored = []
        for n in range(50):
            pack = parse_pack(make_pack(size, min(args.code, size // 10), f"bench-{n}")).pack
            if pack is None:
                raise SystemExit("the generated pack does not parse: a bug of this benchmark")
            stored.append(pack)
        load_started = time.monotonic()
        for pack in stored:
            load_stored_pack(pack.text, pack.document)
        loads[f"load_50_packs_of_{size}_items_s"] = round(time.monotonic() - load_started, 2)
        loads.update(_library_start(bank, stored, size))
    figures = {**validated, **loads}
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0 if ok else 1


def _library_start(bank: Bank, packs: list[Pack], size: int) -> dict[str, float]:
    """Time the bot's start with ``packs`` stored (a SQLite file), and a refresh's cost.

    The start: the table's stamp, every stored version, each pack built from its JSON, the
    global bank and its scopes (bot/core/packs/library.py). Then the check a request makes every
    few seconds when nothing changed (the stamp alone), and a first view of one workspace.
    """
    from bot.core.packs.library import Library
    from bot.pack_source import StoredPackSource
    from db.engine import make_engine
    from db.migrate import upgrade
    from db.store_packs import PackStore

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'packs.sqlite3'}"
        upgrade(url)
        engine = make_engine(url)
        try:
            store = PackStore(engine)
            for n, pack in enumerate(packs):
                store.add(pack.id, 1, f"slack:T{n % 5}", pack.header.title,
                          tuple(pack.header.locales), pack.text, pack.document)
            started = time.monotonic()
            library = Library(bank, StoredPackSource(engine))
            loaded = time.monotonic()
            checks = 20
            for _ in range(checks):
                library.refresh()  # unchanged: the stamp query only
            checked = time.monotonic()
            library.view("slack:T0")
            viewed = time.monotonic()
        finally:
            engine.dispose()
    return {f"library_start_50_packs_of_{size}_items_s": round(loaded - started, 2),
            f"library_stamp_check_ms_{size}": round((checked - loaded) / checks * 1000, 2),
            f"library_first_view_ms_{size}": round((viewed - checked) * 1000, 1)}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
