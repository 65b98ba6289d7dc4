"""Log lines: JSON objects with the ids a call passes, and never a token."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot import logs

SLACK_BOT = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_APP = "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef"
DISCORD = "MTE0NTk4NzY1NDMyMTA5ODc2NQ.GhIjKl.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab"
BEARER = "Bearer 3f9c2a7be1d04c55a6b8e2f1d7c9a0b4"


@pytest.fixture
def logged():
    """Return a logger set up as `torchquiz` sets up the root, and what it wrote."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    stream = io.StringIO()

    def setup(fmt: str) -> logging.Logger:
        logs.setup("INFO", fmt, stream)
        return logging.getLogger("bot.test")

    yield setup, stream
    root.handlers[:], _ = saved[0], root.setLevel(saved[1])


def test_json_lines_carry_time_level_logger_message_and_the_ids_passed(logged):
    setup, stream = logged
    log = setup("json")
    log.warning("answer failed for %s", "alice", extra={
        "platform": "slack", "workspace": "T1", "channel": "C1", "user": "U1", "round": 7})
    log.info("plain")
    first, second = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert first["level"] == "WARNING" and first["logger"] == "bot.test"
    assert first["message"] == "answer failed for alice"
    assert {k: first[k] for k in ("platform", "workspace", "channel", "user", "round")} == {
        "platform": "slack", "workspace": "T1", "channel": "C1", "user": "U1", "round": 7}
    assert first["time"].endswith("+00:00")
    assert set(second) == {"time", "level", "logger", "message"}


def test_a_traceback_stays_inside_its_one_json_line(logged):
    setup, stream = logged
    log = setup("json")
    try:
        raise ValueError("bad value")
    except ValueError:
        log.exception("guarded", extra={"what": "button"})
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    line = json.loads(lines[0])
    assert "ValueError: bad value" in line["exc"] and line["what"] == "button"


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize("token", [SLACK_BOT, SLACK_APP, DISCORD, BEARER])
def test_tokens_are_redacted_from_messages_arguments_tracebacks_and_ids(logged, fmt, token):
    setup, stream = logged
    log = setup(fmt)
    log.warning("token " + token)
    log.warning("sent with %s", token, extra={"user": token})
    try:
        raise RuntimeError(f"auth failed: {token}")
    except RuntimeError:
        log.exception("call failed")
    written = stream.getvalue()
    secret = token.split()[-1]
    assert secret not in written
    # message, argument, traceback; JSON shows the user id field too
    assert written.count(logs.REDACTED) == (4 if fmt == "json" else 3)


def test_ordinary_ids_and_words_are_not_redacted():
    text = ("posted round=12 channel=C0123ABCDEF ts=1700000000.000100 by the Bot user "
            "U0ALICE in team T0TORCHQZ: discord.gateway shard 0 ready")
    assert logs.redact(text) == text
