"""/quiz-insights on Discord and Slack: admins only, the paused question, its unpause button."""

from __future__ import annotations

import datetime as dt

PAUSED = "t.choice-view"
UNPAUSE = f"tq:unpause:{PAUSED}:item"
REFUSED = "Only admins can see question quality."


def _pause(d):
    store = d.quiz.rounds.store
    store.pause_items([(PAUSED, 1)], "suspect_key", dt.datetime(2026, 3, 2, tzinfo=dt.UTC))
    return store


def test_an_admin_sees_the_paused_question_and_unpauses_it_with_the_button(chat):
    async def scenario(d):
        store = _pause(d)
        shown = await d.command("insights", "admin")
        assert shown.private
        assert "Question quality" in shown.text
        assert f"`{PAUSED}` v1" in shown.text
        assert UNPAUSE in shown.buttons
        done = await d.click(shown, UNPAUSE, "admin")
        assert done.private
        assert f"`{PAUSED}` (version 1) is unpaused" in done.text
        assert store.paused_items() == set()

    chat.run(scenario)


def test_a_member_who_is_no_admin_is_refused_and_unpauses_nothing(chat):
    async def scenario(d):
        store = _pause(d)
        refused = await d.command("insights", "alice")
        assert refused.private
        assert REFUSED in refused.text
        assert PAUSED not in refused.text
        # The admin's reply, its button clicked by a member: the server-side check refuses it.
        shown = await d.command("insights", "admin")
        clicked = await d.click(shown, UNPAUSE, "alice")
        assert REFUSED in clicked.text
        assert store.paused_items() == {(PAUSED, 1)}

    chat.run(scenario)


def test_an_admin_pauses_a_question_by_hand_and_the_log_keeps_who(chat):
    async def scenario(d):
        store = d.quiz.rounds.store
        done = await d.command("insights", "admin", action="pause", item=PAUSED)
        assert done.private
        assert f"`{PAUSED}` (version 1) is paused" in done.text
        assert store.paused_items() == {(PAUSED, 1)}
        again = await d.command("insights", "admin", action="pause", item=PAUSED)
        assert "is paused already" in again.text
        [change] = d.quiz.audit.latest(*d.pack_scope().split(":", 1))
        assert (change.action, change.target, change.before, change.after) == (
            "pause", PAUSED, "active", "paused")

    chat.run(scenario)


def test_a_member_cannot_pause_and_an_unknown_id_pauses_nothing(chat):
    async def scenario(d):
        store = d.quiz.rounds.store
        refused = await d.command("insights", "alice", action="pause", item=PAUSED)
        assert REFUSED in refused.text
        unknown = await d.command("insights", "admin", action="pause", item="team-x:q1")
        assert "There is no question `team-x:q1` here" in unknown.text
        assert store.paused_items() == set()

    chat.run(scenario)
