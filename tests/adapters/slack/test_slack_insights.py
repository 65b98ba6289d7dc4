"""/quiz-insights on Slack end to end: admins only, the paused question, its unpause button."""

from __future__ import annotations

import datetime as dt

from tests.fake_slack import USERS

PAUSED = "t.choice-view"
UNPAUSE = f"tq:unpause:{PAUSED}:item"


def _pause(h):
    store = h.quiz.rounds.store
    store.pause_items([(PAUSED, 1)], "suspect_key", dt.datetime(2026, 3, 2, tzinfo=dt.UTC))
    return store


def test_an_admin_sees_the_paused_question_and_unpauses_it_with_the_button(slack_run):
    async def scenario(h):
        store = _pause(h)
        shown = await h.reply(await h.send.command("/quiz-insights", who="admin"))
        assert shown.kind == "response" and shown.user == USERS["admin"]["id"]
        assert f"`{PAUSED}` v1" in shown.shown_text
        assert UNPAUSE in shown.actions
        done = await h.reply(await h.send.click(shown, UNPAUSE, "admin"))
        assert f"`{PAUSED}` (version 1) is unpaused" in done.shown_text
        assert store.paused_items() == set()

    slack_run(scenario)


def test_a_member_who_is_no_admin_is_refused_and_unpauses_nothing(slack_run):
    async def scenario(h):
        store = _pause(h)
        refused = await h.reply(await h.send.command("/quiz-insights", who="alice"))
        assert "Only admins can see question quality." in refused.shown_text
        assert PAUSED not in refused.shown_text
        shown = await h.reply(await h.send.command("/quiz-insights", who="admin"))
        clicked = await h.reply(await h.send.click(shown, UNPAUSE, "alice"))
        assert "Only admins can see question quality." in clicked.shown_text
        assert store.paused_items() == {(PAUSED, 1)}

    slack_run(scenario)
