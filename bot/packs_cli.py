"""`torchquiz pack new|validate|add|list|remove|export`: team question packs, for operators.

``validate`` exits 0 when the pack is valid and 1 when not; with ``--json`` it prints one object
``{"ok", "errors", "problems", "items", "cards"}``. Code from a pack (generators, reference
solutions) runs only in a sandbox: the executor service's replicas when
``TORCHQUIZ_EXECUTOR_URLS`` is set (as ``torchquiz exec`` and the bot grade there; the bot image
has no sandbox), else this machine's;
``--local`` insists on this machine's. When no sandbox can take the pack, it is not valid
(exit 1) and nothing of it has run. ``add`` validates, then stores the pack for one workspace
(``--workspace PLATFORM:ID``) or for every workspace of this deployment; a pack the store
would refuse (its id another workspace's, its version not above the stored one, a removed
pack's too) is refused before any of its code runs. Exit 2: a malformed
argument; an unreadable file is a pack that is not valid (exit 1).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.core.kernel.ports import PackCheck
    from bot.pack_tools import StorePackShelf
    from bot.settings import Settings

PLATFORMS = ("discord", "slack", "console")
_WORKSPACE = re.compile(r"(discord|slack|console):[A-Za-z0-9._@-]{1,128}")
PACK_FILE = "pack.yaml"


def add_parser(commands: Any) -> None:
    """Add `pack ...` to the `torchquiz` subcommands."""
    pack = commands.add_parser("pack", help="team question packs: scaffold, validate, store")
    sub = pack.add_subparsers(dest="pack_command", required=True)
    sub.add_parser("new", help=f"write a scaffold pack (DIR/{PACK_FILE}) that validates as is"
                   ).add_argument("dir")
    validate = sub.add_parser("validate", help="check a pack file; its code runs in the sandbox")
    validate.add_argument("file")
    validate.add_argument("--json", action="store_true", help="one JSON object (the contract)")
    add = sub.add_parser("add", help="validate a pack file, then store it")
    add.add_argument("file")
    for command in (validate, add):
        command.add_argument("--local", action="store_true", help=(
            "run the pack's code in this machine's sandbox even when TORCHQUIZ_EXECUTOR_URLS "
            "names executor replicas (by default they validate it)"))
    add.add_argument("--workspace", metavar="PLATFORM:ID",
                     help="only this workspace sees it (default: every workspace)")
    listing = sub.add_parser("list", help="list the stored packs (newest version of each)")
    listing.add_argument("--json", action="store_true")
    sub.add_parser("remove", help="hide a pack from every list and draw (history stays)"
                   ).add_argument("pack_id")
    sub.add_parser("export", help="print a stored pack's YAML (its newest version)"
                   ).add_argument("pack_id")


def read_pack_file(path: Path) -> bytes:
    """Read at most one byte past the size limit, so a huge file is refused, not loaded."""
    from content.packs import MAX_PACK_BYTES

    with path.open("rb") as handle:
        return handle.read(MAX_PACK_BYTES + 1)


def validate_bytes(data: bytes, settings: Settings, *, local: bool = False) -> Any:
    """Validate a pack's bytes with a sandbox (the replicas' unless ``local``); the report.

    Locally, the one validation path chat's /quiz-pack add takes too (bot/pack_tools.py).
    """
    if settings.executor_urls.strip() and not local:
        return validate_remotely(data, settings)
    from bot.bootstrap import load_content
    from bot.pack_tools import validate_pack_bytes

    return validate_pack_bytes(data, load_content(settings))


def validate_remotely(data: bytes, settings: Settings) -> Any:
    """Validate a pack's bytes on an executor replica (its bank, its sandbox); no torch here."""
    from bot.bootstrap import build_remote_executor
    from bot.core.kernel.errors import GradingUnavailable
    from bot.remote_executor import RemoteExecutor
    from content.loader import Bank
    from executors.service.protocol import PackCheck

    # The replica checks against its own bank; this side needs none to send the file.
    executor, problem, close = build_remote_executor(settings, Bank())
    try:
        if not isinstance(executor, RemoteExecutor):
            return PackCheck(False, (f"the executor replicas cannot be used: {problem}",), 0, 0)
        try:
            return executor.check_pack(data)
        except GradingUnavailable as exc:
            return PackCheck(False, (f"no executor replica could validate the pack ({exc}); "
                                     "a pack's code runs nowhere else",), 0, 0)
    finally:
        close()


def _print_report(report: Any, as_json: bool) -> None:
    from safetext.inert import inert

    if as_json:
        print(json.dumps(report.to_json(), ensure_ascii=True, sort_keys=True))
        return
    for error in report.errors:
        print(inert(error, one_line=True, limit=2000))
    verdict = "valid" if report.ok else f"not valid: {len(report.errors)} problem(s)"
    print(f"pack {verdict} ({report.items} questions, {report.cards} explain cards)")


EVERY_WORKSPACE = "*"  # a pack stored without --workspace: every workspace of the deployment


