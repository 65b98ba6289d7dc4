"""The slash commands, rendered from the registry: each callback parses Discord's options.

Names, descriptions, option descriptions, choices and who may see a command come from the
command's declaration (bot/core/desk, with bot/core/kernel/commands.py's registry); a callback
only turns Discord's typed options into the core's argument and hands over to a handler.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord.handlers import Handlers, identity, locale_of
from bot.adapters.discord.packs import PackHandlers
from bot.core.desk import Desk
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.commands import Command
from bot.core.kernel.i18n import slash

AUTOCOMPLETE_LIMIT = 25  # Discord shows at most 25 choices
PLATFORM = "discord"
ADMINS = discord.Permissions(manage_guild=True)  # who Discord shows an admin command to


def _choices(key: str, option: str) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=label, value=value)
            for label, value in REGISTRY.get(key).option(option).choices]


def _described(key: str) -> dict[str, str]:
    return {o.name: o.description for o in REGISTRY.get(key).options if o.kind != "file"}


def _name(key: str) -> str:
    return REGISTRY.get(key).name(PLATFORM) or key


def _description(key: str) -> str:
    return REGISTRY.get(key).describe[PLATFORM]


def _admins_only(command: app_commands.Command[Any, Any, Any] | app_commands.Group,
                 spec: Command) -> None:
    # Discord hides it from members without Manage Server; the core checks again.
    if spec.admin_only:
        command.guild_only = True
        command.default_permissions = ADMINS


def timezone_choices(current: str) -> list[app_commands.Choice[str]]:
    """Return IANA zone names matching what the admin typed (start of a part first)."""
    return [app_commands.Choice(name=z, value=z)
            for z in Desk.zone_choices(current, AUTOCOMPLETE_LIMIT)]


def register(tree: app_commands.CommandTree[discord.Client], handlers: Handlers) -> None:
    """Add every slash command to ``tree``."""

    @tree.command(name=_name("explain"), description=_description("explain"))
    @app_commands.describe(**_described("explain"))
    async def explain(interaction: discord.Interaction, topic: str) -> None:
        await handlers.command(interaction, "explain", topic)

    @explain.autocomplete("topic")
    async def explain_topics(interaction: discord.Interaction,
                             current: str) -> list[app_commands.Choice[str]]:
        pairs = handlers.desk.explain_choices(current, locale_of(interaction), AUTOCOMPLETE_LIMIT,
                                              identity(interaction))
        return [app_commands.Choice(name=label, value=value) for label, value in pairs]

    @tree.command(name=_name("quiz"), description=_description("quiz"))
    @app_commands.describe(**_described("quiz"))
    async def quiz(interaction: discord.Interaction, topic: str | None = None) -> None:
        await handlers.command(interaction, "quiz", topic or "")

    @quiz.autocomplete("topic")
    async def quiz_topics(interaction: discord.Interaction,
                          current: str) -> list[app_commands.Choice[str]]:
        topics = handlers.desk.topic_choices(current, AUTOCOMPLETE_LIMIT, identity(interaction))
        return [app_commands.Choice(name=tp, value=tp) for tp in topics]

    @tree.command(name=_name("leaderboard"), description=_description("leaderboard"))
    @app_commands.describe(**_described("leaderboard"))
    @app_commands.choices(period=_choices("leaderboard", "period"))
    async def leaderboard(interaction: discord.Interaction,
                          period: app_commands.Choice[str] | None = None,
                          share: bool = False) -> None:
        await handlers.command(interaction, "leaderboard", period.value if period else "week",
                               share=share)

    @tree.command(name=_name("stats"), description=_description("stats"))
    @app_commands.describe(**_described("stats"))
    async def stats(interaction: discord.Interaction, member: discord.Member | None = None,
                    share: bool = False, team: bool = False) -> None:
        await handlers.command(interaction, "stats", "team" if team else "", share=share,
                               whom=None if team else member)

    @tree.command(name=_name("privacy"), description=_description("privacy"))
    @app_commands.describe(**_described("privacy"))
    @app_commands.choices(mode=_choices("privacy", "mode"))
    async def quiz_privacy(interaction: discord.Interaction,
                           mode: app_commands.Choice[str] | None = None) -> None:
        await handlers.command(interaction, "privacy", mode.value if mode else "")

    @tree.command(name=_name("forget-me"), description=_description("forget-me"))
    async def forget_me(interaction: discord.Interaction) -> None:
        # Private, and nothing is deleted until the member clicks the confirmation button.
        await handlers.command(interaction, "forget-me")

    @tree.command(name=_name("insights"), description=_description("insights"))
    async def quiz_insights(interaction: discord.Interaction) -> None:
        # Hidden from members by default; the desk checks the permission Discord computed too.
        await handlers.command(interaction, "insights")

    @tree.command(name=_name("remind"), description=_description("remind"))
    @app_commands.describe(**_described("remind"))
    @app_commands.choices(state=_choices("remind", "state"))
    async def quiz_remind(interaction: discord.Interaction,
                          state: app_commands.Choice[str] | None = None,
                          hour: app_commands.Range[int, 0, 23] | None = None) -> None:
        words = [state.value if state else ("on" if hour is not None else "")]
        argument = " ".join([*words, str(hour)] if hour is not None else words)
        await handlers.command(interaction, "remind", argument)

    @tree.command(name=_name("settings"), description=_description("settings"))
    @app_commands.describe(**_described("settings"))
    @app_commands.choices(language=_choices("settings", "language"),
                          leaderboard_day=_choices("settings", "leaderboard_day"))
    async def quiz_settings(
        interaction: discord.Interaction,
        channel: discord.TextChannel | None = None,
        time: str | None = None,
        timezone: str | None = None,
        language: app_commands.Choice[str] | None = None,
        topics: str | None = None,
        difficulty: str | None = None,
        leaderboard_day: app_commands.Choice[str] | None = None,
        leaderboard_hour: app_commands.Range[int, 0, 23] | None = None,
        enabled: bool | None = None,
        packs: str | None = None,
    ) -> None:
        changes = {key: value for key, value in {
            "time": time, "tz": timezone, "lang": language.value if language else None,
            "topics": topics, "difficulty": difficulty, "packs": packs,
            "enabled": None if enabled is None else ("on" if enabled else "off"),
        }.items() if value is not None}
        if leaderboard_day is not None or leaderboard_hour is not None:
            # One setting in the core: a missing half keeps the channel's current value.
            changes["leaderboard"] = _leaderboard(leaderboard_day, leaderboard_hour)
        if channel is not None and channel.guild.id != interaction.guild_id:
            await handlers.refuse_channel(interaction)  # a text channel, but of another server
            return
        target = channel.id if channel is not None else None
        name = channel.name if channel is not None else getattr(interaction.channel, "name", "")
        await handlers.settings(interaction, target, name or "", changes)

    @tree.command(name=_name("reports"), description=_description("reports"))
    @app_commands.describe(**_described("reports"))
    async def quiz_reports(interaction: discord.Interaction,
                           close: app_commands.Range[int, 1, 2**31 - 1] | None = None,
                           reason: str | None = None) -> None:
        # Discord hides the command from members without Manage Server; the core checks again.
        argument = f"close {close} {reason or ''}".strip() if close is not None else ""
        await handlers.command(interaction, "reports", argument)

    tree.add_command(pack_group(PackHandlers(handlers)))
    for command in (quiz_insights, quiz_settings, quiz_reports):
        _admins_only(command, next(c for c in REGISTRY.on(PLATFORM)
                                   if c.name(PLATFORM) == command.name))

    @quiz_settings.autocomplete("timezone")
    async def zones(interaction: discord.Interaction,
                    current: str) -> list[app_commands.Choice[str]]:
        return timezone_choices(current)


def pack_group(packs: PackHandlers) -> app_commands.Group:
    """Return /quiz-pack: add (an attachment), list, remove, export; admins only."""
    group = app_commands.Group(name=_name("pack"), description=_description("pack"))
    _admins_only(group, REGISTRY.get("pack"))
    shown_by = f"the pack's id, as {slash('pack', PLATFORM)} list shows it"

    # Discord hides the group from members without Manage Server; the desk checks again.
    @group.command(name="add", description="Check a pack file (.yaml) and add it for this server")
    @app_commands.describe(file=REGISTRY.get("pack").option("add").description)
    async def add(interaction: discord.Interaction, file: discord.Attachment) -> None:
        await packs.add(interaction, file)

    @group.command(name="list", description="This server's packs, and the shared ones")
    async def listing(interaction: discord.Interaction) -> None:
        await packs.command(interaction, "list")

    @group.command(name="remove", description="Hide one of this server's packs (answers stay)")
    @app_commands.describe(pack=shown_by)
    async def remove(interaction: discord.Interaction,
                     pack: app_commands.Range[str, 1, 40]) -> None:
        await packs.command(interaction, f"remove {pack}")

    @group.command(name="export", description="Get one of this server's packs as its YAML file")
    @app_commands.describe(pack=shown_by)
    async def export(interaction: discord.Interaction,
                     pack: app_commands.Range[str, 1, 40]) -> None:
        await packs.command(interaction, f"export {pack}")

    return group


def _leaderboard(day: app_commands.Choice[str] | None, hour: int | None) -> str:
    # "keep" halves are resolved by the core's setup against the channel's current values.
    return f"{day.value if day else 'keep'} {'keep' if hour is None else hour}"
