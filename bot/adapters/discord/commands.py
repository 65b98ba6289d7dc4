"""The slash commands: names, options and autocomplete; each one hands over to a handler."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.adapters.discord.handlers import Handlers, identity, locale_of
from bot.adapters.discord.packs import PackHandlers
from bot.core.channels.setup import WEEKDAYS
from bot.core.desk import Desk

AUTOCOMPLETE_LIMIT = 25  # Discord shows at most 25 choices

PERIODS = [app_commands.Choice(name="this week", value="week"),
           app_commands.Choice(name="all time", value="all")]
LANGUAGES = [app_commands.Choice(name="English", value="en"),
             app_commands.Choice(name="简体中文", value="zh-CN")]
DAYS = [app_commands.Choice(name=day, value=day) for day in WEEKDAYS]
PRIVACY = [app_commands.Choice(name="hidden from the boards", value="hidden"),
           app_commands.Choice(name="visible on the boards", value="visible")]
COMMAND_NAMES = ("explain", "quiz", "leaderboard", "stats", "quiz-settings", "quiz-forget-me",
                 "quiz-reports", "quiz-insights", "quiz-privacy", "quiz-remind", "quiz-pack")
SWITCH = [app_commands.Choice(name="on", value="on"), app_commands.Choice(name="off", value="off"),
          app_commands.Choice(name="snooze a day", value="snooze")]


def timezone_choices(current: str) -> list[app_commands.Choice[str]]:
    """Return IANA zone names matching what the admin typed (start of a part first)."""
    return [app_commands.Choice(name=z, value=z)
            for z in Desk.zone_choices(current, AUTOCOMPLETE_LIMIT)]


def register(tree: app_commands.CommandTree[discord.Client], handlers: Handlers) -> None:
    """Add every slash command to ``tree``."""

    @tree.command(name="explain", description="Explain a PyTorch concept, with an example")
    @app_commands.describe(topic="e.g. detach, view-vs-reshape, no_grad")
    async def explain(interaction: discord.Interaction, topic: str) -> None:
        await handlers.command(interaction, "explain", topic)

    @explain.autocomplete("topic")
    async def explain_topics(interaction: discord.Interaction,
                             current: str) -> list[app_commands.Choice[str]]:
        pairs = handlers.desk.explain_choices(current, locale_of(interaction), AUTOCOMPLETE_LIMIT,
                                              identity(interaction))
        return [app_commands.Choice(name=label, value=value) for label, value in pairs]

    @tree.command(name="quiz", description="A private practice question, from what you missed")
    @app_commands.describe(topic="only questions on this topic")
    async def quiz(interaction: discord.Interaction, topic: str | None = None) -> None:
        await handlers.command(interaction, "quiz", topic or "")

    @quiz.autocomplete("topic")
    async def quiz_topics(interaction: discord.Interaction,
                          current: str) -> list[app_commands.Choice[str]]:
        topics = handlers.desk.topic_choices(current, AUTOCOMPLETE_LIMIT, identity(interaction))
        return [app_commands.Choice(name=tp, value=tp) for tp in topics]

    @tree.command(name="leaderboard", description="This channel's leaderboard")
    @app_commands.describe(period="this week or all time", share="post it for everyone")
    @app_commands.choices(period=PERIODS)
    async def leaderboard(interaction: discord.Interaction,
                          period: app_commands.Choice[str] | None = None,
                          share: bool = False) -> None:
        await handlers.command(interaction, "leaderboard", period.value if period else "week",
                               share=share)

    @tree.command(name="stats", description="Points, streaks and mastery by topic")
    @app_commands.describe(member="whose stats (you by default)", share="post it for everyone",
                           team="the team's mastery by topic, weakest first (admins)")
    async def stats(interaction: discord.Interaction, member: discord.Member | None = None,
                    share: bool = False, team: bool = False) -> None:
        await handlers.command(interaction, "stats", "team" if team else "", share=share,
                               whom=None if team else member)

    @tree.command(name="quiz-privacy", description="Hide yourself from the boards, or show again")
    @app_commands.describe(mode="hidden or visible (empty: say which you are)")
    @app_commands.choices(mode=PRIVACY)
    async def quiz_privacy(interaction: discord.Interaction,
                           mode: app_commands.Choice[str] | None = None) -> None:
        await handlers.command(interaction, "privacy", mode.value if mode else "")

    @tree.command(name="quiz-forget-me",
                  description="See and delete everything the quiz keeps about you")
    async def forget_me(interaction: discord.Interaction) -> None:
        # Private, and nothing is deleted until the member clicks the confirmation button.
        await handlers.command(interaction, "forget-me")

    @tree.command(name="quiz-insights",
                  description="Question quality: flagged and paused questions (Manage Server)")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    async def quiz_insights(interaction: discord.Interaction) -> None:
        # Hidden from members by default; the desk checks the permission Discord computed too.
        await handlers.command(interaction, "insights")

    @tree.command(name="quiz-remind", description="A private reminder when reviews are due")
    @app_commands.describe(state="on, off, or skip tomorrow",
                           hour="local hour, 0-23 (the channel's post time by default)")
    @app_commands.choices(state=SWITCH)
    async def quiz_remind(interaction: discord.Interaction,
                          state: app_commands.Choice[str] | None = None,
                          hour: app_commands.Range[int, 0, 23] | None = None) -> None:
        words = [state.value if state else ("on" if hour is not None else "")]
        argument = " ".join([*words, str(hour)] if hour is not None else words)
        await handlers.command(interaction, "remind", argument)

    @tree.command(name="quiz-settings",
                  description="Show or change this channel's daily quiz (Manage Server)")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(
        channel="the channel to set up (this one by default)",
        time="daily post time, HH:MM", timezone="IANA time zone, e.g. Asia/Shanghai",
        language="language of the posts", topics="comma-separated topics, or all",
        difficulty="e.g. 1,2 or all", leaderboard_day="weekday of the weekly leaderboard",
        leaderboard_hour="hour of the weekly leaderboard", enabled="post daily questions",
        packs="packs to draw from, comma-separated; bank is the shipped bank",
    )
    @app_commands.choices(language=LANGUAGES, leaderboard_day=DAYS)
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

    @tree.command(name="quiz-reports",
                  description="Open reports of faulty questions; close one (Manage Server)")
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(close="the number of a report to close",
                           reason="why it is closed (needed to close one)")
    async def quiz_reports(interaction: discord.Interaction,
                           close: app_commands.Range[int, 1, 2**31 - 1] | None = None,
                           reason: str | None = None) -> None:
        # Discord hides the command from members without Manage Server; the core checks again.
        argument = f"close {close} {reason or ''}".strip() if close is not None else ""
        await handlers.command(interaction, "reports", argument)

    tree.add_command(pack_group(PackHandlers(handlers)))

    @quiz_settings.autocomplete("timezone")
    async def zones(interaction: discord.Interaction,
                    current: str) -> list[app_commands.Choice[str]]:
        return timezone_choices(current)


def pack_group(packs: PackHandlers) -> app_commands.Group:
    """Return /quiz-pack: add (an attachment), list, remove, export; admins only."""
    group = app_commands.Group(
        name="quiz-pack", description="Team question packs: add, list, remove, export (Manage "
        "Server)", guild_only=True, default_permissions=discord.Permissions(manage_guild=True))

    # Discord hides the group from members without Manage Server; the desk checks again.
    @group.command(name="add", description="Check a pack file (.yaml) and add it for this server")
    @app_commands.describe(file="the pack file, one YAML file of at most 1 MiB")
    async def add(interaction: discord.Interaction, file: discord.Attachment) -> None:
        await packs.add(interaction, file)

    @group.command(name="list", description="This server's packs, and the shared ones")
    async def listing(interaction: discord.Interaction) -> None:
        await packs.command(interaction, "list")

    @group.command(name="remove", description="Hide one of this server's packs (answers stay)")
    @app_commands.describe(pack="the pack's id, as /quiz-pack list shows it")
    async def remove(interaction: discord.Interaction,
                     pack: app_commands.Range[str, 1, 40]) -> None:
        await packs.command(interaction, f"remove {pack}")

    @group.command(name="export", description="Get one of this server's packs as its YAML file")
    @app_commands.describe(pack="the pack's id, as /quiz-pack list shows it")
    async def export(interaction: discord.Interaction,
                     pack: app_commands.Range[str, 1, 40]) -> None:
        await packs.command(interaction, f"export {pack}")

    return group


def _leaderboard(day: app_commands.Choice[str] | None, hour: int | None) -> str:
    # "keep" halves are resolved by the core's setup against the channel's current values.
    return f"{day.value if day else 'keep'} {'keep' if hour is None else hour}"
