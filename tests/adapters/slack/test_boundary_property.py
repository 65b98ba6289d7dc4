"""Every shape the boundary lets through, filled with generated values: no 5xx, no traceback.

The boundary (bot/adapters/slack/boundary.py) passes a signed body of one of Slack's shapes on
to bolt and the listeners. Hypothesis builds such bodies (commands, clicks, modal submissions,
option requests, events) whose ids, texts, action and callback ids and metadata are Slack's,
near-Slack's or hostile, signs them, and posts them to the real app over HTTP. Whatever a body
says, the answer is below 500 and no log line carries a traceback or an ERROR: a request the
app cannot use is one warning line.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.adapters.slack.handlers import COMMANDS
from bot.adapters.slack.packs import PACK_CALLBACK
from bot.adapters.slack.views import (
    SETTINGS_CALLBACK,
    SETTINGS_CHANNEL_ACTION,
    TOPICS_ACTION,
    TZ_ACTION,
)
from bot.core.kernel.messages import ACTION_KINDS, SUBMIT_KINDS
from tests.fake_slack import GENERAL, OTHER_TEAM, RANDOM, SIGNING_SECRET, TEAM
from tests.hostile import HOSTILE_STRINGS

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"

def _sendable(value: str) -> bool:
    return len(value) <= 200 and value.encode("utf-8", "replace").decode() == value


# What Slack can carry: any text but lone surrogates, which JSON over UTF-8 cannot hold.
hostile = st.sampled_from(sorted(v for v in HOSTILE_STRINGS.values() if _sendable(v)))
text = st.one_of(st.text(st.characters(exclude_categories=("Cs",)), max_size=60), hostile,
                 st.sampled_from(["", "A", "detach", "all"]))
# A response URL: none, the fake's own hook (FAKE_HOOK, filled in per request), or one to a
# host the app does not post to.
response_url = st.sampled_from(["", "FAKE_HOOK", "FAKE_HOOK", "https://evil.example/hook"])
slack_id = st.one_of(st.sampled_from([TEAM, OTHER_TEAM, "U0ALICE", "U0BOB", GENERAL, RANDOM,
                                      "C0NOWHERE", "U0NOBODY"]),
                     st.from_regex(r"[A-Z0-9]{1,12}", fullmatch=True), text)
team = st.sampled_from([TEAM, TEAM, OTHER_TEAM, "T0UNKNOWN"])
number = st.one_of(st.integers(-5, 10**12).map(str), st.sampled_from(["0", "1", "-1", "x"]))
action_id = st.one_of(
    st.builds(lambda kind, a, b: f"tq:{kind}:{a}:{b}", st.sampled_from(ACTION_KINDS),
              number, st.one_of(number, text)),
    st.builds(lambda kind, a: f"tq:{kind}:{a}", st.sampled_from(ACTION_KINDS), number),
    st.sampled_from([SETTINGS_CHANNEL_ACTION, TZ_ACTION, TOPICS_ACTION]), text)
callback_id = st.one_of(
    st.builds(lambda kind, a, b: f"tq:{kind}:{a}:{b}", st.sampled_from(SUBMIT_KINDS),
              number, st.one_of(number, text)),
    st.sampled_from([SETTINGS_CALLBACK, PACK_CALLBACK]), text)
metadata = st.one_of(
    st.builds(lambda c, n, r: json.dumps({"c": c, "n": n, "r": r}), slack_id, text,
              response_url),
    text)
# A modal's state: block -> action -> a value of one of the element types the app reads.
element = st.one_of(
    st.builds(lambda v: {"type": "plain_text_input", "value": v}, st.one_of(text, st.none())),
    st.builds(lambda v: {"type": "static_select", "selected_option": {"value": v}}, text),
    st.builds(lambda v: {"type": "conversations_select", "selected_conversation": v}, slack_id),
    st.builds(lambda vs: {"type": "multi_external_select",
                          "selected_options": [{"value": v} for v in vs]},
              st.lists(text, max_size=3)))
state = st.dictionaries(st.one_of(text, st.sampled_from(["answer", "choice", "time", "tz",
                                                         "topics", "lang", "channel"])),
                        st.dictionaries(st.one_of(text, st.sampled_from(["answer", "value"])),
                                        element, max_size=2), max_size=3)
user = st.builds(lambda uid, name, t: {"id": uid, "name": name, "team_id": t},
                 slack_id, text, team)


def _command() -> st.SearchStrategy[tuple[bytes, str]]:
    fields = st.fixed_dictionaries({
        "command": st.sampled_from(sorted(COMMANDS)), "text": text, "team_id": team,
        "user_id": slack_id, "user_name": text, "channel_id": slack_id, "channel_name": text,
        "response_url": response_url,
        "trigger_id": st.one_of(st.just("1.2.3"), text),
    })
    return fields.map(lambda f: (urlencode(f).encode(), FORM))


def _payload(body: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[tuple[bytes, str]]:
    return body.map(lambda b: (urlencode({"payload": json.dumps(b)}).encode(), FORM))


def _click() -> st.SearchStrategy[tuple[bytes, str]]:
    action = st.builds(lambda aid, value, option: {
        "action_id": aid, "block_id": "b", "type": "button", "value": value,
        **({"selected_option": {"value": option}} if option is not None else {})},
        action_id, text, st.one_of(st.none(), text))
    return _payload(st.builds(lambda t, u, ch, actions, trigger, url: {
        "type": "block_actions", "team": {"id": t}, "user": u, "channel": {"id": ch},
        "container": {"channel_id": ch}, "trigger_id": trigger, "response_url": url,
        "api_app_id": "A0TORCHQZ", "actions": actions},
        team, user, slack_id, st.lists(action, min_size=1, max_size=2),
        st.one_of(st.just("1.2.3"), text), response_url))


def _submission() -> st.SearchStrategy[tuple[bytes, str]]:
    return _payload(st.builds(lambda t, u, cb, meta, values, kind, view_type: {
        "type": kind, "team": {"id": t}, "user": u, "trigger_id": "1.2.3",
        "api_app_id": "A0TORCHQZ",
        "view": {"id": "V0VIEW", "hash": "1.abc", "callback_id": cb, "private_metadata": meta,
                 "state": {"values": values},
                 **({"type": view_type} if view_type is not None else {})}},
        team, user, callback_id, metadata, state,
        st.sampled_from(["view_submission", "view_closed"]),
        st.sampled_from(["modal", "modal", "modal", "home", "workflow_step", None])))


def _options() -> st.SearchStrategy[tuple[bytes, str]]:
    return _payload(st.builds(lambda t, u, aid, value: {
        "type": "block_suggestion", "team": {"id": t}, "user": u, "action_id": aid,
        "block_id": "b", "value": value, "api_app_id": "A0TORCHQZ"},
        team, user, st.sampled_from([TZ_ACTION, TOPICS_ACTION]), text))


def _event() -> st.SearchStrategy[tuple[bytes, str]]:
    return st.builds(lambda t, uid, ch, tab: (json.dumps({
        "type": "event_callback", "team_id": t, "api_app_id": "A0TORCHQZ",
        "event_id": "Ev1", "event_time": 1,
        "event": {"type": "app_home_opened", "user": uid, "channel": ch, "tab": tab}}).encode(),
        JSON), team, slack_id, slack_id, st.sampled_from(["home", "messages", ""]))


REQUESTS = st.one_of(_command(), _click(), _submission(), _options(), _event())


def _post(url: str, raw: bytes, content_type: str) -> int:
    stamp = str(int(time.time()))
    base = b"v0:" + stamp.encode() + b":" + raw
    signature = "v0=" + hmac.new(SIGNING_SECRET.encode(), base, hashlib.sha256).hexdigest()
    request = urllib.request.Request(url, data=raw, method="POST", headers={  # noqa: S310
        "Content-Type": content_type, "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


async def _lazy_listeners_done() -> None:
    """Wait for bolt's lazy listeners (the work after each ack) to finish."""
    for _ in range(600):
        running = [task for task in asyncio.all_tasks() if not task.done()
                   and getattr(task.get_coro(), "__qualname__", "") == "to_runnable_function"]
        if not running:
            return
        await asyncio.wait(running, timeout=0.1)
    raise AssertionError("lazy listeners still running after a minute")


