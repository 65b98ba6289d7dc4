"""Run submissions from files through the sandbox: the ``torchquiz exec`` command.

With ``TORCHQUIZ_EXECUTOR_URLS`` set, the files are graded by the executor service instead
(the same verdicts, over HTTP); otherwise by a sandbox started in this process. Only the
local path needs torch: it is imported there, so the bot image (no executor extra) still
grades through the service.

A team pack's challenge (``p.PACK.ITEM``) is graded as the bot grades it: its generator and
reference run as sandbox runs (``executors.grading.pack_challenges``), never in this process;
on the service, the item travels with each run as its definition. It comes from the stored
packs (``stored_pack``, passed by the ``torchquiz`` command, which reads the database), or from
a pack file not yet stored (``--pack FILE``): an author tries the hidden tests before adding.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from content.loader import BANK_ROOT, Bank, ContentError, load_bank
from content.packs import PACK_PREFIX, item_prefix, pack_of, parse_pack
from content.schema import CodeItem, Question
from executors.cli.exec_remote import run_remote
from executors.grading.verdict import Verdict, fault_verdict
from executors.service.protocol import URLS_ENV
from executors.zygote.reports import LayerStatus
from executors.zygote.supervisor import (
    INSECURE_FLAG,
    SandboxUnavailable,
    Zygote,
    ZygoteError,
)
from safetext.inert import Surface, inert

if TYPE_CHECKING:
    from executors.engine import LocalExecutor

log = logging.getLogger(__name__)

CONTENT_DIR_ENV = "TORCHQUIZ_CONTENT_DIR"

EXIT_OK = 0
EXIT_DOCTOR_LAYERS_OFF = 1
EXIT_USAGE = 2
EXIT_NO_SANDBOX = 3

# The verdict of every file when the sandbox itself cannot start: each file still gets one.
NO_SANDBOX_MESSAGE = (
    "the sandbox could not start, so this submission was not graded; it does not count, "
    "try again"
)

ZygoteFactory = Callable[[bool], Zygote]
# A stored pack's questions by id (its newest version and the items older ones hold), or None
# when no pack has that id; wired by the `torchquiz` command (bot/cli.py), which reads the
# database (this package imports neither the bot nor the store).
StoredPackLoader = Callable[[str], Mapping[str, Question] | None]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchquiz exec",
        description="Run code submissions against a challenge's hidden tests in the sandbox.",
    )
    parser.add_argument("--challenge", metavar="ID", help=(
        "code challenge id, e.g. code.one-hot, or a stored team pack's p.PACK.ITEM"))
    parser.add_argument("--json", action="store_true", help="print one JSON verdict per line")
    parser.add_argument(
        "--pack", metavar="FILE",
        help="a team pack file not yet stored: grade against its challenge (ID may be its "
             "own item id); its generator and reference run in the sandbox only",
    )
    parser.add_argument(
        "--seed", type=int, metavar="N",
        help="draw the hidden tests from seed N (a verdict's seed reproduces its tests)",
    )
    parser.add_argument("--doctor", action="store_true", help="print the isolation layer table")
    parser.add_argument(
        INSECURE_FLAG,
        dest="insecure",
        action="store_true",
        help="run without the isolation layers that are missing (never on a shared machine)",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="submission files, in order")
    return parser


def content_root(environ: dict[str, str] | None = None) -> Path:
    """Return the bank root: ``TORCHQUIZ_CONTENT_DIR`` when set, else the packaged bank."""
    env = os.environ if environ is None else environ
    override = env.get(CONTENT_DIR_ENV)
    return Path(override) if override else BANK_ROOT


def _default_zygote(insecure: bool) -> Zygote:
    return Zygote(insecure=insecure)


def layer_table(layers: dict[str, LayerStatus]) -> str:
    """Return the doctor's table: one line per layer, ON or OFF, and what was seen."""
    width = max((len(name) for name in layers), default=0)
    rows = [
        f"{name:<{width}}  {'ON ' if status.active else 'OFF'}  {status.detail}"
        for name, status in layers.items()
    ]
    return "\n".join(rows) + "\n"


def _human(path: str, verdict: Verdict) -> str:
    # The message and stdout carry what the submission produced: inert, and the message kept
    # on its line, so a submission cannot draw a verdict line of its own.
    line = f"{inert(path, one_line=True)}: {verdict.status} "
    line += f"({verdict.passed_tests}/{verdict.total_tests})"
    if verdict.fault:
        line += " [executor fault]"
    if verdict.message:
        line += f" {inert(verdict.message, one_line=True, limit=1000)}"
    if verdict.stdout:
        shown = inert(verdict.stdout)
        line += "\n  stdout: " + shown.replace("\n", "\n          ")
    return line + "\n"


