"""`torchquiz member export|forget PLATFORM:WORKSPACE:USER`: a member's data, for operators.

``export --json`` prints one JSON object (ASCII, sorted keys, ISO 8601 times): the member, and
every section of what is stored about them; the sections tied to channels list only the
workspace's channels, the others (practice, review cards) belong to the member wherever they
are. ``forget --yes`` deletes the member on the platform, in every workspace (a member is one
person there), exactly as their own /quiz-forget-me does.
Exit 0 when done, 1 when the member is unknown (or the database cannot say), 2 for a malformed
argument.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.settings import Settings

PLATFORMS = ("discord", "slack", "console")
# Platform ids are short and printable: Discord snowflakes, Slack T/U/W ids, console names.
_PART = re.compile(r"[A-Za-z0-9._@-]{1,128}")
_CONSOLE_USER = re.compile(r"[^:]{1,128}")  # the console's user is a casefolded name


class BadMember(ValueError):
    """The PLATFORM:WORKSPACE:USER argument is malformed."""


def parse_member(text: str) -> tuple[str, str, str]:
    """Return (platform, workspace, user) from PLATFORM:WORKSPACE:USER, or raise BadMember."""
    parts = text.split(":")
    if len(parts) != 3:
        raise BadMember(f"expected PLATFORM:WORKSPACE:USER, got {text[:80]!r}")
    platform, workspace, user = parts
    if platform not in PLATFORMS:
        raise BadMember(f"unknown platform {platform[:40]!r} (one of {', '.join(PLATFORMS)})")
    pattern = _CONSOLE_USER if platform == "console" else _PART
    if not _PART.fullmatch(workspace) or not pattern.fullmatch(user) or not user.isprintable():
        raise BadMember(f"malformed workspace or user id in {text[:80]!r}")
    return platform, workspace, user


def add_parser(commands: Any) -> None:
    """Add `member export` and `member forget` to the `torchquiz` subcommands."""
    member = commands.add_parser("member", help="a member's data: export it, or forget them")
    member_commands = member.add_subparsers(dest="member_command", required=True)
    export = member_commands.add_parser("export", help="print everything stored about a member")
    export.add_argument("member", help="PLATFORM:WORKSPACE:USER, e.g. slack:T012AB:U34CD")
    export.add_argument("--json", action="store_true", help="one JSON object (the only format)")
    forget = member_commands.add_parser("forget", help="delete everything stored about a member")
    forget.add_argument("member", help="PLATFORM:WORKSPACE:USER")
    forget.add_argument("--yes", action="store_true", help="really delete (required)")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run `member export` or `member forget`; return the exit status."""
    from sqlalchemy.exc import SQLAlchemyError

    from bot.bootstrap import operator_app
    from bot.core.people.service import export_object

    what = f"torchquiz member {args.member_command}"
    try:
        platform, workspace, user = parse_member(args.member)
    except BadMember as exc:
        _err(f"{what}: {exc}")
        return 2
    if args.member_command == "forget" and not args.yes:
        _err(f"{what}: add --yes to delete {args.member} for good")
        return 2
    app = operator_app(settings)
    people = app.quiz.people
    try:
        if args.member_command == "export":
            data = people.member_data(platform, user, workspace)
            if data is None:
                _err(f"{what}: no member {user} in {platform} workspace {workspace}")
                return 1
            sys.stdout.write(json.dumps(export_object(data, platform), ensure_ascii=True,
                                        sort_keys=True, indent=2) + "\n")
            return 0
        report = people.forget_member(platform, user)
        if report is None:
            _err(f"{what}: no member {user} on {platform}")
            return 1
        counts = ", ".join(f"{name} {n}" for name, n in report.deleted)
        kept = (f"; {report.kept_anonymous} tries at open rounds kept without the member"
                if report.kept_anonymous else "")
        sys.stdout.write(f"forgot {platform} member {user} in every workspace: {counts}{kept}\n")
        return 0
    except SQLAlchemyError as exc:
        _err(f"{what}: the database failed ({type(exc).__name__}); is it migrated "
             "(torchquiz db upgrade)?")
        return 1
    finally:
        app.close()
