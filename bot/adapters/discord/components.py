"""Persistent buttons and the answer modal: everything they need is in their custom id.

A button's custom id is the core's action id (``tq:answer:<round>:<letter>``, ``tq:form:<round>:
open``, ...). discord.py's DynamicItem re-creates the button from that id whenever it is
clicked, so buttons keep working after the bot restarts and on any replica, and what the id
points at is always looked up in the database, never in this process's memory. The modal's
submission is routed the same way (``tq:submit:<round>:<mode>``) by the client's interaction
listener rather than by discord.py's in-memory modal store.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Protocol, cast

import discord

from bot.core.kernel.messages import ACTION_KINDS, Form, parse_action, submit_id

FIELD_ID = "answer"
# Discord's limits: https://discord.com/developers/docs/components/reference
CUSTOM_ID_CHARS = 100
BUTTON_LABEL_CHARS = 80
MODAL_TITLE_CHARS = 45
INPUT_LABEL_CHARS = 45
INPUT_CHARS = 4000
CHOICE_ID = "choice"
SELECT_OPTIONS = 25
OPTION_CHARS = 100
# What discord.py matches before our parser checks the parts (bounds included).
_ACTION = (r"tq:(?P<kind>" + "|".join(ACTION_KINDS)
           + r"):(?P<target>[a-z0-9._-]+):(?P<key>[A-Za-z]+)")


class ActionHandler(Protocol):
    """What a clicked button calls (the client's interaction handlers)."""

    async def on_action(self, interaction: discord.Interaction, action_id: str, kind: str) -> None:
        """Handle a click on a button whose custom id is the core's ``action_id``."""
        ...


class ActionButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=_ACTION):
    """A button of ours: a choice, "Answer", or "Share"; resolved from its custom id alone."""

    def __init__(self, action_id: str, label: str = "") -> None:
        # A click whose id matches the template but not the core's bounds still reaches the
        # core, which answers it with a clear line instead of a failed interaction.
        self.action_id = action_id
        self.kind, _, key = (parse_action(action_id) or ("unknown", "", "?"))
        style = discord.ButtonStyle.primary if self.kind in ("form", "pform", "sform") else (
            discord.ButtonStyle.secondary)
        if self.kind == "forget" and key == "yes":
            style = discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=cut(label or key, BUTTON_LABEL_CHARS),
                                           custom_id=action_id[:CUSTOM_ID_CHARS], style=style))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> ActionButton:
        """Rebuild the button from the custom id of a click (after a restart, too)."""
        label = getattr(item, "label", "") or ""
        return cls(match.group(0), label)

    async def callback(self, interaction: discord.Interaction) -> None:
        """Hand the click to the client's handlers."""
        handler = cast(ActionHandler, getattr(interaction.client, "actions"))  # noqa: B009
        await handler.on_action(interaction, self.action_id, self.kind)


def cut(text: str, limit: int) -> str:
    """Return ``text`` within ``limit`` characters, a visible "…" where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def button_for(action_id: str, label: str) -> ActionButton | None:
    """Return the button for a core action id, or None if the id is not ours.

    An id longer than Discord keeps would come back cut, naming something else: no button.
    """
    if len(action_id) > CUSTOM_ID_CHARS or parse_action(action_id) is None:
        return None
    return ActionButton(action_id, label)


def answer_modal(form: Form) -> discord.ui.Modal:
    """Return the modal for a form: a short line for text, a tall box prefilled for code.

    A form with choices (a report's reason) gets a labelled select menu above its text field.
    """
    # Answers come back through the client's interaction listener; the modal only collects.
    modal = discord.ui.Modal(title=cut(form.title, MODAL_TITLE_CHARS) or "…",
                             custom_id=submit_id(form)[:CUSTOM_ID_CHARS], timeout=900)
    if form.choices:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=CHOICE_ID, min_values=1, max_values=1,
            options=[discord.SelectOption(label=cut(label, OPTION_CHARS) or value,
                                          value=value[:OPTION_CHARS])
                     for value, label in form.choices[:SELECT_OPTIONS]])
        modal.add_item(discord.ui.Label(text=cut(form.choice_label, INPUT_LABEL_CHARS) or "…",
                                        component=select))
    limit = min(form.max_chars, INPUT_CHARS)
    paragraph = form.code or form.optional  # a code answer or a note: room for lines
    modal.add_item(discord.ui.TextInput(
        label=cut(form.field_label, INPUT_LABEL_CHARS) or "…", custom_id=FIELD_ID,
        style=discord.TextStyle.paragraph if paragraph else discord.TextStyle.short,
        default=form.prefill[:limit] or None, required=not form.optional, max_length=limit,
    ))
    return modal


def _walk(components: Any) -> Iterator[dict[str, Any]]:
    if isinstance(components, list):
        for component in components:
            yield from _walk(component)
    elif isinstance(components, dict):
        yield components
        yield from _walk(components.get("components"))
        yield from _walk(components.get("component"))


def submitted_choice(data: Any) -> str:
    """Return the value picked in the modal's select menu (a report's reason), or ""."""
    if not isinstance(data, dict):
        return ""
    for component in _walk(data.get("components")):
        values = component.get("values")
        if component.get("custom_id") == CHOICE_ID and isinstance(values, list) and values:
            return str(values[0])[:64]
    return ""


def submitted_text(data: Any) -> str | None:
    """Return what the member typed into the modal's answer field, from the raw payload."""
    if not isinstance(data, dict):
        return None
    for component in _walk(data.get("components")):
        if component.get("custom_id") == FIELD_ID and isinstance(component.get("value"), str):
            return str(component["value"])
    return None
