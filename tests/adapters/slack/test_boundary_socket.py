"""Socket Mode envelopes pass the same shape check as HTTP bodies before bolt reads them."""

from __future__ import annotations

import asyncio
import logging

import pytest
from slack_bolt.async_app import AsyncApp
from slack_sdk.socket_mode.request import SocketModeRequest

from bot.adapters.slack.boundary import CheckedSocketModeHandler


async def _authorize(**_kwargs):
    return None


class _Client:
    def __init__(self):
        self.sent = []

    async def send_socket_mode_response(self, response):
        self.sent.append(response)


@pytest.mark.parametrize("payload", [
    {"type": "block_actions", "user": 5, "team": {"id": "T0TORCHQZ"}},
    {"type": "view_submission", "view": {"callback_id": 12}},
    {"type": "block_actions", "actions": "tq:answer:1:A"},
    {"type": "event_callback", "event": "app_home_opened", "is_ext_shared_channel": True},
], ids=["user a number", "callback a number", "actions a string", "event a string"])
def test_a_hostile_envelope_is_acknowledged_and_dropped_before_bolt(payload, caplog):
    async def scenario():
        app = AsyncApp(signing_secret="unused", authorize=_authorize)
        dispatched = []

        async def spy(req):
            dispatched.append(req)

        app.async_dispatch = spy
        handler = CheckedSocketModeHandler(app, "xapp-unused")
        client = _Client()
        with caplog.at_level(logging.WARNING):
            await handler.handle(client, SocketModeRequest("interactive", "env-1", payload))
        await handler.close_async()
        return dispatched, client.sent

    dispatched, sent = asyncio.run(scenario())
    assert dispatched == [] and [r.envelope_id for r in sent] == ["env-1"]
    assert any("envelope env-1 refused" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.exc_info]