def _shelf(settings: Settings) -> tuple[StorePackShelf, Callable[[], object]]:
    from bot.bootstrap import pack_shelf

    return pack_shelf(settings)


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run one `pack` subcommand; return the exit status."""
    command = args.pack_command
    if command == "new":
        return _new(Path(args.dir))
    if command in ("validate", "add"):
        workspace = getattr(args, "workspace", None)
        if workspace is not None and not _WORKSPACE.fullmatch(workspace):
            print(f"torchquiz pack add: expected --workspace PLATFORM:ID with PLATFORM one of "
                  f"{', '.join(PLATFORMS)}, got {workspace[:80]!r}", file=sys.stderr)
            return 2
        try:
            data = read_pack_file(Path(args.file))
        except OSError as exc:
            # Not valid, as the contract counts it: exit 1, with the one object under --json.
            from executors.service.protocol import PackCheck

            why = f"cannot read {args.file}: {exc.strerror}"
            report = PackCheck(False, (why,), 0, 0, (_problem(why),))
        else:
            refused = _refused_before_check(settings, data, workspace) if command == "add" else ""
            if refused:
                # Refused by what the store holds: no sandbox is started for a pack that
                # could not be stored anyway (up to a minute of checking, for nothing).
                print(f"torchquiz pack add: {refused}", file=sys.stderr)
                return 1
            report = validate_bytes(data, settings, local=args.local)
        _print_report(report, getattr(args, "json", False))
        if command == "validate" or not report.ok:
            return 0 if report.ok else 1
        from bot.pack_tools import as_check

        # A replica sends the report only: what is stored is read from these very bytes here,
        # by parsing alone (no code runs; the replica's checks passed on them).
        check = as_check(report, data)
        if not check.ok:
            print("torchquiz pack add: the pack does not parse here", file=sys.stderr)
            return 1
        return _add(settings, check, workspace)
    shelf, close = _shelf(settings)
    try:
        if command == "list":
            return _list(shelf, args.json)
        if command == "remove":
            if shelf.remove(args.pack_id, None):
                print(f"removed pack {args.pack_id} (answers to it are kept)")
                return 0
            print(f"torchquiz pack remove: no pack {args.pack_id[:40]!r}", file=sys.stderr)
            return 1
        if command == "export":
            versions = shelf.versions(args.pack_id)
            if not versions:
                print(f"torchquiz pack export: no pack {args.pack_id[:40]!r}", file=sys.stderr)
                return 1
            sys.stdout.write(versions[-1].text)
            return 0
    finally:
        close()
    return 2


def _problem(message: str) -> dict[str, Any]:
    return {"line": None, "column": None, "item": None, "field": None, "message": message}


def _new(target: Path) -> int:
    """Write the scaffold: into DIR/pack.yaml, or to the file named when it ends in .yaml."""
    from content.packs import SCAFFOLD

    if target.suffix.lower() not in (".yaml", ".yml") or target.is_dir():
        target = target / PACK_FILE
    if target.exists():
        print(f"torchquiz pack new: {target} exists; not overwritten", file=sys.stderr)
        return 2
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(SCAFFOLD, encoding="utf-8")
    except OSError as exc:
        print(f"torchquiz pack new: cannot write {target}: {exc.strerror or exc} (give a folder "
              f"to create, or a new .yaml file name)", file=sys.stderr)
        return 2
    print(f"wrote {target}; check it with: torchquiz pack validate {target}")
    return 0


def _refused_before_check(settings: Settings, data: bytes, workspace: str | None) -> str:
    """Return why the store would refuse this pack (its id or version), read from its header.

    Parsing runs no pack code; a file that does not parse goes on to the full report.
    """
    from bot.pack_tools import store_refusal
    from content.packs import parse_pack

    pack = parse_pack(data).pack
    if pack is None:
        return ""
    shelf, close = _shelf(settings)
    try:
        return store_refusal(shelf.versions(pack.id), pack.id, int(pack.header.version),
                             workspace or EVERY_WORKSPACE)
    finally:
        close()


def _add(settings: Settings, check: PackCheck, workspace: str | None) -> int:
    from bot.core.kernel.ports import PackConflict

    shelf, close = _shelf(settings)
    try:
        stored = shelf.add(check, workspace or EVERY_WORKSPACE)
    except PackConflict as exc:
        print(f"torchquiz pack add: {exc}", file=sys.stderr)
        return 1
    finally:
        close()
    where = "every workspace" if stored.scope == EVERY_WORKSPACE else stored.scope
    print(f"stored pack {stored.pack_id} version {stored.version} for {where}")
    return 0


def _list(shelf: StorePackShelf, as_json: bool) -> int:
    from safetext.inert import inert

    rows = [{"id": p.pack_id, "version": p.version, "scope": p.scope, "title": p.title,
             "locales": list(p.locales),
             "created_at": p.created_at.isoformat() if p.created_at else None}
            for p in shelf.latest(None)]
    if as_json:
        print(json.dumps(rows, ensure_ascii=True, sort_keys=True))
        return 0
    for row in rows:
        print(f"{row['id']}  v{row['version']}  {row['scope']}  "
              f"{inert(str(row['title']), one_line=True, limit=100)}")
    if not rows:
        print("no packs stored")
    return 0
