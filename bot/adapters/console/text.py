"""Render neutral messages as plain terminal text."""

from __future__ import annotations

from bot.core.kernel.i18n import speaking_to, t
from bot.core.kernel.messages import Audience, Message, Tone
from bot.core.rounds.pending import PrivateDelivery
from safetext.inert import inert

_TONE_MARK = {Tone.INFO: "", Tone.SUCCESS: "✔ ", Tone.WARNING: "! ", Tone.ERROR: "✘ "}
_QUOTE_CHARS = 500  # a report's note is capped there
_AUDIENCE_MARK = {
    Audience.CHANNEL: "console.to_channel",
    Audience.PRIVATE: "console.to_member",
    Audience.THREAD: "console.to_thread",
}


def render(message: Message, *, channel: str, user: str, image_path: str | None = None,
           locale: str = "en") -> str:
    """Return the message as terminal text, marked with who would see it in a real channel.

    The console's own words (who sees it, the hints that stand in for buttons) are in
    ``locale``, the channel's language, and name the console's commands.
    """
    with speaking_to("console"):
        return _render(message, channel=channel, user=user, image_path=image_path,
                       locale=locale)


def _render(message: Message, *, channel: str, user: str, image_path: str | None,
            locale: str) -> str:
    lines = [t(locale, _AUDIENCE_MARK[message.audience], channel=channel, user=user)]
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
        lines += [t(locale, "console.output"), inert(message.output).rstrip("\n"), "---"]
    if message.code:
        lines += ["```python" if "def " in message.code or "import" in message.code else "```",
                  message.code.rstrip("\n"), "```"]
    for name, value in message.fields:
        lines.append(t(locale, "label.colon", label=name, value=value) if value else name)
    # Choice letters only: the terminal is the channel already, so "share" means nothing here;
    # a Report button is the /report command, a Skip button /quiz skip.
    kinds = [b.action_id.split(":")[1:2] for b in message.buttons]
    letters = [b for b, kind in zip(message.buttons, kinds, strict=True)
               if kind not in (["share"], ["report"], ["preport"], ["pskip"])]
    if letters:
        lines.append("  ".join(f"[{b.label}]" for b in letters))
    if ["pskip"] in kinds:
        lines.append(t(locale, "console.skip_hint"))
    if ["report"] in kinds or ["preport"] in kinds:
        lines.append(t(locale, "console.report_hint"))
    if message.footer:
        lines.append(message.footer)
    if message.image_png:
        name = message.image_name or "image.png"
        lines.append(t(locale, "console.chart_saved", name=name, path=image_path) if image_path
                     else t(locale, "console.chart_bytes", name=name,
                            size=len(message.image_png)))
    # Everything else is ours, but display names and echoed input are members': the same rule.
    return inert("\n".join(lines), limit=20_000)


def render_delivery(delivery: PrivateDelivery, locale: str = "en") -> str:
    """Return a late private message (a pending answer's result) as terminal text."""
    return render(delivery.message, channel=delivery.channel_external_id,
                  user=delivery.member_external_id, locale=locale)
