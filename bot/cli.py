"""The `torchquiz` command: console, discord, slack, web, content, db, member, pack, exec, bench."""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import getpass
import importlib
import itertools
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from bot import logs, members_cli, packs_cli, reports_cli
from bot.settings import Settings
from content.loader import Bank, ContentError, Question
from content.schema import CodeItem, ExplainCard, SpeedItem

log = logging.getLogger(__name__)


Built = TypeVar("Built")


def _long_lived(built: Built) -> Built:
    """Keep what a serving process built at its start out of every later garbage collection.

    Modules, the content bank and the composition root leave about 300,000 objects that live
    as long as the process. Each full collection walked them all with the event loop stopped:
    0.2 s on a quiet machine, seconds on a busy one, long enough for Discord's three seconds
    to pass before an acknowledgement (docs/benchmarks.md). Frozen, they are skipped.
    """
    gc.collect()
    gc.freeze()
    log.info("start-up heap frozen: the collector skips its %d objects from now on",
             gc.get_freeze_count())
    return built


def _your_name() -> str:
    """Return the newcomer's login name for the console's boards ("me" for root or none)."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER: a bare container
        return "me"
    return name if name and name != "root" else "me"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchquiz", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    console = commands.add_parser("console", help="play in this terminal (reads stdin)")
    console.add_argument("--as", dest="user", default=_your_name(),
                         help="your name in the channel (default: your login name)")
    console.add_argument("--channel", default="general", help="the channel to play in")
    console.add_argument("--lang", choices=("en", "zh-CN"), help="language of a new channel")
    console.add_argument("--tz", help="time zone of a new channel, e.g. Asia/Shanghai")
    console.add_argument("--web-link", action="store_true",
                         help="start by printing your sign-in link to the web page (as /web)")

    content = commands.add_parser("content", help="inspect and validate the question bank")
    content_commands = content.add_subparsers(dest="content_command", required=True)
    listing = content_commands.add_parser("list", help="list questions and explain cards")
    listing.add_argument("--json", action="store_true", help="one JSON array (the contract)")
    show = content_commands.add_parser("show", help="show one item, reference solution included")
    show.add_argument("item_id")
    show.add_argument("--json", action="store_true")
    stats = content_commands.add_parser(
        "stats", help="item statistics from first tries at daily rounds; pauses suspect keys")
    stats.add_argument("--json", action="store_true", help="one JSON array (the contract)")
    stats.add_argument("--since", type=_date, metavar="DATE",
                       help="only rounds dated DATE (YYYY-MM-DD) or later")
    content_commands.add_parser(
        "unpause", help="let the daily pick choose a paused item again").add_argument("item_id")
    validate = content_commands.add_parser("validate", help="check every file; list all problems")
    validate.add_argument(
        "--no-fixtures", action="store_true",
        help="skip the fixture submissions (they live in tests/, which images do not ship)")
    reports_cli.add_parser(content_commands)

    database = commands.add_parser("db", help="database maintenance")
    db_commands = database.add_subparsers(dest="db_command", required=True)
    db_commands.add_parser("upgrade", help="apply the Alembic migrations")
    db_commands.add_parser("backup", help="copy the SQLite database to FILE, bot running or not"
                           ).add_argument("file")
    restore = db_commands.add_parser("restore", help="put a backup FILE in place (bots stopped)")
    restore.add_argument("file")
    restore.add_argument("--force", action="store_true", help="replace a database with data")

    members_cli.add_parser(commands)
    packs_cli.add_parser(commands)
    commands.add_parser("commands", help="every chat command: `commands [--json]`; "
                        "`slack manifest [--http]` prints the Slack app's manifest")
    commands.add_parser("discord", help="run the Discord bot (reads DISCORD_TOKEN)")
    slack = commands.add_parser(
        "slack", help="run the Slack app: Socket Mode with SLACK_APP_TOKEN, or --http")
    slack.add_argument("--http", action="store_true",
                       help="serve /slack/events over HTTP instead of Socket Mode")
    slack.add_argument("--host", default="127.0.0.1",
                       help="address to listen on with --http (0.0.0.0 in a container)")
    slack.add_argument("--port", type=int, default=3000, help="port to listen on with --http")
    web = commands.add_parser("web", help="serve the team's web page (sign in with /quiz-web)")
    web.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (0.0.0.0 in a container)")
    web.add_argument("--port", type=int, default=8000, help="port to listen on")
    commands.add_parser("exec", help="grade code files against a challenge", add_help=False)
    commands.add_parser("bench", add_help=False,
                        help="run a benchmark: `bench executor`, `bench core` or `bench live`")
    commands.add_parser("executor", help="`executor serve`: the executor over HTTP",
                        add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    settings = Settings()
    logs.setup(settings.log_level, settings.log_format)
    # exec and bench own their flags (they live in the executor package, which needs torch).
    if args_list[:1] == ["exec"]:
        if settings.executor == "none":
            print("torchquiz exec: no executor is configured (TORCHQUIZ_EXECUTOR=none); "
                  "unset it to grade in the local sandbox", file=sys.stderr)
            return 3
        try:
            from executors.cli.exec_command import main as exec_main
        except ImportError as exc:
            print(f"torchquiz exec: the executor extra is not installed ({exc.name}); "
                  "install it with: pip install -e '.[executor]'", file=sys.stderr)
            return 3

        from bot.bootstrap import stored_pack_questions

        return exec_main(args_list[1:], stored_pack=stored_pack_questions(settings))
    if args_list[:1] == ["commands"] or args_list[:2] == ["slack", "manifest"]:
        from bot import registry_cli  # the registry's views: no database, no platform client

        return registry_cli.main(args_list)
    if args_list[:1] == ["bench"]:
        return _bench(args_list[1:])
    if args_list[:2] == ["executor", "health"]:
        from executors.cli.health_command import main as health_main  # no torch: a probe

        return health_main(args_list[2:])
    if args_list[:1] == ["executor"]:
        try:
            from executors.cli.service_command import main as service_main
        except ImportError as exc:
            print(f"torchquiz executor: the executor extra is not installed ({exc.name}); "
                  "install it with: pip install -e '.[executor]'", file=sys.stderr)
            return 3
        return service_main(args_list[1:])
    args = _parser().parse_args(args_list)
    if args.command == "console":
        return _console(settings, args)
    if args.command == "discord":
        try:
            from bot.adapters.discord.main import main as discord_main
        except ImportError as exc:
            print(f"torchquiz discord: the discord extra is not installed ({exc.name}); "
                  "install it with: pip install -e '.[discord]'", file=sys.stderr)
            return 3
        from bot.bootstrap import discord_bot

        return discord_main(settings, lambda: _long_lived(discord_bot(settings)))
    if args.command == "slack":
        try:
            from bot.adapters.slack.main import main as slack_main
        except ImportError as exc:
            print(f"torchquiz slack: the slack extra is not installed ({exc.name}); "
                  "install it with: pip install -e '.[slack]'", file=sys.stderr)
            return 3
        from bot.bootstrap import slack_bot

        return slack_main(settings, lambda: _long_lived(slack_bot(settings)), http=args.http,
                          host=args.host, port=args.port)
    if args.command == "web":
        return _web(settings, args)
    if args.command == "content" and args.content_command == "reports":
        return reports_cli.run(settings, args)
    if args.command == "content":
        return _content(settings, args)
    if args.command == "member":
        return members_cli.run(settings, args)
    if args.command == "pack":
        return packs_cli.run(settings, args)
    if args.command == "db" and args.db_command in ("backup", "restore"):
        return _backup_or_restore(settings, args)
    if args.command == "db":
        from bot.bootstrap import database_url
        from db.migrate import upgrade

        upgrade(database_url(settings))
        print("database is up to date")
        return 0
    return 2


def _backup_or_restore(settings: Settings, args: argparse.Namespace) -> int:
    """Run `db backup FILE` or `db restore FILE`: 0 done, 1 refused, 2 not a SQLite database."""
    from bot.bootstrap import database_url
    from db.backup import BackupError, NotSqlite, backup, restore

    url, file = database_url(settings), Path(args.file)
    try:
        info = (backup(url, file) if args.db_command == "backup"
                else restore(url, file, force=args.force))
    except BackupError as exc:
        print(f"torchquiz db {args.db_command}: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, NotSqlite) else 1
    print(f"{'backed up to' if args.db_command == 'backup' else 'restored'} {info.describe()}")
    return 0


_BENCHES = {"core": "bench.core", "packs": "bench.packs", "executor": "bench.executor",
            "web": "bench.web", "live": "bench.live", "speed": "bench.speed"}


def _bench(argv: list[str]) -> int:
    module_name = _BENCHES.get(argv[0]) if argv else None
    if module_name is None:
        print("usage: torchquiz bench executor [--n N] [--burst N]\n"
              "       torchquiz bench packs [--items N] [--code N] [--json]\n"
              "       torchquiz bench core [--answers N] [--postgres-url URL] [--json]\n"
              "       torchquiz bench web [--answers N] [--postgres-url URL] [--json]\n"
              "       torchquiz bench live [--players N] [--postgres-url URL] [--json]\n"
              "       torchquiz bench speed [--verdicts N]",
              file=sys.stderr)
        return 2
    # Imported here: the bench package is not part of the product (nor of its wheel or images);
    # it runs from a checkout, whose root is the folder above bot/.
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "bench" / "__init__.py").is_file() and str(checkout) not in sys.path:
        sys.path.append(str(checkout))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        print(f"torchquiz bench {argv[0]}: cannot load the benchmark ({exc.name}); run it from "
              "a checkout with the executor extra installed", file=sys.stderr)
        return 3
    run: Callable[[list[str]], int] = module.main
    return run(argv[1:])


def _web(settings: Settings, args: argparse.Namespace) -> int:
    try:
        from bot.adapters.web.main import main as web_main
    except ImportError as exc:
        print(f"torchquiz web: the web extra is not installed ({exc.name}); "
              "install it with: pip install -e '.[web]'", file=sys.stderr)
        return 3
    from bot.bootstrap import web_app

    def build() -> tuple[Any, Callable[[], object]]:
        front, app = _long_lived(web_app(settings))
        return front, app.close

    return web_main(settings, build, host=args.host, port=args.port)


def _console(settings: Settings, args: argparse.Namespace) -> int:
    from bot.adapters.console.channel import ConsoleChannel
    from bot.bootstrap import build_app
    from bot.core.kernel.models import ChannelDefaults

    app = build_app(settings)
    try:
        defaults = ChannelDefaults(name=args.channel, locale=args.lang or "en",
                                   timezone=args.tz or "UTC")
        channel = ConsoleChannel(app.quiz, sys.stdout, channel_name=args.channel,
                                 user_name=args.user, code_problem=app.executor_problem,
                                 defaults=defaults, chart_dir=settings.data_dir / "charts",
                                 packs=app.packs)
        # `make demo` serves the page beside the console: the newcomer's link comes first, made
        # exactly as typing /web makes it.
        first = ["/web\n"] if args.web_link else []
        channel.run(itertools.chain(first, sys.stdin))
    except KeyboardInterrupt:
        pass
    finally:
        app.close()
    return 0


def _load(settings: Settings) -> Bank | None:
    from bot.bootstrap import load_content

    try:
        return load_content(settings)
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"{len(exc.problems)} problem(s) in the question bank", file=sys.stderr)
        return None


def listing_entry(entry: Question | SpeedItem | ExplainCard) -> dict[str, Any]:
    """Return the `content list --json` object for one item or card (a documented contract)."""
    if isinstance(entry, ExplainCard):
        return {"id": entry.id, "kind": "explain", "topic": entry.topic, "difficulty": None,
                "locales": ["en", "zh-CN"], "seed_refs": list(entry.seed_refs),
                "related": list(entry.related)}
    data: dict[str, Any] = {
        "id": entry.id, "kind": entry.kind, "topic": entry.topic, "topics": list(entry.topics),
        "difficulty": entry.difficulty, "locales": ["en", "zh-CN"],
        "seed_refs": list(entry.seed_refs), "related": list(entry.related),
        "version": entry.version,
    }
    if isinstance(entry, CodeItem):
        data["entrypoint"] = entry.code.entrypoint
        data["requires"] = list(entry.code.requires)
    if isinstance(entry, SpeedItem):
        data["entrypoint"] = entry.speed.entrypoint
        data["requires"] = list(entry.speed.requires)
        data["shapes"] = [s.name for s in entry.speed.shapes]
        data["target_speedup"] = entry.speed.target_speedup
    return data


def _validate(settings: Settings, bank: Bank, *, fixtures: bool) -> int:
    from content.coverage import validate
    from content.loader import BANK_ROOT
    from content.report import coverage_report

    report = validate(bank, settings.content_dir or BANK_ROOT, fixtures=fixtures)
    print(coverage_report(bank, report.targets))
    print()
    if report.problems:
        for problem in report.problems:
            print(problem, file=sys.stderr)
        print(f"{len(report.problems)} problem(s) in the question bank", file=sys.stderr)
        return 1
    print(f"ok: {len(bank.questions)} questions, {len(bank.cards)} explain cards")
    return 0


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text[:40]!r}") from exc


def _insights(settings: Settings, bank: Bank, args: argparse.Namespace) -> int:
    """Run `content stats` or `content unpause ID` against the configured database."""
    from sqlalchemy.exc import SQLAlchemyError

    from bot.bootstrap import operator_app

    app = operator_app(settings, bank=bank)
    try:
        insights = app.quiz.insights
        if args.content_command == "unpause":
            if args.item_id not in bank.questions:
                print(f"no question with id {args.item_id!r}", file=sys.stderr)
                return 1
            versions = insights.unpause(args.item_id)
            print(f"unpaused {args.item_id} (version {', '.join(map(str, versions))})"
                  if versions else f"{args.item_id} was not paused")
            return 0
        found = insights.stats(args.since)
    except SQLAlchemyError as exc:
        print(f"torchquiz content {args.content_command}: the database failed "
              f"({type(exc).__name__}); is it migrated (torchquiz db upgrade)?", file=sys.stderr)
        return 1
    finally:
        app.close()
    if args.json:
        print(json.dumps([s.as_json() for s in found], ensure_ascii=False, indent=2))
        return 0
    for s in found:
        p = "-" if s.p_correct is None else f"{s.p_correct:.2f}"
        disc = "n/a" if s.discrimination is None else f"{s.discrimination:+.2f}"
        print(f"{s.item_id:<36} v{s.version:<3} {s.answered:>6} p {p:>5} disc {disc:>5}"
              f" reports {s.reports:>3} {','.join(s.flags)}{' PAUSED' if s.paused else ''}")
    return 0


def _content(settings: Settings, args: argparse.Namespace) -> int:
    bank = _load(settings)
    if bank is None:
        return 1
    if args.content_command in ("stats", "unpause"):
        return _insights(settings, bank, args)
    if args.content_command == "validate":
        return _validate(settings, bank, fixtures=not args.no_fixtures)
    if args.content_command == "list":
        entries = [listing_entry(e) for e in bank.all_entries()]
        if args.json:
            print(json.dumps(entries, ensure_ascii=False, indent=2))
        else:
            for e in entries:
                print(f"{e['id']:<36} {e['kind']:<8} {e['topic']:<22} {e['difficulty'] or '-'}")
        return 0
    entry: Question | SpeedItem | ExplainCard | None = (
        bank.questions.get(args.item_id) or bank.speed.get(args.item_id)
        or bank.cards.get(args.item_id)
    )
    if entry is None:
        print(f"no item or card with id {args.item_id!r}", file=sys.stderr)
        return 1
    data = entry.model_dump(mode="json", by_alias=True)
    if isinstance(entry, CodeItem):
        data["solution"] = entry.code.solution  # the contract names it at the top level
    if isinstance(entry, SpeedItem):
        # The contract names both at the top level: the slow start and the item's fast one.
        data["reference"] = entry.speed.reference
        data["solution"] = entry.speed.solution
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        import yaml

        print(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