# The app, serving on the event loop meanwhile, draws jitter from ``random``: not the strategies.
@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisDeprecationWarning")
def test_generated_requests_of_every_accepted_shape_get_no_5xx_and_no_traceback(
        slack_run, caplog):
    statuses: list[int] = []

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(REQUESTS)
    def throw(request: tuple[bytes, str]) -> None:
        raw, content_type = request
        hook = HOOK[0]()
        raw = raw.replace(b"FAKE_HOOK", quote(hook, safe="").encode() if content_type == FORM
                          else hook.encode())
        statuses.append(_post(APP_URL[0], raw, content_type))
        assert statuses[-1] < 500, request

    async def scenario(h):
        APP_URL[0] = h.app_url
        HOOK[0] = lambda: h.fake.issue_response_url(GENERAL, "alice")
        with caplog.at_level(logging.WARNING):
            await asyncio.to_thread(throw)
            await _lazy_listeners_done()
        bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
        assert not bad, [(r.name, r.getMessage()[:300]) for r in bad]
        after = await h.reply(await h.send.command("/explain", "detach"))
        assert "detach()" in after.shown_text  # and the app carries on

    APP_URL = [""]
    HOOK: list[Callable[[], str]] = [str]
    slack_run(scenario, TORCHQUIZ_RATE_COMMANDS_PER_10S="0")
    assert len(statuses) == 150 and 200 in statuses
