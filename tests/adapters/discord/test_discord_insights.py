"""/quiz-insights on Discord end to end: admins only, the paused question, its unpause button."""

from __future__ import annotations

import datetime as dt

PAUSED = "t.choice-view"
UNPAUSE = f"tq:unpause:{PAUSED}:item"


def _pause(h):
    store = h.quiz.rounds.store
    store.pause_items([(PAUSED, 1)], "suspect_key", dt.datetime(2026, 3, 2, tzinfo=dt.UTC))
    return store


def test_an_admin_sees_the_paused_question_and_unpauses_it_with_the_button(discord_run):
    async def scenario(h):
        store = _pause(h)
        shown = await h.done(await h.fake.slash("quiz-insights", "admin"))
        assert shown.ephemeral
        assert "Question quality" in shown.text()
        assert f"⏸ `{PAUSED}` v1" in shown.text()
        reply = shown.replies()[0]
        done = await h.done(await h.fake.click_ephemeral(reply, UNPAUSE, "admin"))
        assert done.ephemeral
        assert f"`{PAUSED}` (version 1) is unpaused" in done.text()
        assert store.paused_items() == set()

    discord_run(scenario)


def test_a_member_without_manage_server_is_refused_and_unpauses_nothing(discord_run):
    async def scenario(h):
        store = _pause(h)
        refused = await h.done(await h.fake.slash("quiz-insights", "alice"))
        assert refused.ephemeral
        assert "Only admins can see question quality." in refused.text()
        assert PAUSED not in refused.text()
        # The admin's reply, its button clicked by a member: the server-side check refuses it.
        reply = (await h.done(await h.fake.slash("quiz-insights", "admin"))).replies()[0]
        clicked = await h.done(await h.fake.click_ephemeral(reply, UNPAUSE, "alice"))
        assert "Only admins can see question quality." in clicked.text()
        assert store.paused_items() == {(PAUSED, 1)}

    discord_run(scenario)
