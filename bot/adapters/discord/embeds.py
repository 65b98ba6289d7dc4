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

from bot.adapters.discord.components import button_for, cut
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone
from safetext.inert import Surface, inert

# Discord's limits: https://discord.com/developers/docs/resources/message#embed-object-embed-limits
TITLE_CHARS = 256
DESCRIPTION_CHARS = 4096
FIELD_NAME_CHARS = 256
FIELD_VALUE_CHARS = 1024
FOOTER_CHARS = 2048
MAX_FIELDS = 25
EMBED_CHARS = 6000  # title, description, field names and values and footer together
ROW_BUTTONS = 5
MAX_ROWS = 5
ALT_TEXT_CHARS = 1024  # an attachment's description, what screen readers read out
_QUOTE_CHARS = 500  # a report's note is capped there
_OUTPUT_CHARS = 900  # leaves room in a field for the fence and the escapes inert adds

COLOURS = {
    Tone.INFO: discord.Colour.blurple(),
    Tone.SUCCESS: discord.Colour.green(),
    Tone.WARNING: discord.Colour.orange(),
    Tone.ERROR: discord.Colour.red(),
}
NO_MENTIONS = discord.AllowedMentions.none()


_cut = cut


def _fence(code: str, limit: int = DESCRIPTION_CHARS) -> str:
    """Return ``code`` fenced, cut at a line to fit ``limit`` with a "…" line, always closed."""
    # Bank code is ours, but a fence inside it would still end the block early.
    text = code.rstrip("\n").replace("```", "`\u200b``")
    opening, closing = "```py\n", "\n```"
    room = limit - len(opening) - len(closing)
    if len(text) > room:
        kept = text[: max(room - 2, 0)]
        kept = kept[: kept.rfind("\n")] if "\n" in kept else kept
        text = f"{kept}\n…" if kept else "…"
    return opening + text + closing


def embed(message: Message, locale: str = "en") -> discord.Embed:
    """Return the embed that shows ``message``."""
    parts = [message.body] if message.body else []
    if message.quotes:
        # Members' own words (report notes, wrong answers): one inert line each.
        parts.append("\n".join(
            f"{label} {inert(text, Surface.DISCORD, one_line=True, limit=_QUOTE_CHARS)}"
            for label, text in message.quotes))
    if message.detail:
        parts.append("› " + inert(message.detail, Surface.DISCORD, one_line=True, limit=700))
    prose = "\n\n".join(parts)
    if message.code:
        # The code block stays closed: its lines are cut, and the prose before it, to fit.
        whole = len(_fence(message.code, 10**9)) + 2
        prose = _cut(prose, max(DESCRIPTION_CHARS - whole, DESCRIPTION_CHARS // 2))
        room = DESCRIPTION_CHARS - (len(prose) + 2 if prose else 0)
        description = "\n\n".join([*([prose] if prose else []), _fence(message.code, room)])
    else:
        description = _cut(prose, DESCRIPTION_CHARS)
    result = discord.Embed(
        title=_cut(message.title, TITLE_CHARS) if message.title else None,
        description=description or None,
        colour=COLOURS[message.tone],
    )
    room = MAX_FIELDS - (1 if message.output else 0)
    fields = list(message.fields)
    if len(fields) > room:
        # The last place says how many did not fit, instead of Discord refusing the post.
        fields = [*fields[: room - 1], ("…", f"+{len(fields) - room + 1}")]
    for name, value in fields:
        result.add_field(name=_cut(name, FIELD_NAME_CHARS) or "\u200b",
                         value=_cut(value, FIELD_VALUE_CHARS) or "\u200b", inline=True)
    if message.output:
        shown = inert(message.output, Surface.DISCORD_CODE, limit=_OUTPUT_CHARS)
        result.add_field(name=t(locale, "code.output"), value=f"```\n{shown}\n```", inline=False)
    if message.footer:
        result.set_footer(text=_cut(message.footer, FOOTER_CHARS))
    if message.image_png:
        result.set_image(url=f"attachment://{message.image_name or 'image.png'}")
    return _within_total(result)


def _within_total(result: discord.Embed) -> discord.Embed:
    """Shorten an embed over Discord's 6000-character total: description, fields, footer."""
    over = len(result) - EMBED_CHARS
    if over > 0 and result.description:
        result.description = _cut(result.description, max(len(result.description) - over, 1))
    fields = list(result.fields)
    dropped = 0
    while len(result) > EMBED_CHARS and dropped < len(fields):
        # The last fields make way for one that says how many were left out.
        dropped += 1
        result.clear_fields()
        for field in fields[: len(fields) - dropped]:
            result.add_field(name=field.name, value=field.value, inline=bool(field.inline))
        result.add_field(name="…", value=f"+{dropped}", inline=True)
    over = len(result) - EMBED_CHARS
    if over > 0 and result.footer.text:
        result.set_footer(text=_cut(result.footer.text, max(len(result.footer.text) - over, 1)))
    return result


def alt_text(message: Message) -> str:
    """Return what a screen reader says of the message's image (its own words, or the title)."""
    return _cut(message.image_alt or message.title or message.image_name or "chart",
                ALT_TEXT_CHARS)


def file_for(message: Message) -> discord.File | None:
    """Return the message's image as an attachment with its alt text, if it has one."""
    if not message.image_png:
        return None
    return discord.File(io.BytesIO(message.image_png), filename=message.image_name or "image.png",
                        description=alt_text(message))


@dataclass(frozen=True)
class Rendered:
    """Everything one send or edit needs."""

    embed: discord.Embed
    view: discord.ui.View | None
    file: discord.File | None


def view_for(message: Message) -> discord.ui.View | None:
    """Return the message's buttons (choices, the answer form, sharing), or None.

    Five rows of five at most: past that the choices are cut and the answer form kept, since
    it is the way to answer what the body lists.
    """
    choices = [button_for(b.action_id, b.label) for b in message.buttons]
    present = [button for button in choices if button is not None]
    form = button_for(message.form.action_id, message.form.label) if message.form else None
    room = ROW_BUTTONS * MAX_ROWS - (1 if form is not None else 0)
    present = present[:room] + ([form] if form is not None else [])
    if not present:
        return None
    view = discord.ui.View(timeout=None)  # persistent: DynamicItems resolve after restarts
    for index, button in enumerate(present):
        button.row = index // ROW_BUTTONS
        view.add_item(button)
    return view


def rendered(message: Message, locale: str = "en") -> Rendered:
    """Return the embed, the buttons and the attachment of ``message``."""
    return Rendered(embed(message, locale), view_for(message), file_for(message))
