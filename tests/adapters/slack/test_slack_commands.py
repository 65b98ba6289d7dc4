"""Slack's own side of commands: response URLs and ephemeral posts, the settings modal and
its selects, forged submissions, who counts as an admin, argument parsing, the home tab.

What members see in both platforms is in tests/adapters/chat/.
"""

from __future__ import annotations

import datetime as dt

from tests.fake_slack import GENERAL, RANDOM
from tests.fake_slack_requests import modal_values
from tests.packs.scoped import store_packs


def test_replies_go_by_response_url_or_ephemeral_post_and_shares_by_the_app(slack_run):
    async def scenario(h):
        card = await h.reply(await h.send.command("/explain", "detach"))
        assert card.kind == "response" and card.user == "U0ALICE"  # the command's response URL
        assert "```\nprint('detach example')\n```" in card.shown_text
        click = await h.send.click(card, "tq:share:detach:card")
        h.acked(click)
        shared = await h.fake.wait_for(lambda s: s.kind == "post" and s.seq >= click.mark)
        assert shared.user == "" and shared.channel == GENERAL
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        answered = await h.reply(await h.send.click(post.raw, post.choice("B"), "bob"))
        assert answered.kind == "ephemeral" and answered.channel == GENERAL
        assert answered.user == "U0BOB"
        await h.post_board(channel)
        steps = [c.method for c in h.fake.calls if c.method.startswith("files.")]
        assert steps == ["files.getUploadURLExternal", "files.completeUploadExternal"]

    slack_run(scenario)


def test_the_settings_modal_shows_every_setting_and_suggests_zones_and_topics(slack_run):
    async def scenario(h):
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        view = h.fake.views[view_id]
        labels = [b["label"]["text"] for b in view["blocks"] if b["type"] == "input"]
        assert labels == ["Channel", "Daily post time", "Time zone", "Language",
                          "Topics (none: every topic)", "Difficulty (none: all)",
                          "Weekly leaderboard day", "Weekly leaderboard hour", "Daily question",
                          "Who may host a live quiz", "Live quiz points on the weekly board",
                          "Kinds of daily question",
                          "Packs to draw from"]
        zones = await h.send.options(view_id, "tq-settings-tz", "shang")
        assert "Asia/Shanghai" in [o["value"] for o in h.acked(zones).body["options"]]
        topics = await h.send.options(view_id, "tq-settings-topics", "auto")
        assert [o["value"] for o in topics.body["options"]] == ["autograd"]

    slack_run(scenario)


def test_a_non_admin_gets_no_form_and_sees_the_current_settings(slack_run):
    async def scenario(h):
        await h.enable_channel()
        asked = await h.send.command("/quiz-settings", who="bob")
        again = await h.reply(asked)
        assert "Only admins" in again.shown_text and "09:00" in again.shown_text
        assert asked.trigger_id not in h.fake.trigger_views

    slack_run(scenario)


def test_a_forged_settings_submission_from_a_non_admin_changes_nothing(slack_run):
    async def scenario(h):
        channel = await h.enable_channel()
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        values = modal_values(h.fake.views[view_id], time="05:00")
        denied = await h.reply(await h.send.submit(view_id, values, who="alice"))
        assert "Only admins" in denied.shown_text
        assert h.stored_channel().post_time == dt.time(9, 0) == channel.post_time

    slack_run(scenario)


def test_picking_another_channel_redraws_the_settings_modal_for_it(slack_run):
    async def scenario(h):
        await h.enable_channel(time="06:30")
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin",
                                                     channel=RANDOM))
        shown = {b["block_id"]: b["element"] for b in h.fake.views[view_id]["blocks"]
                 if b["type"] == "input"}
        assert shown["time"]["initial_time"] == "09:00"  # #random has no quiz yet
        h.acked(await h.send.view_action(view_id, "channel",
                                         {"selected_conversation": GENERAL}))
        await h.fake.wait_for(lambda s: s.kind == "modal"
                              and s.extra["method"] == "views.update")
        shown = {b["block_id"]: b["element"] for b in h.fake.views[view_id]["blocks"]
                 if b["type"] == "input"}
        assert shown["time"]["initial_time"] == "06:30"
        assert shown["channel"]["initial_conversation"] == GENERAL

    slack_run(scenario)


def test_workspace_owners_and_configured_users_may_change_settings(slack_run):
    async def scenario(h):
        for who in ("owner", "alice"):
            asked = await h.send.command("/quiz-settings", who=who)
            assert await h.modal(asked)

    slack_run(scenario, SLACK_ADMIN_USER_IDS="U0NOBODY, U0ALICE")


def test_command_text_that_is_not_understood_gets_the_usage(slack_run):
    async def scenario(h):
        await h.enable_channel()
        bad = await h.reply(await h.send.command("/leaderboard", "yesterday"))
        assert "/leaderboard week or /leaderboard all" in bad.shown_text
        unclear = await h.reply(await h.send.command("/quiz-stats", "alice please", "bob"))
        assert "/quiz-stats @alice" in unclear.shown_text

    slack_run(scenario)


def test_the_home_tab_shows_the_members_stats_and_the_commands(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        await h.click(post, post.choice("B"), "bob")
        opened = h.acked(await h.send.open_home("bob"))
        home = await h.fake.wait_for(lambda s: s.kind == "home" and s.seq >= opened.mark)
        assert home.user == "U0BOB"
        text = home.shown_text
        assert f"<#{GENERAL}>" in text and "Stats · 王小明" in text
        assert "15 points · 1/1 solved" in text
        for command in ("/explain", "/quiz", "/leaderboard", "/quiz-stats", "/quiz-settings"):
            assert f"`{command}" in text

    slack_run(scenario)


def test_the_settings_topics_offer_our_packs_topics_and_never_another_workspaces(slack_run):
    async def scenario(h):
        store_packs(h)
        # Options answer from what is loaded (never wait): a request loads the packs.
        await h.reply(await h.send.command("/explain", "detach"))
        view_id = await h.modal(await h.send.command("/quiz-settings", who="admin"))
        packs = next(b for b in h.fake.views[view_id]["blocks"] if b["block_id"] == "packs")
        assert packs["element"]["initial_value"] == "bank"
        topics = await h.send.options(view_id, "tq-settings-topics", "team")
        assert [o["value"] for o in topics.body["options"]] == ["team-ours"]

    slack_run(scenario)
