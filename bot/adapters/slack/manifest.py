"""The Slack app's manifests (Socket Mode and HTTP), made from the registry of commands.

``torchquiz slack manifest [--http]`` prints them; deploy/slack-manifest.yml and
deploy/slack-manifest-http.yml are its output, and a test keeps them equal. Nothing here needs
the Slack libraries, so the command works without the slack extra.
"""

from __future__ import annotations

from typing import Any

import yaml

from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.commands import Registry

# Every bot scope the code needs (tests/adapters/slack/test_slack_manifest.py derives them
# from the Web API methods the adapter calls), asked for by the manifest and by OAuth installs.
BOT_SCOPES = ("channels:history", "channels:read", "chat:write", "commands", "files:read",
              "files:write", "groups:read", "im:write", "users:read")
EVENTS = ("app_home_opened",)  # the home tab is the only event we subscribe to
EXAMPLE_URL = "https://quiz.example.com"
PLATFORM = "slack"

_HEADER = {
    False: """\
# The torchquiz Slack app for Socket Mode: paste this at https://api.slack.com/apps ->
# Create New App -> From a manifest. No public URL is needed. For HTTP (behind a load
# balancer, or one app many workspaces install) use slack-manifest-http.yml instead.
# Made by `torchquiz slack manifest` from the registry of commands;
# tests/adapters/slack/test_slack_manifest.py keeps this file equal to it.
""",
    True: """\
# The torchquiz Slack app over HTTP: replace https://quiz.example.com with the public HTTPS
# address that reaches `torchquiz slack --http` (everything goes to /slack/events; installs in
# other workspaces come back to /slack/oauth_redirect), then paste this at
# https://api.slack.com/apps -> Create New App -> From a manifest. Made by
# `torchquiz slack manifest --http` from the registry of commands;
# tests/adapters/slack/test_slack_manifest.py keeps this file equal to it.
""",
}
_LONG_DESCRIPTION = (
    "torchquiz posts one PyTorch interview-style question a day to a channel, at the channel's "
    "own time, time zone and language (English or Simplified Chinese). Members answer with a "
    "button, a short text or a few lines of code; code runs in a hardened sandbox and is graded "
    "outside it. {explain} gives a concept card with a runnable example, {quiz} a private "
    "practice question from what you missed, and {leaderboard} and {stats} keep score.")


def manifest(http: bool = False, registry: Registry = REGISTRY) -> dict[str, Any]:
    """Return the app's manifest: for Socket Mode, or for HTTP with ``http``."""
    events_url = f"{EXAMPLE_URL}/slack/events"
    commands = []
    for command in registry.on(PLATFORM):
        entry: dict[str, Any] = {"command": f"/{command.name(PLATFORM)}",
                                 "description": command.describe[PLATFORM]}
        if command.usage.get(PLATFORM):
            entry["usage_hint"] = command.usage[PLATFORM]
        entry["should_escape"] = command.escape
        if http:
            entry["url"] = events_url
        commands.append(entry)
    names = {key: f"/{registry.get(key).name(PLATFORM)}"
             for key in ("explain", "quiz", "leaderboard", "stats") if key in registry}
    oauth: dict[str, Any] = {"scopes": {"bot": list(BOT_SCOPES)}}
    if http:
        oauth["redirect_urls"] = [f"{EXAMPLE_URL}/slack/oauth_redirect"]
    events: dict[str, Any] = {"bot_events": list(EVENTS)}
    interactivity: dict[str, Any] = {"is_enabled": True}
    if http:
        events["request_url"] = events_url
        interactivity |= {"request_url": events_url, "message_menu_options_url": events_url}
    return {
        "display_information": {
            "name": "torchquiz",
            "description": "One PyTorch interview question a day, code answers graded in a "
                           "sandbox.",
            "long_description": _LONG_DESCRIPTION.format(**names),
            "background_color": "#812ce5",
        },
        "features": {
            "app_home": {"home_tab_enabled": True, "messages_tab_enabled": True,
                         "messages_tab_read_only_enabled": True},
            "bot_user": {"display_name": "torchquiz", "always_online": True},
            "slash_commands": commands,
        },
        "oauth_config": oauth,
        "settings": {
            "event_subscriptions": events,
            "interactivity": interactivity,
            "org_deploy_enabled": False,
            "socket_mode_enabled": not http,
            "token_rotation_enabled": False,
        },
    }


def manifest_yaml(http: bool = False, registry: Registry = REGISTRY) -> str:
    """Return the manifest as the YAML file deploy/ ships, its comment included."""
    body = yaml.safe_dump(manifest(http, registry), sort_keys=False, allow_unicode=True,
                          width=96, indent=2)
    return _HEADER[http] + body
