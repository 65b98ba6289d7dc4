"""Render neutral messages as plain terminal text."""

from __future__ import annotations

from bot.core.messages import Audience, Message, Tone

_TONE_MARK = {Tone.INFO: "", Tone.SUCCESS: "✔ ", Tone.WARNING: "! ", Tone.ERROR: "✘ "}
_AUDIENCE_MARK = {
    Audience.CHANNEL: "[#{channel}]",
    Audience.PRIVATE: "[private to {user}]",
    Audience.THREAD: "[#{channel} › thread]",
}


def _printable(text: str) -> str:
    """Neutralise control characters (terminal escapes from a submission's output)."""
    return "".join(ch if ch in "\n\t" or ch.isprintable() else "\ufffd" for ch in text)


def render(message: Message, *, channel: str, user: str) -> str:
    """Return the message as terminal text, marked with who would see it in a real channel."""
    mark = _AUDIENCE_MARK[message.audience].format(channel=channel, user=user)
    lines = [mark]
    if message.title:
        lines.append(f"== {message.title} ==")
    if message.body:
        lines.append(_TONE_MARK[message.tone] + message.body)
    if message.code:
        lines += ["```python" if "def " in message.code or "import" in message.code else "```",
                  message.code.rstrip("\n"), "```"]
    for name, value in message.fields:
        lines.append(f"{name}: {value}" if value else name)
    if message.buttons:
        lines.append("  ".join(f"[{b.label}]" for b in message.buttons))
    if message.footer:
        lines.append(message.footer)
    if message.image_png:
        name = message.image_name or "image.png"
        lines.append(f"(chart: {name}, {len(message.image_png)} bytes)")
    return _printable("\n".join(lines))