def _json_line(verdict: Verdict) -> str:
    # ASCII-only JSON: every character survives any terminal encoding, and escapes stay escapes.
    return json.dumps(verdict.to_json(), sort_keys=True, ensure_ascii=True) + "\n"


def main(
    argv: list[str],
    *,
    make_zygote: ZygoteFactory = _default_zygote,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stored_pack: StoredPackLoader | None = None,
) -> int:
    """Run ``torchquiz exec`` with ``argv`` (the arguments after ``exec``); return the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    args = _parser().parse_args(argv)
    if args.insecure:
        err.write(
            f"WARNING: {INSECURE_FLAG}: submissions run WITHOUT full isolation. "
            "Use this only for your own code on your own machine.\n"
        )
    if args.doctor:
        return _doctor(make_zygote(args.insecure), out)
    if not args.challenge or not args.files:
        err.write("torchquiz exec: give --challenge ID and at least one FILE (or --doctor)\n")
        return EXIT_USAGE
    # Read every file before starting the sandbox: a typo in the last path should not cost a
    # zygote start, and no verdict is printed for a run that cannot be completed.
    sources: list[tuple[str, bytes]] = []
    for name in args.files:
        try:
            sources.append((name, Path(name).read_bytes()))
        except OSError as exc:
            err.write(f"torchquiz exec: cannot read {name}: {exc.strerror or exc}\n")
            return EXIT_USAGE
    try:
        bank = load_bank(content_root())
    except ContentError as exc:
        err.write(f"torchquiz exec: the content bank does not load:\n{exc}\n")
        return EXIT_USAGE
    found = _with_pack(args, bank, stored_pack, err)
    if found is None:
        return EXIT_USAGE
    bank = found
    if pack_of(args.challenge) is not None and args.insecure:
        err.write(f"torchquiz exec: a team pack's code runs only in the full sandbox; drop "
                  f"{INSECURE_FLAG}\n")
        return EXIT_USAGE

    def emit(name: str, verdict: Verdict) -> None:
        out.write(_json_line(verdict) if args.json else _human(name, verdict))
        out.flush()

    speed_item = bank.speed.get(args.challenge)
    if speed_item is not None:
        from executors.speed.command import run_speed  # torch: the local path only

        return run_speed(speed_item, args.seed, sources, emit, err, insecure=args.insecure)
    urls = os.environ.get(URLS_ENV, "").strip()
    if urls:
        ok = run_remote(urls, bank, args.challenge, args.seed, sources, emit, err)
        return EXIT_OK if ok else EXIT_USAGE
    return _run_local(args, bank, sources, emit, make_zygote, err)


def _with_pack(args: argparse.Namespace, bank: Bank, stored_pack: StoredPackLoader | None,
               err: TextIO) -> Bank | None:
    """Return the bank with the pack ``--challenge`` names (None: said why on ``err``).

    Only parsing happens here: nothing of the pack runs in this process.
    """
    if args.pack:
        try:
            with Path(args.pack).open("rb") as handle:
                from content.packs import MAX_PACK_BYTES

                data = handle.read(MAX_PACK_BYTES + 1)
        except OSError as exc:
            err.write(f"torchquiz exec: cannot read {args.pack}: {exc.strerror or exc}\n")
            return None
        parsed = parse_pack(data)
        if parsed.pack is None or parsed.problems:
            err.write(f"torchquiz exec: {inert(args.pack, one_line=True)} is not a valid pack "
                      "(torchquiz pack validate lists every problem):\n")
            for problem in parsed.problems[:10]:
                where = f"{problem.location}: " if problem.location else ""
                err.write(f"  {inert(where + problem.message, one_line=True, limit=300)}\n")
            return None
        pack = parsed.pack
        if not args.challenge.startswith(PACK_PREFIX):
            args.challenge = item_prefix(pack.id) + args.challenge  # the author's own item id
        if pack_of(args.challenge) != pack.id:
            err.write(f"torchquiz exec: {args.challenge!r} is not a challenge of pack "
                      f"{pack.id!r} (its code items: "
                      f"{', '.join(i.id for i in pack.code_items()) or 'none'})\n")
            return None
        return Bank(questions={**bank.questions, **pack.questions}, cards=bank.cards,
                    speed={**bank.speed, **pack.speed})
    pack_id = pack_of(args.challenge)
    if pack_id is None:
        return bank
    if stored_pack is None:
        err.write(f"torchquiz exec: {args.challenge!r} is a team pack's challenge: give the "
                  "pack file with --pack FILE (no stored packs can be read here)\n")
        return None
    try:
        questions = stored_pack(pack_id)
    except Exception as exc:
        log.exception("exec: the stored packs could not be read")
        err.write(f"torchquiz exec: the stored packs could not be read: "
                  f"{inert(str(exc), one_line=True, limit=300)}\n")
        return None
    if questions is None:
        err.write(f"torchquiz exec: no stored pack {pack_id!r} (torchquiz pack list shows "
                  "them; --pack FILE grades against a file not yet stored)\n")
        return None
    return Bank(questions={**bank.questions, **questions}, cards=bank.cards)


def _run_local(
    args: argparse.Namespace, bank: Bank, sources: list[tuple[str, bytes]],
    emit: Callable[[str, Verdict], None], make_zygote: ZygoteFactory, err: TextIO,
) -> int:
    """Grade the files in a sandbox started here; every file gets a verdict once it starts."""
    try:
        from executors.engine import LocalExecutor
        from executors.grading.challenges import ChallengeBuildError, UnknownChallenge
        from executors.grading.pack_challenges import build_pack_challenge
    except ImportError as exc:
        err.write(f"torchquiz exec: the executor extra is not installed ({exc.name}); install "
                  f"it with: pip install -e '.[executor]', or set {URLS_ENV} to grade through "
                  "the executor service\n")
        return EXIT_NO_SANDBOX
    item = bank.questions.get(args.challenge)
    if not isinstance(item, CodeItem):
        err.write(f"torchquiz exec: no code challenge {args.challenge!r}\n")
        return EXIT_USAGE
    zygote = make_zygote(args.insecure)
    try:
        zygote.start()
    except SandboxUnavailable as exc:
        err.write(
            f"torchquiz exec: the sandbox is unavailable: {exc}\n"
            f"Run `torchquiz exec --doctor` for details, or pass {INSECURE_FLAG} to run "
            "without the missing layers (unsafe).\n"
        )
        return EXIT_NO_SANDBOX
    except ZygoteError as exc:
        # Retried once already (the zygote's stderr is in the log): the contract is still
        # one verdict per file, so each gets a fault verdict that does not count.
        _all_faults(item, args.seed, sources, emit, err, exc)
        return EXIT_OK
    # A pack's challenge is built as the bot and the service build it: in the sandbox.
    builder = build_pack_challenge if pack_of(args.challenge) is not None else None
    with LocalExecutor(bank, zygote, pack_builder=builder) as executor:
        try:
            executor.supports(args.challenge)
        except UnknownChallenge:
            err.write(f"torchquiz exec: no code challenge {args.challenge!r}\n")
            return EXIT_USAGE
        try:
            executor.challenge(args.challenge, args.seed)
        except (ChallengeBuildError, ValueError) as exc:
            err.write(f"torchquiz exec: the challenge cannot be built: {exc}\n")
            return EXIT_USAGE
        except ZygoteError as exc:
            _all_faults(item, args.seed, sources, emit, err, exc)
            return EXIT_OK
        for name, code in sources:
            emit(name, _run_one(executor, args.challenge, args.seed, name, code, err))
    return EXIT_OK


def _all_faults(
    item: CodeItem, seed: int | None, sources: list[tuple[str, bytes]],
    emit: Callable[[str, Verdict], None], err: TextIO, exc: Exception,
) -> None:
    """Give every file the fault verdict of a sandbox that could not start."""
    err.write(f"torchquiz exec: the sandbox could not start: {inert(str(exc), one_line=True)}\n")
    log.error("exec: the sandbox could not start: %s", inert(str(exc), Surface.LOG))
    for name, _ in sources:
        emit(name, fault_verdict(item.id, item.version, seed, message=NO_SANDBOX_MESSAGE))


def _run_one(
    executor: LocalExecutor, challenge_id: str, seed: int | None, name: str, code: bytes,
    err: TextIO,
) -> Verdict:
    """Return one file's verdict; an executor failure on it is that file's fault verdict."""
    from executors.grading.challenges import ChallengeBuildError  # torch: local path only

    try:
        return executor.run(challenge_id, code, seed=seed)
    except (ZygoteError, ChallengeBuildError) as exc:
        err.write(f"torchquiz exec: {inert(name, one_line=True)}: the executor failed: "
                  f"{inert(str(exc), one_line=True)}\n")
        log.error("exec fault on %s: %s", inert(name, Surface.LOG), inert(str(exc), Surface.LOG))
    except Exception:
        log.exception("exec fault on %s", inert(name, Surface.LOG))
    item = executor.challenge_item(challenge_id)
    return fault_verdict(item.id, item.version, seed)


def _doctor(zygote: Zygote, out: TextIO) -> int:
    try:
        layers = zygote.layers()
    except ZygoteError as exc:
        out.write(f"the sandbox could not start: {exc}\n")
        return EXIT_DOCTOR_LAYERS_OFF
    finally:
        zygote.close()
    out.write(layer_table(layers))
    return EXIT_OK if layers and all(s.active for s in layers.values()) else EXIT_DOCTOR_LAYERS_OFF


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
