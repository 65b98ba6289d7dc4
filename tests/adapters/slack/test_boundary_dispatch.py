"""Whatever passes the shape check, bolt dispatches through our listeners without a 500."""

from __future__ import annotations

import asyncio
import json
import logging

from hypothesis import HealthCheck, given, settings
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.adapters.slack import listeners
from bot.adapters.slack.boundary import Refused, check_bolt_reads, check_shape
from tests.adapters.slack.test_boundary_parsers import bodies


class _Idle:
    """Listeners that do nothing: this test is about bolt's matching and our middleware."""

    async def _nothing(self, **_kwargs) -> None:
        return None

    on_command = on_action = on_settings_channel = on_submit = on_settings = on_home = _nothing
    on_pack_submit = _nothing

    def timezone_options(self, typed):
        return []

    def topic_options(self, typed, team=""):
        return []


async def _authorize(**_kwargs) -> AuthorizeResult:
    return AuthorizeResult(enterprise_id=None, team_id="T0TORCHQZ", bot_token="xoxb-test",
                           bot_user_id="U0BOTUSER", bot_id="B0BOTID")


def _app() -> AsyncApp:
    app = AsyncApp(signing_secret="unused", authorize=_authorize,
                   request_verification_enabled=False, process_before_response=True,
                   logger=logging.getLogger("tests.bolt"))
    listeners.register(app, _Idle())
    return app


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies)
def test_bolt_never_answers_500_to_a_body_that_passed_the_shape_check(body):
    try:
        check_shape(body)
        check_bolt_reads(body)
    except Refused:
        return

    async def dispatch() -> int:
        request = AsyncBoltRequest(body=json.dumps(body, default=str),
                                   headers={"content-type": ["application/json"]})
        return (await _app().async_dispatch(request)).status

    assert asyncio.run(dispatch()) != 500
