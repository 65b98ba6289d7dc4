"""Slack's parsers fed anything: they return what they document or raise their one error."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from slack_bolt.context import BoltContext
from slack_bolt.request.internals import build_context

from bot.adapters.slack import views
from bot.adapters.slack.boundary import FORM, JSON, Refused, check_shape, parse
from bot.adapters.slack.requests import (
    BadRequest,
    action_id_of,
    from_action,
    from_command,
    from_event,
    from_view,
    picked_channel,
    view_ref,
)
from bot.core.kernel.messages import MAX_ROUND_ID

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SLACK_ID = re.compile(r"[A-Za-z0-9]{1,32}")
KEYS = ["type", "team", "user", "channel", "enterprise", "event", "view", "actions", "id",
        "team_id", "user_id", "channel_id", "callback_id", "action_id", "trigger_id",
        "response_url", "private_metadata", "state", "values", "selected_option",
        "selected_options", "selected_conversation", "authorizations", "hash", "name",
        "is_ext_shared_channel", "container", "response_urls", "command", "value", "tab"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                    st.floats(allow_nan=True), st.text(max_size=40),
                    st.sampled_from(["T0TORCHQZ", "U0ALICE", "C0GENERAL", "<!channel>",
                                     "tq:answer:1:A", "tq:answer:99999999999999999999:A",
                                     "https://hooks.slack.com/x", "\x00", "\ud800"]))
payloads = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)),
    max_leaves=30,
)
bodies = st.dictionaries(st.sampled_from(KEYS), payloads, max_size=8)


def _request_ok(request) -> None:
    assert SLACK_ID.fullmatch(request.team) and SLACK_ID.fullmatch(request.user)
    assert request.channel == "" or SLACK_ID.fullmatch(request.channel)
    assert request.round_id is None or 1 <= request.round_id <= MAX_ROUND_ID
    assert request.user_name.isprintable() and len(request.user_name) <= 80


@SETTINGS
@given(bodies)
@example({"team_id": "T0TORCHQZ", "user_id": "U0ALICE", "channel_id": "<!channel>"})
@example({"team": {"id": "T1"}, "user": {"id": "U1"}, "actions": {"0": 1}})
@example({"team": {"id": "T1"}, "user": {"id": "U1"}, "actions": ["x"]})
@example({"team": {"id": "T1"}, "user": {"id": "U1"},
          "view": {"private_metadata": "[" * 5000, "callback_id": "tq:submit:1e9:code"}})
def test_every_request_reader_returns_checked_ids_or_raises_bad_request(body):
    for read in (from_command, from_action, from_event, lambda b: from_view(b)[0],
                 picked_channel, view_ref):
        try:
            result = read(body)
        except BadRequest:
            continue
        if read in (picked_channel,):
            assert SLACK_ID.fullmatch(result)
        elif read is view_ref:
            assert all(isinstance(part, str) and part for part in result)
        else:
            _request_ok(result)
    assert isinstance(action_id_of(body), str)


@SETTINGS
@given(payloads)
def test_modal_readers_take_any_view(view):
    view = view if isinstance(view, dict) else {"state": view}
    channel, changes = views.settings_changes(view)
    assert isinstance(channel, str)
    assert all(isinstance(v, str) and len(v) <= 200 * 100 + 100 for v in changes.values())
    assert isinstance(views.submitted_text(view), str)


@SETTINGS
@given(st.text(max_size=200))
@example("[" * 10_000)
@example('{"c": {"x": 1}, "n": 5}')
def test_origin_load_takes_any_metadata(metadata):
    origin = views.Origin.load(metadata)
    assert isinstance(origin.channel, str)


@SETTINGS
@given(bodies)
def test_the_shape_check_passes_or_refuses_with_400(body):
    try:
        check_shape(body)
    except Refused as exc:
        assert exc.status == 400
        return
    # What passes is what bolt reads safely: no id it extracts is anything but text.
    build_context(BoltContext(), body)


encoded = st.one_of(
    st.text(max_size=300),
    bodies.map(lambda b: urlencode({"payload": json.dumps(b, default=str)})),
    bodies.map(lambda b: json.dumps(b, default=str)),
    payloads.map(lambda p: urlencode({"payload": json.dumps(p, default=str)})),
    st.dictionaries(st.text(max_size=10), st.text(max_size=20), max_size=5).map(urlencode),
)


@SETTINGS
@given(encoded, st.sampled_from([FORM, JSON, "text/plain", ""]))
@example("payload=%7Bnot+json", FORM)
@example("payload=" + "%5B" * 50_000, FORM)
@example("[1]", JSON)
def test_the_body_parser_returns_an_object_or_refuses_with_400(text, content_type):
    try:
        body = parse(text, content_type)
    except Refused as exc:
        assert exc.status == 400
        return
    assert isinstance(body, dict) and body
