"""Discord: /quiz-privacy keeps a member off every board, post and chart; /stats team, ranks."""

from __future__ import annotations

from tests.fake_discord import custom_ids, message_text


def _round_id(post):
    return int(next(c for c in custom_ids(post) if c.startswith("tq:")).split(":")[2])


def test_the_privacy_and_team_options_are_registered(discord_run):
    async def scenario(h):
        privacy = next(c for c in h.fake.commands if c["name"] == "quiz-privacy")
        [mode] = privacy["options"]
        assert [c["value"] for c in mode["choices"]] == ["hidden", "visible"]
        stats = next(c for c in h.fake.commands if c["name"] == "stats")
        assert {o["name"] for o in stats["options"]} == {"member", "share", "team"}

    discord_run(scenario)


def test_a_hidden_member_is_absent_from_every_board_post_and_chart(discord_run):
    async def scenario(h):
        channel = await h.enable_channel("t.choice-view")
        post = await h.post_today(channel)
        for who in ("alice", "bob"):
            await h.done(await h.fake.click(int(post["id"]), f"tq:answer:{_round_id(post)}:B",
                                            who))
        hidden = await h.done(await h.fake.slash("quiz-privacy", "alice", mode="hidden"))
        assert hidden.ephemeral and "You are now hidden" in hidden.text()
        shared = await h.done(await h.fake.slash("leaderboard", "bob", period="all",
                                                 share=True))
        assert not shared.ephemeral
        assert "Alice" not in shared.text() and "+1 members hidden" in shared.text()
        await h.scheduler.post_board(channel.id)
        board = message_text(h.fake.messages[h.fake.posted[-1]])
        assert "Weekly leaderboard" in board and "Alice" not in board
        assert "+1 members hidden" in board
        upload = [c for c in h.fake.calls if c.files][-1]
        assert "Alice" not in str(upload.body)  # the chart's alt text names no hidden member
        for asker in ("bob", "admin"):
            theirs = await h.done(await h.fake.slash("stats", asker, member="alice"))
            assert "keeps their stats private" in theirs.text()
        mine = await h.done(await h.fake.slash("stats", "alice"))
        assert mine.ephemeral and "Rank this week: #1 of 2" in mine.text()
        assert [c for c in h.fake.calls if c.files][-1].files == ["mastery.png"]

    discord_run(scenario)


def test_stats_team_is_for_admins(discord_run):
    async def scenario(h):
        await h.enable_channel("t.choice-view")
        refused = await h.done(await h.fake.slash("stats", "bob", team=True))
        assert "Only admins can see the team's stats." in refused.text()
        shown = await h.done(await h.fake.slash("stats", "admin", team=True))
        assert shown.ephemeral and "Team mastery" in shown.text()

    discord_run(scenario)
