"""The slash commands: names, options and autocomplete; each one hands over to a handler."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.adapters.discord.handlers import Handlers, locale_of
from bot.core.channel_setup import WEEKDAYS
from bot.core.desk import Desk

AUTOCOMPLETE_LIMIT = 25  # Discord shows at most 25 choices

PERIODS = [app_commands.Choice(name="this week", value="week"),
           app_commands.Choice(name="all time", value="all")]
LANGUAGES = [app_commands.Choice(name="English", value="en"),
             app_commands.Choice(name="简体中文", value="zh-CN")]
DAYS = [app_commands.Choice(name=day, value=day) for day in WEEKDAYS]
COMMAND_NAMES = ("explain", "quiz", "leaderboard", "stats", "quiz-settings", "quiz-forget-me")


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
        pairs = handlers.desk.explain_choices(current, locale_of(interaction), AUTOCOMPLETE_LIMIT)
        return [app_commands.Choice(name=label, value=value) for label, value in pairs]

    @tree.command(name="quiz", description="A private practice question, from what you missed")
    @app_commands.describe(topic="only questions on this topic")
    async def quiz(interaction: discord.Interaction, topic: str | None = None) -> None:
        await handlers.command(interaction, "quiz", topic or "")

    @quiz.autocomplete("topic")
    async def quiz_topics(interaction: discord.Interaction,
                          current: str) -> list[app_commands.Choice[str]]:
        topics = handlers.desk.topic_choices(current, AUTOCOMPLETE_LIMIT)
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
    @app_commands.describe(member="whose stats (you by default)", share="post it for everyone")
    async def stats(interaction: discord.Interaction, member: discord.Member | None = None,
                    share: bool = False) -> None:
        await handlers.command(interaction, "stats", share=share, whom=member)

    @tree.command(name="quiz-forget-me",
                  description="See and delete everything the quiz keeps about you")
    async def forget_me(interaction: discord.Interaction) -> None:
        # Private, and nothing is deleted until the member clicks the confirmation button.
        await handlers.command(interaction, "forget-me")

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
    ) -> None:
        changes = {key: value for key, value in {
            "time": time, "tz": timezone, "lang": language.value if language else None,
            "topics": topics, "difficulty": difficulty,
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

    @quiz_settings.autocomplete("timezone")
    async def zones(interaction: discord.Interaction,
                    current: str) -> list[app_commands.Choice[str]]:
        return timezone_choices(current)


def _leaderboard(day: app_commands.Choice[str] | None, hour: int | None) -> str:
    # "keep" halves are resolved by the core's setup against the channel's current values.
    return f"{day.value if day else 'keep'} {'keep' if hour is None else hour}"
