"""The shipped manifests ask for exactly the commands, events and scopes the code uses."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import slack_sdk.web.async_client
import yaml

from bot.adapters.slack.bot import BOT_SCOPES
from bot.adapters.slack.handlers import COMMANDS
from bot.adapters.slack.listeners import EVENTS

ROOT = Path(__file__).resolve().parents[3]
MANIFESTS = [ROOT / "deploy" / "slack-manifest.yml", ROOT / "deploy" / "slack-manifest-http.yml"]
SLACK_CODE = ROOT / "bot" / "adapters" / "slack"
# The bot scope each Web API method needs, from Slack's method reference; None: no scope.
SCOPE_OF = {
    "chat.postMessage": "chat:write", "chat.postEphemeral": "chat:write",
    "chat.update": "chat:write", "users.info": "users:read",
    "conversations.history": "channels:history",  # a repost looks for the round's post first
    "conversations.open": "im:write",  # a review reminder opens the member's DM
    "files.getUploadURLExternal": "files:write", "files.completeUploadExternal": "files:write",
    "files.info": "files:read",  # a pack file an admin chose in the /quiz-pack add modal
    "views.open": None, "views.update": None, "views.publish": None, "auth.test": None,
    "apps.connections.open": None,  # the app-level token's connections:write, not a bot scope
    "conversations.info": ("channels:read", "groups:read"),  # public, private channels
}
# Client helpers that call more than one method.
COMPOSITE = {"files_upload_v2": ["files.getUploadURLExternal", "files.completeUploadExternal"]}


def _client_methods() -> dict[str, str]:
    """Map AsyncWebClient's Python methods to the Web API methods they call."""
    tree = ast.parse(Path(slack_sdk.web.async_client.__file__).read_text(encoding="utf-8"))
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.AsyncFunctionDef):
            for call in ast.walk(node):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "api_call" and call.args
                        and isinstance(call.args[0], ast.Constant)):
                    found[node.name] = call.args[0].value
                    break
    return found


def api_methods_used() -> set[str]:
    """Return every Web API method the Slack adapter's code calls."""
    methods = _client_methods()
    used: set[str] = set()
    for path in SLACK_CODE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name = node.func.attr
                if name in COMPOSITE:
                    used.update(COMPOSITE[name])
                elif name in methods and name != "api_call":
                    used.add(methods[name])
    return used


def _manifest(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_the_code_calls_the_web_api_methods_we_know_the_scopes_of():
    used = api_methods_used()
    assert {"chat.postMessage", "chat.postEphemeral", "chat.update", "views.open",
            "users.info", "files.getUploadURLExternal"} <= used
    assert used <= set(SCOPE_OF), f"add the scope of {sorted(used - set(SCOPE_OF))}"


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_manifest_scopes_are_exactly_those_the_code_needs(path):
    needed = {scope for m in api_methods_used() for scope in
              (SCOPE_OF[m] if isinstance(SCOPE_OF[m], tuple) else [SCOPE_OF[m]])} - {None}
    needed |= {"commands"} if COMMANDS else set()
    scopes = set(_manifest(path)["oauth_config"]["scopes"]["bot"])
    assert scopes == needed, f"unused: {scopes - needed}, missing: {needed - scopes}"
    assert set(BOT_SCOPES) == needed  # what an OAuth install asks for


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_the_manifest_commands_and_events_are_exactly_those_registered(path):
    manifest = _manifest(path)
    commands = [c["command"] for c in manifest["features"]["slash_commands"]]
    assert sorted(commands) == sorted(COMMANDS)
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == set(EVENTS)
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    stats = next(c for c in manifest["features"]["slash_commands"]
                 if c["command"] == "/quiz-stats")
    assert stats["should_escape"] is True  # the code reads members as <@U123|name>


def test_socket_mode_and_http_manifests_differ_only_in_how_slack_reaches_the_app():
    socket, http = (_manifest(p) for p in MANIFESTS)
    assert socket["settings"]["socket_mode_enabled"] is True
    assert http["settings"]["socket_mode_enabled"] is False
    assert all(c["url"].endswith("/slack/events") for c in http["features"]["slash_commands"])
    assert http["settings"]["interactivity"]["request_url"].endswith("/slack/events")
    assert http["settings"]["interactivity"]["message_menu_options_url"].endswith(
        "/slack/events")
    assert http["oauth_config"]["redirect_urls"][0].endswith("/slack/oauth_redirect")
    for manifest in (socket, http):
        for command in manifest["features"]["slash_commands"]:
            command.pop("url", None)
    assert socket["features"] == http["features"]
    assert socket["oauth_config"]["scopes"] == http["oauth_config"]["scopes"]


def test_every_manifest_command_reaches_a_listener(slack_run):
    async def scenario(h):
        for command in _manifest(MANIFESTS[0])["features"]["slash_commands"]:
            asked = await h.send.command(command["command"], who="alice")
            h.acked(asked)  # bolt answers 404 to a command nobody listens to
            await h.reply(asked)

    slack_run(scenario)
