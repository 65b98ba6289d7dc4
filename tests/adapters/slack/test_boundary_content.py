"""Signed requests with hostile content: acknowledged, then dropped or answered clearly."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.fake_slack import GENERAL, RANDOM
from tests.fake_slack_requests import modal_values

HOSTILE_CHANNELS = {
    "a mention": "<!channel>",
    "unknown id": "C0NOSUCH",
    "bot not in it": RANDOM,
    "too long": "C" * 200,
    "nul": "C0GEN\x00ERAL",
}


def _tracebacks(caplog):
    return [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("channel", HOSTILE_CHANNELS.values(), ids=HOSTILE_CHANNELS.keys())
def test_settings_for_a_channel_slack_does_not_vouch_for_are_refused_and_nothing_stored(
        slack_run, caplog, channel):
    async def scenario(h):
        h.fake.member_channels.discard(RANDOM)
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        values = modal_values(h.fake.views[view_id], enabled="on")
        values["channel"]["tq-settings-channel"]["selected_conversation"] = channel
        with caplog.at_level(logging.WARNING):
            shown = await h.reply(await h.send.submit(view_id, values, who="admin"))
        assert "Nothing was saved" in shown.shown_text
        assert h.quiz.rounds.find_channel("slack", channel) is None
        assert h.quiz.rounds.find_channel("slack", GENERAL) is None
        assert _tracebacks(caplog) == []

    slack_run(scenario)


def test_settings_for_a_channel_the_app_is_in_are_saved_after_slack_confirms_it(slack_run):
    async def scenario(h):
        await h.enable_channel()
        asked = [c.args["channel"] for c in h.fake.calls_of("conversations.info")]
        assert asked == [GENERAL]

    slack_run(scenario)


HOSTILE_IDS = {
    "letters": "tq:answer:abc:A",
    "exponent": "tq:answer:1e3:A",
    "past int32": "tq:answer:99999999999999999999999:A",
    "superscript": "tq:answer:²:A",
    "negative": "tq:answer:-1:A",
}


@pytest.mark.parametrize("action_id", HOSTILE_IDS.values(), ids=HOSTILE_IDS.keys())
def test_a_click_with_a_hostile_round_id_gets_a_clear_reply_and_no_traceback(
        slack_run, caplog, action_id):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = (await h.post_today(channel)).raw
        buttons = next(b for b in post.blocks if b.get("type") == "actions")
        buttons["elements"][0]["action_id"] = action_id  # as a forged click says
        with caplog.at_level(logging.WARNING):
            shown = await h.reply(await h.send.click(post, action_id))
        assert "not one of this bot's" in shown.shown_text
        assert _tracebacks(caplog) == []

    slack_run(scenario)


def test_a_settings_channel_pick_of_a_hostile_conversation_is_dropped(slack_run, caplog):
    async def scenario(h):
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        with caplog.at_level(logging.WARNING):
            h.acked(await h.send.view_action(view_id, "channel",
                                             {"selected_conversation": "<!channel>"}))
            await asyncio.sleep(0.5)
        assert h.fake.calls_of("views.update") == []
        assert _tracebacks(caplog) == []
        assert any("dropped at the boundary" in r.getMessage() for r in caplog.records)

    slack_run(scenario)


def test_a_modal_submission_with_a_hostile_state_is_answered_without_a_traceback(
        slack_run, caplog):
    async def scenario(h):
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        values = modal_values(h.fake.views[view_id], enabled="on")
        values["tz"]["tq-settings-tz"]["selected_option"] = "Asia/Shanghai"  # not an object
        values["topics"]["tq-settings-topics"]["selected_options"] = 7
        values["time"]["time"]["selected_time"] = ["09:00"]
        with caplog.at_level(logging.WARNING):
            shown = await h.reply(await h.send.submit(view_id, values, who="admin"))
        assert "Settings saved" in shown.shown_text  # what was readable, nothing else
        assert _tracebacks(caplog) == []

    slack_run(scenario)


HOSTILE_COMMAND_IDS = {
    "long user": {"user_id": "U" * 200},
    "nul user": {"user_id": "U0AL\x00ICE"},
    "long channel": {"channel_id": "C" * 129},
    "mention channel": {"channel_id": "<!channel>"},
    "long team": {"team_id": "T" * 300},
}


@pytest.mark.parametrize("change", HOSTILE_COMMAND_IDS.values(), ids=HOSTILE_COMMAND_IDS.keys())
def test_a_command_with_hostile_ids_is_dropped_with_one_warning(slack_run, caplog, change):
    async def scenario(h):
        delivery = h.send._delivery("command", "alice", GENERAL)
        payload = h.send.command_payload("/explain", "detach", "alice", GENERAL, "T0TORCHQZ",
                                         delivery)
        with caplog.at_level(logging.WARNING):
            h.acked(await h.send._send(delivery, "command", {**payload, **change}))
            await asyncio.sleep(0.5)
        assert h.fake.calls_of("users.info") == [] and h.fake.shown == []
        assert any("dropped at the boundary" in r.getMessage() for r in caplog.records)
        assert _tracebacks(caplog) == []

    slack_run(scenario)


def test_a_click_with_a_lone_surrogate_user_id_is_dropped(slack_run, caplog):
    async def scenario(h):
        card = await h.reply(await h.send.command("/explain", "detach"))
        delivery = h.send._delivery("click", "alice", GENERAL)
        payload = h.send._interaction("block_actions", "alice", "T0TORCHQZ", delivery)
        payload["user"]["id"] = "U0\ud800"
        payload.update({"channel": {"id": GENERAL}, "response_url": delivery.response_url,
                        "actions": [{"action_id": card.actions[0], "type": "button"}]})
        before = len(h.fake.shown)
        with caplog.at_level(logging.WARNING):
            h.acked(await h.send._send(delivery, "click", payload))
            await asyncio.sleep(0.5)
        assert len(h.fake.shown) == before
        assert _tracebacks(caplog) == []

    slack_run(scenario)


@pytest.mark.parametrize("response_url", ["", "http://127.0.0.1:9/hook", "https://evil.example/x",
                                          "http://hooks.slack.com/x"],
                         ids=["missing", "another local port", "foreign host", "plain http"])
def test_a_command_with_a_missing_or_foreign_response_url_is_answered_in_the_channel(
        slack_run, caplog, response_url):
    async def scenario(h):
        delivery = h.send._delivery("command", "alice", GENERAL)
        payload = h.send.command_payload("/explain", "detach", "alice", GENERAL, "T0TORCHQZ",
                                         delivery)
        payload["response_url"] = response_url
        with caplog.at_level(logging.WARNING):
            shown = await h.reply(await h.send._send(delivery, "command", payload))
        assert shown.kind == "ephemeral" and "detach()" in shown.shown_text
        assert _tracebacks(caplog) == []

    slack_run(scenario)
