"""Adding a command is one declaration: a scratch one shows up in every view of the registry."""

from __future__ import annotations

import datetime as dt
import io
import json

import pytest
import yaml

from bot import registry_cli
from bot.adapters.console.channel import ConsoleChannel
from bot.adapters.slack.manifest import manifest, manifest_yaml
from bot.bootstrap import build_app
from bot.core.desk import Desk
from bot.core.desk.base import DeskBase
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel import i18n
from bot.core.kernel.commands import Command, Option, Registry
from bot.core.kernel.i18n import speaking_to, t
from bot.core.kernel.messages import Message
from bot.core.kernel.models import Identity
from bot.core.kernel.replies import Reply
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor


def version(desk: DeskBase, who: Identity, _argument: str, _whom: Identity | None) -> Reply:
    return Reply("en", Message(body=t("en", "help.version")))


@pytest.fixture
def scratch(monkeypatch):
    """The recipe's three steps: the names and the sentence (i18n), the declaration."""
    monkeypatch.setitem(i18n.COMMAND_NAMES, "version", {
        "discord": "quiz-version", "slack": "quiz-version", "console": "version"})
    monkeypatch.setitem(i18n._STRINGS, "help.version", {
        "en": "which bank version the bot serves", "zh-CN": "机器人使用的题库版本"})
    command = Command("version", help_key="help.version", handler=version, admin_only=True,
                      denied_key="insights.denied",
                      describe={"discord": "Which bank version", "slack": "Which bank version"},
                      options=(Option("detail", "boolean", "say more"),),
                      usage={"slack": "", "home": "", "console": ""})
    return Registry((*REGISTRY, command))


def test_a_scratch_command_is_listed_with_its_names_options_and_help(scratch, capsys):
    registry_cli.main(["commands", "--json"], registry=scratch)
    listed = {e["key"]: e for e in json.loads(capsys.readouterr().out)}
    assert listed["version"]["names"]["console"] == "/version"
    assert listed["version"]["options"][0]["name"] == "detail"
    assert listed["version"]["help"]["zh-CN"] == "机器人使用的题库版本"
    assert "| `/quiz-version` | `/quiz-version` | `/version` | yes |" in (
        registry_cli.commands_table(scratch))


def test_a_scratch_command_reaches_both_slack_manifests(scratch):
    for http in (False, True):
        commands = manifest(http, scratch)["features"]["slash_commands"]
        assert commands[-1]["command"] == "/quiz-version"
        assert yaml.safe_load(manifest_yaml(http, scratch)) == manifest(http, scratch)


def test_a_scratch_admin_command_is_refused_to_a_member_in_the_core(scratch, tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    app = build_app(settings, clock=FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)),
                    executor=RecordingExecutor())
    try:
        desk = Desk(app.quiz)
        who = Identity(platform="discord", workspace="g", channel="c", user="u",
                       display_name="U", locale="en", is_admin=False)
        refused = scratch.dispatch(desk, who, "version", "")
        assert refused.message.body == t("en", "insights.denied")
        admin = scratch.dispatch(desk, Identity(**{**who.__dict__, "is_admin": True}),
                                 "version", "")
        assert admin.message.body == "which bank version the bot serves"
    finally:
        app.close()


def test_sentences_name_the_command_as_the_asking_front_end_calls_it():
    with speaking_to("slack"):
        assert "`/quiz-stats @alice`" in t("en", "stats.bad_member")
    with speaking_to("discord"):
        assert "/quiz-privacy hidden" in t("en", "privacy.status.visible")
    with speaking_to("console"):
        assert "/privacy hidden" in t("en", "privacy.status.visible")
        assert "/quiz-" not in t("en", "privacy.status.visible")


def test_the_console_names_its_own_privacy_command(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    app = build_app(settings, clock=FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)),
                    executor=RecordingExecutor())
    try:
        out = io.StringIO()
        ConsoleChannel(app.quiz, out).run(iter(["/privacy\n", "/quit\n"]))
        text = out.getvalue()
    finally:
        app.close()
    assert "/privacy hidden keeps you off them" in text
    assert "/quiz-privacy" not in text


def test_the_console_takes_settings_as_the_chat_hints_write_them(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    app = build_app(settings, clock=FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)),
                    executor=RecordingExecutor())
    try:
        out = io.StringIO()
        channel = ConsoleChannel(app.quiz, out)
        channel.run(iter(["/setup time:10:45\n", "/quit\n"]))
        assert channel.state.channel.post_time.strftime("%H:%M") == "10:45"
    finally:
        app.close()


def test_a_scratch_command_becomes_a_discord_command_with_no_discord_code(scratch):
    # Discord renders a declaration it has no callback of its own for: names, description,
    # options with their types and descriptions, and the Manage Server default.
    from bot.adapters.discord.commands import ADMINS, generic_command

    command = generic_command(scratch.get("version"), handlers=None, suggest={})
    assert command.name == "quiz-version" and command.description == "Which bank version"
    [detail] = command.parameters
    assert (detail.name, detail.description, detail.required) == ("detail", "say more", False)
    assert detail.type.name == "boolean"
    assert command.default_permissions == ADMINS and command.guild_only
