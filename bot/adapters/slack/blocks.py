"""Turn neutral messages into Slack Block Kit: headers, mrkdwn sections, buttons, code.

The bot's own text (titles, prompts, explanations, code) is written in a small markdown:
``**bold**`` becomes Slack's ``*bold*``, and ``&``, ``<`` and ``>`` are escaped as Slack asks,
so an example such as ``x < 0`` can never be read as a link or a mention. What a member's code
produced travels in ``Message.detail`` and ``Message.output`` and is shown only through the
shared sanitiser (``safetext.inert``); member names only ever appear in plain_text
objects or inside escaped code blocks.
"""

from __future__ import annotations

import re
from typing import Any

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone, parse_action
from safetext.inert import Surface, inert

# Slack's limits: https://docs.slack.dev/reference/block-kit/blocks
HEADER_CHARS = 150
SECTION_CHARS = 3000
FIELD_CHARS = 2000
BUTTON_CHARS = 75
ACCESSIBILITY_CHARS = 75
ACTION_ID_CHARS = 255
MAX_BLOCKS = 50
MAX_VIEW_BLOCKS = 100  # a modal or the home tab
MAX_BUTTONS = 25  # elements of one actions block
MAX_FIELDS = 10  # of one section
# Sections of fields a message may take: the channel's settings are 11 fields, and a cut there
# hid the last settings from Slack's admins.
MAX_FIELD_SECTIONS = 3
FALLBACK_CHARS = 300
MORE = "…"
_DETAIL_CHARS = 700
_QUOTE_CHARS = 500  # a report's note is capped there
_OUTPUT_CHARS = 900  # leaves room in a section for the fence and the escapes inert adds
_CODE_CHUNK = SECTION_CHARS - 10  # the fence takes six characters, newlines two more

TONE_MARKS = {
    Tone.INFO: "",
    Tone.SUCCESS: ":white_check_mark: ",
    Tone.WARNING: ":warning: ",
    Tone.ERROR: ":x: ",
}
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_INLINE_CODE = re.compile(r"(`[^`\n]*`)")

Block = dict[str, Any]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escape(text: str) -> str:
    """Escape the three characters Slack's markup reserves."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mrkdwn(text: str) -> str:
    """Return the bot's own markdown as Slack mrkdwn: escaped, with **bold** as *bold*."""
    parts = _INLINE_CODE.split(escape(text))
    # Odd parts are inline code spans: `x ** 2` must stay a power, not turn bold.
    return "".join(part if i % 2 else _BOLD.sub(r"*\1*", part) for i, part in enumerate(parts))


def plain(text: str, limit: int) -> dict[str, Any]:
    """Return a plain_text object (Slack parses no markup in it)."""
    return {"type": "plain_text", "text": _cut(text, limit) or " ", "emoji": True}


