"""Render neutral messages as plain terminal text."""

from __future__ import annotations

from bot.core.kernel.i18n import slash
from bot.core.kernel.messages import Audience, Message, Tone
from bot.core.rounds.pending import PrivateDelivery
from safetext.inert import inert

_TONE_MARK = {Tone.INFO: "", Tone.SUCCESS: "✔ ", Tone.WARNING: "! ", Tone.ERROR: "✘ "}
_QUOTE_CHARS = 500  # a report's note is capped there
REPORT_HINT = "(something wrong with this question? /report REASON [NOTE])"
SKIP_HINT = f"({slash('quiz', 'console')} skip: skip this practice question; it counts as a miss)"
_AUDIENCE_MARK = {
    Audience.CHANNEL: "[#{channel}]",
    Audience.PRIVATE: "[private to {user}]",
    Audience.THREAD: "[#{channel} › thread]",
}


def render(message: Message, *, channel: str, user: str, image_path: str | None = None) -> str:
    """Return the message as terminal text, marked with who would see it in a real channel."""
    mark = _AUDIENCE_MARK[message.audience].format(channel=channel, user=user)
    lines = [mark]
    if message.title:
        lines.append(f"== {message.title} ==")
    if message.body:
        lines.append(_TONE_MARK[message.tone] + message.body)
    # Members' own words (report notes, wrong answers): one inert line each.
    lines.extend(f"  {label} {inert(text, one_line=True, limit=_QUOTE_CHARS)}"
                 for label, text in message.quotes)
    # What the member's code produced: one line for the explanation, a fenced block for prints.
    if message.detail:
        lines.append(inert(message.detail, one_line=True, limit=1000))
    if message.output:
        lines += ["--- your output ---", inert(message.output).rstrip("\n"), "---"]
    if message.code:
        lines += ["```python" if "def " in message.code or "import" in message.code else "```",
                  message.code.rstrip("\n"), "```"]
    for name, value in message.fields:
        lines.append(f"{name}: {value}" if value else name)
    # Choice letters only: the terminal is the channel already, so "share" means nothing here;
    # a Report button is the /report command, a Skip button /quiz skip.
    kinds = [b.action_id.split(":")[1:2] for b in message.buttons]
    letters = [b for b, kind in zip(message.buttons, kinds, strict=True)
               if kind not in (["share"], ["report"], ["preport"], ["pskip"])]
    if letters:
        lines.append("  ".join(f"[{b.label}]" for b in letters))
    if ["pskip"] in kinds:
        lines.append(SKIP_HINT)
    if ["report"] in kinds or ["preport"] in kinds:
        lines.append(REPORT_HINT)
    if message.footer:
        lines.append(message.footer)
    if message.image_png:
        name = message.image_name or "image.png"
        where = f"saved to {image_path}" if image_path else f"{len(message.image_png)} bytes"
        lines.append(f"(chart: {name}, {where})")
    # Everything else is ours, but display names and echoed input are members': the same rule.
    return inert("\n".join(lines), limit=20_000)


def render_delivery(delivery: PrivateDelivery) -> str:
    """Return a late private message (a pending answer's result) as terminal text."""
    return render(delivery.message, channel=delivery.channel_external_id,
                  user=delivery.member_external_id)
