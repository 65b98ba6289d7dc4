"""The slash commands, rendered from the registry: each callback parses Discord's options.

Names, descriptions, option descriptions, choices and who may see a command come from the
command's declaration (bot/core/desk, with bot/core/kernel/commands.py's registry); a callback
only turns Discord's typed options into the core's argument and hands over to a handler.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Optional

import discord
from discord import app_commands

from bot.adapters.discord.handlers import Handlers, identity, locale_of
from bot.adapters.discord.packs import PackHandlers
from bot.core.desk import Desk
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.commands import Command, Option
from bot.core.kernel.i18n import t

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


Suggest = Callable[[discord.Interaction[Any], str],
                   Coroutine[Any, Any, list[app_commands.Choice[str]]]]


def _suggestions(handlers: Handlers) -> dict[str, Suggest]:
    """Return the autocomplete of each kind a declaration may name (``Option.autocomplete``)."""

    async def explain(interaction: discord.Interaction[Any],
                      current: str) -> list[app_commands.Choice[str]]:
        pairs = handlers.desk.explain_choices(current, locale_of(interaction), AUTOCOMPLETE_LIMIT,
                                              identity(interaction))
        return [app_commands.Choice(name=label, value=value) for label, value in pairs]

    async def topics(interaction: discord.Interaction[Any],
                     current: str) -> list[app_commands.Choice[str]]:
        found = handlers.desk.topic_choices(current, AUTOCOMPLETE_LIMIT, identity(interaction))
        return [app_commands.Choice(name=tp, value=tp) for tp in found]

    async def zones(interaction: discord.Interaction[Any],
                    current: str) -> list[app_commands.Choice[str]]:
        return timezone_choices(current)

    return {"explain": explain, "topics": topics, "zones": zones}


def _annotation(option: Option) -> Any:
    """Return the type discord.py reads an option's Discord type (and limits) from."""
    if option.kind == "choice":
        return app_commands.Choice[str]
    if option.kind == "integer" and option.min_value is not None and option.max_value is not None:
        return app_commands.Range[int, option.min_value, option.max_value]
    if option.kind == "text" and option.max_value is not None:
        return app_commands.Range[str, 1, option.max_value]
    return {"text": str, "integer": int, "boolean": bool}[option.kind]


def generic_command(spec: Command, handlers: Handlers,
                    suggest: dict[str, Suggest]) -> app_commands.Command[Any, Any, Any]:
    """Return ``spec`` as a Discord command whose options make the core's argument as typed.

    The argument is the options' values joined by spaces, in declared order (a choice gives its
    value); a boolean ``share`` posts the reply for everyone. A command that needs another
    reading of its options (a member, a file, a default that depends on another option) keeps
    a callback of its own in :func:`register`.
    """
    async def run(interaction: discord.Interaction[Any], /, **values: Any) -> None:
        share = bool(values.pop("share", False))
        words = [value.value if isinstance(value, app_commands.Choice) else str(value)
                 for option in spec.options if (value := values.get(option.name)) is not None]
        await handlers.command(interaction, spec.key, " ".join(words), share=share)

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=discord.Interaction)]
    for option in spec.options:
        annotation = _annotation(option)
        parameters.append(inspect.Parameter(
            option.name, inspect.Parameter.KEYWORD_ONLY,
            annotation=annotation if option.required else Optional[annotation],  # noqa: UP045
            default=inspect.Parameter.empty if option.required else None))
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    described = app_commands.describe(**{o.name: o.description for o in spec.options})(run)
    choices = {o.name: [app_commands.Choice(name=label, value=value) for label, value in o.choices]
               for o in spec.options if o.kind == "choice"}
    callback = app_commands.choices(**choices)(described) if choices else described
    command: app_commands.Command[Any, Any, Any] = app_commands.Command(
        name=spec.name(PLATFORM) or spec.key, description=spec.describe[PLATFORM],
        callback=callback)
    for option in spec.options:
        if option.autocomplete:
            command.autocomplete(option.name)(suggest[option.autocomplete])
    _admins_only(command, spec)
    return command


def register(tree: app_commands.CommandTree[discord.Client], handlers: Handlers) -> None:
    """Add every slash command to ``tree``: the registry's, read generically unless below."""
    suggest = _suggestions(handlers)
    # Commands whose options Discord types in a way of their own (a member, a file, a default
    # that depends on another option, a channel of the server) keep a callback here.
    own = {"stats", "remind", "settings", "reports", "pack"}
    for spec in REGISTRY.on(PLATFORM):
        if spec.key not in own:
            tree.add_command(generic_command(spec, handlers, suggest))

    @tree.command(name=_name("stats"), description=_description("stats"))
    @app_commands.describe(**_described("stats"))
    async def stats(interaction: discord.Interaction, member: discord.Member | None = None,
                    share: bool = False, team: bool = False) -> None:
        await handlers.command(interaction, "stats", "team" if team else "", share=share,
                               whom=None if team else member)

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
                          leaderboard_day=_choices("settings", "leaderboard_day"),
                          live_hosts=_choices("settings", "live_hosts"))
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
        live_hosts: app_commands.Choice[str] | None = None,
        live_on_board: bool | None = None,
        kinds: str | None = None,
    ) -> None:
        changes = {key: value for key, value in {
            "time": time, "tz": timezone, "lang": language.value if language else None,
            "topics": topics, "difficulty": difficulty, "packs": packs,
            "live_hosts": live_hosts.value if live_hosts else None, "kinds": kinds,
            "enabled": None if enabled is None else ("on" if enabled else "off"),
            "live_on_board": None if live_on_board is None else ("on" if live_on_board
                                                                 else "off"),
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
    for command in (quiz_settings, quiz_reports):
        _admins_only(command, next(c for c in REGISTRY.on(PLATFORM)
                                   if c.name(PLATFORM) == command.name))

    quiz_settings.autocomplete("timezone")(suggest["zones"])


def pack_group(packs: PackHandlers) -> app_commands.Group:
    """Return /quiz-pack: add (an attachment), list, remove, export; admins only."""
    group = app_commands.Group(name=_name("pack"), description=_description("pack"))
    _admins_only(group, REGISTRY.get("pack"))

    # Discord hides the group from members without Manage Server; the desk checks again.
    @group.command(name="add", description=t("en", "discord.describe.pack.add"))
    @app_commands.describe(file=REGISTRY.get("pack").option("add").description)
    async def add(interaction: discord.Interaction, file: discord.Attachment) -> None:
        await packs.add(interaction, file)

    @group.command(name="list", description=t("en", "discord.describe.pack.list"))
    async def listing(interaction: discord.Interaction) -> None:
        await packs.command(interaction, "list")

    @group.command(name="remove", description=t("en", "discord.describe.pack.remove"))
    @app_commands.describe(pack=t("en", "discord.describe.pack.remove.pack"))
    async def remove(interaction: discord.Interaction,
                     pack: app_commands.Range[str, 1, 40]) -> None:
        await packs.command(interaction, f"remove {pack}")

    @group.command(name="export", description=t("en", "discord.describe.pack.export"))
    @app_commands.describe(pack=t("en", "discord.describe.pack.export.pack"))
    async def export(interaction: discord.Interaction,
                     pack: app_commands.Range[str, 1, 40]) -> None:
        await packs.command(interaction, f"export {pack}")

    return group


def _leaderboard(day: app_commands.Choice[str] | None, hour: int | None) -> str:
    # "keep" halves are resolved by the core's setup against the channel's current values.
    return f"{day.value if day else 'keep'} {'keep' if hour is None else hour}"
