"""`torchquiz commands [--json]` and `torchquiz slack manifest [--http]`: the registry's views."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from bot.adapters.slack.manifest import manifest_yaml
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.commands import Registry
from bot.core.kernel.i18n import PLATFORMS, t


def commands_table(registry: Registry = REGISTRY) -> str:
    """Return the commands as the README's Markdown table (name per platform, who, help)."""
    rows = ["| Discord | Slack | console | admins only | what it does |",
            "|---|---|---|---|---|"]
    for command in registry:
        cells = [f"`/{name}`" if (name := command.name(p)) else "—" for p in PLATFORMS]
        rows.append(f"| {' | '.join(cells)} | {'yes' if command.admin_only else ''} "
                    f"| {t('en', command.help_key)} |")
    return "\n".join(rows)


def main(argv: Sequence[str], registry: Registry = REGISTRY) -> int:
    """Print the commands (``commands``) or the Slack app's manifest (``slack manifest``)."""
    parser = argparse.ArgumentParser(prog="torchquiz")
    verbs = parser.add_subparsers(dest="verb", required=True)
    listing = verbs.add_parser("commands", help="every command, per platform")
    listing.add_argument("--json", action="store_true",
                         help="names per platform, options, admins only, help in en and zh-CN")
    slack = verbs.add_parser("slack").add_subparsers(dest="slack_verb", required=True)
    made = slack.add_parser("manifest", help="print the Slack app's manifest (Socket Mode)")
    made.add_argument("--http", action="store_true", help="the manifest for HTTP instead")
    args = parser.parse_args(list(argv))
    if args.verb == "commands":
        text = (json.dumps(registry.listing(), ensure_ascii=False, indent=2) if args.json
                else commands_table(registry))
        sys.stdout.write(text + "\n")
    else:
        sys.stdout.write(manifest_yaml(http=args.http, registry=registry))
    return 0
