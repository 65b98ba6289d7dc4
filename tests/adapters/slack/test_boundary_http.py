"""Malformed and hostile requests to /slack/events get a 4xx and one warning, never a 500."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from urllib.parse import urlencode

import aiohttp
import pytest
import yarl

from tests.fake_slack import GENERAL, SIGNING_SECRET

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


def _signature(raw: bytes, stamp: str) -> str:
    base = b"v0:" + stamp.encode() + b":" + raw
    return "v0=" + hmac.new(SIGNING_SECRET.encode(), base, hashlib.sha256).hexdigest()


async def _post(h, raw: bytes, content_type: str, *, signed: bool = True,
                headers: dict[str, str] | None = None) -> int:
    stamp = str(int(time.time()))
    sent = {"Content-Type": content_type}
    if signed:
        sent.update({"X-Slack-Request-Timestamp": stamp,
                     "X-Slack-Signature": _signature(raw, stamp)})
    sent.update(headers or {})
    async with aiohttp.ClientSession() as session, session.post(
            h.app_url, data=raw, headers=sent) as answer:
        await answer.read()
        return answer.status


def _no_traceback(caplog) -> None:
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR], \
        [r.getMessage() for r in caplog.records]


def _interaction(**fields) -> dict:
    body = {"type": "block_actions", "team": {"id": "T0TORCHQZ"},
            "user": {"id": "U0ALICE", "name": "alice", "team_id": "T0TORCHQZ"},
            "trigger_id": "1.2.3", "api_app_id": "A0TORCHQZ",
            "actions": [{"action_id": "tq:answer:1:A", "block_id": "b", "type": "button"}]}
    body.update(fields)
    return body


def _form(payload) -> bytes:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return urlencode({"payload": text}).encode()


UNSIGNED = {
    "non-numeric timestamp": {"X-Slack-Request-Timestamp": "soon",
                              "X-Slack-Signature": "v0=" + "0" * 64},
    "arabic-indic timestamp": {"X-Slack-Request-Timestamp": "١٧٠٠٠٠٠٠٠٠",
                               "X-Slack-Signature": "v0=" + "0" * 64},
    "missing timestamp": {"X-Slack-Signature": "v0=" + "0" * 64},
    "non-ascii signature": {"X-Slack-Request-Timestamp": str(int(time.time())),
                            "X-Slack-Signature": "v0=é" + "0" * 63},
    "wrong signature": {"X-Slack-Request-Timestamp": str(int(time.time())),
                        "X-Slack-Signature": "v0=" + "0" * 64},
}


@pytest.mark.parametrize("headers", UNSIGNED.values(), ids=UNSIGNED.keys())
def test_a_bad_signature_or_timestamp_gets_401_without_a_traceback(slack_run, caplog, headers):
    async def scenario(h):
        for raw, kind in ((b"command=/explain&text=detach", FORM), (_form("not json"), FORM)):
            with caplog.at_level(logging.WARNING):
                status = await _post(h, raw, kind, signed=False, headers=headers)
            assert status == 401
        assert h.fake.calls_of("chat.postEphemeral") == []
        _no_traceback(caplog)
        assert any("refused with 401" in r.getMessage() for r in caplog.records)

    slack_run(scenario)


SIGNED_MALFORMED = {
    "payload not json": (_form("{not json"), FORM),
    "payload a list": (_form([1, 2]), FORM),
    "payload a string": (_form('"hello"'), FORM),
    "json body a list": (b"[1, 2, 3]", JSON),
    "json body broken": (b'{"type": "event_callback", ', JSON),
    "plain text body": (b"hello there", "text/plain"),
    "xml body": (b"<payload/>", "application/xml"),
    "empty body": (b"", FORM),
    "not utf-8": (b"payload=\xff\xfe", FORM),
    "user a number": (_form(_interaction(user=5)), FORM),
    "team a list": (_form(_interaction(team=["T0TORCHQZ"])), FORM),
    "actions an object": (_form(_interaction(actions={"0": {"action_id": "x"}})), FORM),
    "action id a number": (_form(_interaction(actions=[{"action_id": 7}])), FORM),
    "actions empty": (_form(_interaction(actions=[])), FORM),  # bolt reads actions[0]
    "authorizations of numbers": (json.dumps({"type": "event_callback", "team_id": "T0TORCHQZ",
                                              "authorizations": [1],
                                              "event": {"type": "app_home_opened"}}).encode(),
                                  JSON),
    "event a string": (json.dumps({"type": "event_callback", "event": "app_home_opened",
                                   "is_ext_shared_channel": True}).encode(), JSON),
    "view without a type": (_form({"type": "view_submission", "team": {"id": "T0TORCHQZ"},
                                   "user": {"id": "U0ALICE"},
                                   "view": {"callback_id": "tq:settings"}}), FORM),
    "view callback a number": (_form({"type": "view_submission", "team": {"id": "T0TORCHQZ"},
                                      "user": {"id": "U0ALICE"},
                                      "view": {"callback_id": 12}}), FORM),
    "deeply nested": (_form("[" * 100_000 + "]" * 100_000), FORM),
}


@pytest.mark.parametrize("raw,content_type", SIGNED_MALFORMED.values(),
                         ids=SIGNED_MALFORMED.keys())
def test_a_signed_body_that_is_not_slacks_shape_gets_400_without_a_traceback(
        slack_run, caplog, raw, content_type):
    async def scenario(h):
        with caplog.at_level(logging.WARNING):
            status = await _post(h, raw, content_type)
        assert status == 400
        _no_traceback(caplog)
        warnings = [r for r in caplog.records if "refused with 400" in r.getMessage()]
        assert len(warnings) == 1
        after = await h.reply(await h.send.command("/explain", "detach"))
        assert "detach()" in after.shown_text  # and the app carries on

    slack_run(scenario)


def test_a_bogus_charset_gets_400(slack_run, caplog):
    async def scenario(h):
        with caplog.at_level(logging.WARNING):
            status = await _post(h, b"command=/explain", FORM + "; charset=klingon")
        assert status == 400
        _no_traceback(caplog)

    slack_run(scenario)


def test_an_oversized_body_gets_413_before_anything_reads_it(slack_run, caplog):
    async def scenario(h):
        raw = urlencode({"command": "/explain", "text": "x" * (2 * 1024 * 1024)}).encode()
        with caplog.at_level(logging.WARNING):
            status = await _post(h, raw, FORM)
        assert status == 413
        _no_traceback(caplog)

    slack_run(scenario)


def test_a_body_shorter_than_its_content_length_gets_400_without_a_traceback(slack_run, caplog):
    async def scenario(h):
        url = yarl.URL(h.app_url)
        raw = b"command=/explain&text=detach"
        stamp = str(int(time.time()))
        head = (f"POST {url.path} HTTP/1.1\r\nHost: {url.host}\r\nContent-Type: {FORM}\r\n"
                f"Content-Length: {len(raw) + 100}\r\nX-Slack-Request-Timestamp: {stamp}\r\n"
                f"X-Slack-Signature: {_signature(raw, stamp)}\r\nConnection: close\r\n\r\n")
        with caplog.at_level(logging.WARNING):
            reader, writer = await asyncio.open_connection(url.host, url.port)
            writer.write(head.encode() + raw)
            await writer.drain()
            writer.write_eof()  # the client stops sending: the body ends 100 bytes short
            status_line = await asyncio.wait_for(reader.readline(), 10)
            writer.close()
        # The half-closed connection may take no answer at all; if it does, it is a 400.
        assert status_line == b"" or status_line.split()[1] == b"400", status_line
        _no_traceback(caplog)
        assert [r for r in caplog.records if "refused with 400" in r.getMessage()]
        after = await h.reply(await h.send.command("/explain", "detach"))
        assert "detach()" in after.shown_text

    slack_run(scenario)


def test_a_signed_well_formed_command_still_works_through_the_boundary(slack_run):
    async def scenario(h):
        shown = await h.reply(await h.send.command("/explain", "detach", channel=GENERAL))
        assert "detach()" in shown.shown_text

    slack_run(scenario)


def test_a_settings_submission_with_nowhere_to_reply_is_one_warning_not_an_error(slack_run,
                                                                                 caplog):
    from tests.adapters.slack.test_boundary_property import _lazy_listeners_done

    body = {"type": "view_submission", "team": {"id": "T0TORCHQZ"},
            "user": {"id": "U0ALICE", "name": "alice", "team_id": "T0TORCHQZ"},
            "trigger_id": "1.2.3", "api_app_id": "A0TORCHQZ",
            "view": {"id": "V0VIEW", "hash": "1.abc", "type": "modal",
                     "callback_id": "tq:settings", "private_metadata": "{}",
                     "state": {"values": {}}}}

    async def scenario(h):
        with caplog.at_level(logging.WARNING):
            status = await _post(h, _form(body), FORM)
            await _lazy_listeners_done()
        assert status == 200
        _no_traceback(caplog)
        nowhere = [r for r in caplog.records if "nowhere to reply" in r.getMessage()]
        assert len(nowhere) == 1

    slack_run(scenario)
