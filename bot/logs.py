"""Logging of every torchquiz process: text or one JSON object per line, tokens redacted.

A log line's ids travel as fields when the call passes them with ``extra=`` (platform,
workspace, channel, user, round, what); JSON lines carry them as keys, so a log store can
find every line of one member or one round. Whatever a line holds, anything shaped like a
Slack or Discord token or a bearer credential is replaced before it is written.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sys
from typing import Any, TextIO

REDACTED = "[redacted]"
# Slack: bot, user, app-level, refresh and config tokens. Discord: a bot token is three
# base64url parts (the bot's id, a time, an HMAC). Bearer/Bot credentials in headers.
_TOKENS = re.compile(
    r"\bxox[abeoprs]-[A-Za-z0-9-]{6,}"
    r"|\bxoxe\.xox[bp]-[A-Za-z0-9-]{6,}"
    r"|\bxapp-[A-Za-z0-9-]{6,}"
    r"|\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}"
    r"|\b(?:Bot|Bearer)\s+[A-Za-z0-9._~+/=-]{16,}"
)
IDS = ("platform", "workspace", "channel", "user", "round", "what")


def redact(text: str) -> str:
    """Return ``text`` with every token-shaped run replaced."""
    return _TOKENS.sub(REDACTED, text)


class RedactTokens(logging.Filter):
    """Redact tokens from a record's message, arguments, traceback and id fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drop it."""
        message = record.getMessage()
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        for key in IDS:
            value = getattr(record, key, None)
            if isinstance(value, str):
                setattr(record, key, redact(value))
        return True


class JsonLines(logging.Formatter):
    """Format a record as one JSON object: time, level, logger, message, ids, traceback."""

    def format(self, record: logging.LogRecord) -> str:
        """Return the record as a single line of JSON."""
        line: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in IDS:
            value = getattr(record, key, None)
            if value is not None and value != "":
                line[key] = value if isinstance(value, int | float | bool) else str(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exc"] = record.exc_text
        return json.dumps(line, ensure_ascii=False)


def setup(level: str = "WARNING", fmt: str = "text", stream: TextIO | None = None) -> None:
    """Send every log line to stderr (or ``stream``) as text or JSON, tokens redacted."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(RedactTokens())
    handler.setFormatter(JsonLines() if fmt == "json" else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
