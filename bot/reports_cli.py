"""`torchquiz content reports`: the operator's list of members' question reports, and closing one.

Every workspace's reports, unlike a chat's /quiz-reports (which shows an admin their own
workspace's). A note is a member's own words: the text output shows it only through
``safetext.inert``; ``--json`` prints it as a JSON string, escaped by the encoder.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bot.core.kernel.models import Report
from bot.settings import Settings
from safetext.inert import inert


def add_parser(content_commands: Any) -> None:
    """Add `content reports` to the `content` command's subparsers."""
    reports = content_commands.add_parser(
        "reports", help="members' open reports of faulty questions; --close ID --reason TEXT")
    reports.add_argument("--json", action="store_true", help="one JSON array")
    reports.add_argument("--all", action="store_true", help="closed reports too")
    reports.add_argument("--close", type=int, metavar="ID", help="close the open report ID")
    reports.add_argument("--reason", default="", help="why it is closed (needed with --close)")


def report_object(report: Report) -> dict[str, Any]:
    """Return the `content reports --json` object of one report."""
    return {
        "id": report.id, "item_id": report.item_id, "version": report.item_version,
        "reason": report.reason, "note": report.note, "status": report.status,
        "platform": report.platform, "workspace": report.workspace,
        "round_id": report.round_id, "created_at": report.created_at.isoformat(),
        "closed_at": report.closed_at.isoformat() if report.closed_at else None,
        "close_reason": report.close_reason or None,
    }


def run(settings: Settings, args: argparse.Namespace) -> int:
    """List reports or close one; return the exit status (1: no such open report)."""
    from sqlalchemy.exc import SQLAlchemyError

    from bot.bootstrap import operator_app

    if args.close is not None and not args.reason.strip():
        sys.stderr.write("torchquiz content reports: --close needs --reason TEXT\n")
        return 2
    app = operator_app(settings)
    reports = app.quiz.reports
    try:
        if args.close is not None:
            closed = reports.close_report(args.close, args.reason)
            if closed is None:
                sys.stderr.write(f"torchquiz content reports: no open report {args.close}\n")
                return 1
            sys.stdout.write(f"closed report {closed.id} ({closed.item_id} "
                             f"v{closed.item_version})\n")
            return 0
        rows = reports.every_report(closed_too=args.all)
        if args.json:
            sys.stdout.write(json.dumps([report_object(r) for r in rows], ensure_ascii=True,
                                        indent=2) + "\n")
            return 0
        for r in rows:
            line = (f"#{r.id:<5} {r.item_id} v{r.item_version}  {r.reason:<15} {r.status:<6} "
                    f"{r.created_at.date().isoformat()} {r.platform}:{r.workspace}")
            sys.stdout.write(inert(line, one_line=True, limit=400) + "\n")
            if r.note:
                sys.stdout.write("    " + inert(r.note, one_line=True, limit=500) + "\n")
        if not rows:
            sys.stdout.write("no open reports\n")
        return 0
    except SQLAlchemyError as exc:
        sys.stderr.write(f"torchquiz content reports: the database failed "
                         f"({type(exc).__name__}); is it migrated (torchquiz db upgrade)?\n")
        return 1
    finally:
        app.close()