def section(text: str) -> Block:
    """Return a section block of mrkdwn text (already escaped)."""
    return {"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, SECTION_CHARS)}}


def code_sections(code: str) -> list[Block]:
    """Return the bot's code as fenced blocks, split at lines to fit Slack's section limit."""
    text = escape(code.rstrip("\n")).replace("```", "`\u200b`\u200b`")
    lines: list[str] = []
    for line in text.split("\n"):
        # One enormous line is cut where it must be; every other cut falls between lines.
        lines.extend(line[i:i + _CODE_CHUNK] for i in range(0, max(len(line), 1), _CODE_CHUNK))
    chunks = [""]
    for line in lines:
        joined = f"{chunks[-1]}\n{line}" if chunks[-1] else line
        if len(joined) > _CODE_CHUNK:
            chunks.append(line)
        else:
            chunks[-1] = joined
    return [section(f"```\n{chunk}\n```") for chunk in chunks if chunk.strip()]


def button(action_id: str, label: str, *, primary: bool = False,
           spoken: str = "") -> dict[str, Any]:
    """Return a button that sends ``action_id`` back when clicked.

    ``spoken`` is what a screen reader says of it (Slack's accessibility_label); the label
    itself by default.
    """
    element: dict[str, Any] = {"type": "button", "action_id": action_id, "value": action_id,
                               "text": plain(label, BUTTON_CHARS),
                               "accessibility_label": _cut(spoken or label, ACCESSIBILITY_CHARS)
                               or " "}
    if primary:
        element["style"] = "primary"
    return element


def _spoken(action_id: str, label: str, locale: str) -> str:
    parsed = parse_action(action_id)
    if parsed is not None and parsed[0] in ("answer", "practice"):
        return t(locale, "ui.a11y.choice", label=label)  # "A" alone says nothing
    return label


def buttons(message: Message, locale: str = "en") -> list[dict[str, Any]]:
    """Return the message's buttons: its choices, its answer form, sharing.

    An id longer than Slack keeps would come back cut, naming something else: no button.
    """
    elements = [button(b.action_id, b.label, spoken=_spoken(b.action_id, b.label, locale))
                for b in message.buttons if len(b.action_id) <= ACTION_ID_CHARS]
    form = message.form
    if form is not None and len(form.action_id) <= ACTION_ID_CHARS:
        elements.append(button(form.action_id, form.label, primary=True))
    return elements


def actions_blocks(elements: list[dict[str, Any]]) -> list[Block]:
    """Return the buttons as actions blocks of at most 25 (more buttons: more blocks)."""
    return [{"type": "actions",
             "block_id": "tq-actions" if start == 0 else f"tq-actions-{start // MAX_BUTTONS}",
             "elements": elements[start:start + MAX_BUTTONS]}
            for start in range(0, len(elements), MAX_BUTTONS)]


def more(count: int) -> Block:
    """Return the visible mark of ``count`` blocks left out."""
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": f"{MORE} +{count}"}]}


def within(blocks: list[Block], limit: int, *, keep_last: int = 0) -> list[Block]:
    """Return at most ``limit`` blocks: the first ones, a "…" mark, the last ``keep_last``."""
    if len(blocks) <= limit:
        return blocks
    tail = blocks[len(blocks) - keep_last:] if keep_last else []
    head = blocks[: limit - 1 - len(tail)]
    return [*head, more(len(blocks) - len(head) - len(tail)), *tail]


def render(message: Message, locale: str = "en") -> list[Block]:
    """Return the blocks that show ``message``."""
    out: list[Block] = []
    if message.title:
        out.append({"type": "header", "text": plain(message.title, HEADER_CHARS)})
    body = mrkdwn(message.body) if message.body else ""
    mark = TONE_MARKS[message.tone]
    if body or (mark and not message.title):
        out.append(section(mark + body))
    if message.quotes:
        # Members' own words (report notes, wrong answers): one inert line each.
        out.append(section("\n".join(
            f"{mrkdwn(label)} {inert(text, Surface.SLACK, one_line=True, limit=_QUOTE_CHARS)}"
            for label, text in message.quotes)))
    if message.detail:
        shown = inert(message.detail, Surface.SLACK, one_line=True, limit=_DETAIL_CHARS)
        out.append(section("› " + shown))
    if message.code:
        out.extend(code_sections(message.code))
    if message.fields:
        shown_fields = list(message.fields)
        room = MAX_FIELDS * MAX_FIELD_SECTIONS
        if len(shown_fields) > room:
            left = len(shown_fields) - room + 1
            shown_fields = [*shown_fields[: room - 1], (MORE, f"+{left}")]
        fields = [{"type": "mrkdwn",
                   "text": _cut(f"*{mrkdwn(name)}*\n{mrkdwn(value)}" if value else
                                f"*{mrkdwn(name)}*", FIELD_CHARS)}
                  for name, value in shown_fields]
        out.extend({"type": "section", "fields": fields[start:start + MAX_FIELDS]}
                   for start in range(0, len(fields), MAX_FIELDS))
    if message.output:
        shown = inert(message.output, Surface.SLACK_CODE, limit=_OUTPUT_CHARS)
        out.append(section(f"*{t(locale, 'code.output')}*\n```\n{shown}\n```"))
    tail = actions_blocks(buttons(message, locale))
    if message.footer:
        tail.append({"type": "context",
                     "elements": [{"type": "mrkdwn", "text": _cut(mrkdwn(message.footer),
                                                                  SECTION_CHARS)}]})
    # Keep the buttons and the footer: they are how a post is answered and what it is.
    tail = tail[-(MAX_BLOCKS // 2):]
    return within([*out, *tail], MAX_BLOCKS, keep_last=len(tail))


def fallback(message: Message) -> str:
    """Return the plain text Slack shows in notifications and where blocks cannot be drawn."""
    first = (message.title or message.body.split("\n", 1)[0]
             or next((name for name, _ in message.fields), "")
             or (message.code or "").split("\n", 1)[0] or "torchquiz")
    return _cut(escape(first), FALLBACK_CHARS)
