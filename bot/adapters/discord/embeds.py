"""Turn neutral messages into Discord embeds, buttons and attachments.

The bot's own text (titles, prompts, explanations) is Discord markdown already. What a
member's code produced travels in ``Message.detail`` and ``Message.output`` and is shown only
through the shared sanitiser (``safetext.inert``); every post also goes out with
mentions disabled, so nothing a member typed or printed can ping anyone.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import discord

from bot.adapters.discord.components import button_for
from bot.core.i18n import t
from bot.core.messages import Message, Tone
from safetext.inert import Surface, inert

# Discord's limits: https://discord.com/developers/docs/resources/message#embed-object-embed-limits
TITLE_CHARS = 256
DESCRIPTION_CHARS = 4096
FIELD_NAME_CHARS = 256
FIELD_VALUE_CHARS = 1024
FOOTER_CHARS = 2048
BUTTON_LABEL_CHARS = 80
_OUTPUT_CHARS = 900  # leaves room in a field for the fence and the escapes inert adds

COLOURS = {
    Tone.INFO: discord.Colour.blurple(),
    Tone.SUCCESS: discord.Colour.green(),
    Tone.WARNING: discord.Colour.orange(),
    Tone.ERROR: discord.Colour.red(),
}
NO_MENTIONS = discord.AllowedMentions.none()


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fence(code: str) -> str:
    # Bank code is ours, but a fence inside it would still end the block early.
    return "```py\n" + code.rstrip("\n").replace("```", "`\u200b``") + "\n```"


def embed(message: Message, locale: str = "en") -> discord.Embed:
    """Return the embed that shows ``message``."""
    parts = [message.body] if message.body else []
    if message.detail:
        parts.append("› " + inert(message.detail, Surface.DISCORD, one_line=True, limit=700))
    if message.code:
        parts.append(_fence(message.code))
    description = "\n\n".join(parts)
    if len(description) > DESCRIPTION_CHARS:
        # Keep the code block whole: cut the prose in front of it instead.
        description = _cut(description, DESCRIPTION_CHARS)
    result = discord.Embed(
        title=_cut(message.title, TITLE_CHARS) if message.title else None,
        description=description or None,
        colour=COLOURS[message.tone],
    )
    for name, value in message.fields:
        result.add_field(name=_cut(name, FIELD_NAME_CHARS) or "\u200b",
                         value=_cut(value, FIELD_VALUE_CHARS) or "\u200b", inline=True)
    if message.output:
        shown = inert(message.output, Surface.DISCORD_CODE, limit=_OUTPUT_CHARS)
        result.add_field(name=t(locale, "code.output"), value=f"```\n{shown}\n```", inline=False)
    if message.footer:
        result.set_footer(text=_cut(message.footer, FOOTER_CHARS))
    if message.image_png:
        result.set_image(url=f"attachment://{message.image_name or 'image.png'}")
    return result


def file_for(message: Message) -> discord.File | None:
    """Return the message's image as an attachment, if it has one."""
    if not message.image_png:
        return None
    return discord.File(io.BytesIO(message.image_png), filename=message.image_name or "image.png",
                        description=message.image_alt[:1024] or None)  # Discord's alt text


@dataclass(frozen=True)
class Rendered:
    """Everything one send or edit needs."""

    embed: discord.Embed
    view: discord.ui.View | None
    file: discord.File | None


def view_for(message: Message) -> discord.ui.View | None:
    """Return the message's buttons (choices, the answer form, sharing), or None."""
    actions = [(b.action_id, b.label) for b in message.buttons]
    if message.form is not None:
        actions.append((message.form.action_id, message.form.label))
    buttons = [button_for(action_id, _cut(label, BUTTON_LABEL_CHARS))
               for action_id, label in actions]
    present = [button for button in buttons if button is not None]
    if not present:
        return None
    view = discord.ui.View(timeout=None)  # persistent: DynamicItems resolve after restarts
    for button in present[:25]:
        view.add_item(button)
    return view


def rendered(message: Message, locale: str = "en") -> Rendered:
    """Return the embed, the buttons and the attachment of ``message``."""
    return Rendered(embed(message, locale), view_for(message), file_for(message))
