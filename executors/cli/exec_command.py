"""Run submissions from files through the sandbox: the ``torchquiz exec`` command.

With ``TORCHQUIZ_EXECUTOR_URLS`` set, the files are graded by the executor service instead
(the same verdicts, over HTTP); otherwise by a sandbox started in this process.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from content.loader import BANK_ROOT, ContentError, load_bank
from executors.cli.exec_remote import run_remote
from executors.engine import LocalExecutor, fault_verdict
from executors.grading.challenges import ChallengeBuildError, UnknownChallenge
from executors.grading.verdict import Verdict
from executors.service.protocol import URLS_ENV
from executors.zygote.reports import LayerStatus
from executors.zygote.supervisor import (
    INSECURE_FLAG,
    SandboxUnavailable,
    Zygote,
    ZygoteError,
)
from safetext.inert import Surface, inert

log = logging.getLogger(__name__)

CONTENT_DIR_ENV = "TORCHQUIZ_CONTENT_DIR"

EXIT_OK = 0
EXIT_DOCTOR_LAYERS_OFF = 1
EXIT_USAGE = 2
EXIT_NO_SANDBOX = 3

ZygoteFactory = Callable[[bool], Zygote]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchquiz exec",
        description="Run code submissions against a challenge's hidden tests in the sandbox.",
    )
    parser.add_argument("--challenge", metavar="ID", help="code challenge id, e.g. code.one-hot")
    parser.add_argument("--json", action="store_true", help="print one JSON verdict per line")
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
    def emit(name: str, verdict: Verdict) -> None:
        out.write(_json_line(verdict) if args.json else _human(name, verdict))
        out.flush()

    urls = os.environ.get(URLS_ENV, "").strip()
    if urls:
        ok = run_remote(urls, bank, args.challenge, args.seed, sources, emit, err)
        return EXIT_OK if ok else EXIT_USAGE
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
    with LocalExecutor(bank, zygote) as executor:
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
        for name, code in sources:
            emit(name, _run_one(executor, args.challenge, args.seed, name, code, err))
    return EXIT_OK


def _run_one(
    executor: LocalExecutor, challenge_id: str, seed: int | None, name: str, code: bytes,
    err: TextIO,
) -> Verdict:
    """Return one file's verdict; an executor failure on it is that file's fault verdict."""
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
    finally:
        zygote.close()
    out.write(layer_table(layers))
    return EXIT_OK if layers and all(s.active for s in layers.values()) else EXIT_DOCTOR_LAYERS_OFF


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
