"""Slack: /quiz-privacy keeps a member off every board, post and chart; /quiz-stats team."""

from __future__ import annotations

from tests.fake_slack import GENERAL


def _round_id(post):
    return int(next(a for a in post.actions if a.startswith("tq:")).split(":")[2])


def test_a_hidden_member_is_absent_from_every_board_post_and_chart(slack_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        rid = _round_id(post)
        for who in ("alice", "bob"):
            await h.reply(await h.send.click(post, f"tq:answer:{rid}:B", who))
        hidden = await h.reply(await h.send.command("/quiz-privacy", "hidden", "alice"))
        assert "You are now hidden" in hidden.shown_text
        board = await h.reply(await h.send.command("/leaderboard", "all", "bob"))
        assert "Alice" not in board.shown_text and "+1 members hidden" in board.shown_text
        await h.scheduler.post_board(channel.id)
        table = h.fake.posts(GENERAL)[-1]
        assert "Alice" not in table.shown_text and "+1 members hidden" in table.shown_text
        uploaded = next(iter(h.fake.files.values()))
        assert "Alice" not in str({k: v for k, v in uploaded.items() if k != "data"})
        theirs = await h.reply(await h.send.command("/quiz-stats", "<@U0ALICE|alice>", "admin"))
        assert "keeps their stats private" in theirs.shown_text
        mine = await h.reply(await h.send.command("/quiz-stats", "", "alice"))
        assert "Rank this week: #1 of 2" in mine.shown_text
        assert "Freezes held" in mine.shown_text and "Mastery by topic" in mine.shown_text

    slack_run(scenario)


def test_quiz_stats_team_is_for_admins(slack_run):
    async def scenario(h):
        await h.enable_channel("t.choice-view")
        refused = await h.reply(await h.send.command("/quiz-stats", "team", "bob"))
        assert "Only admins can see the team's stats." in refused.shown_text
        shown = await h.reply(await h.send.command("/quiz-stats", "team", "admin"))
        assert "Team mastery" in shown.shown_text

    slack_run(scenario)
