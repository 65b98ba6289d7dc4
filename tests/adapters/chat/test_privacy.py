"""/quiz-privacy and /stats team, written once for Discord and Slack.

A hidden member is absent from every board, the weekly post and its chart; they still see their
own place in /stats; nobody else (an admin neither) sees their stats.
"""

from __future__ import annotations

import re


def test_a_hidden_member_is_absent_from_every_board_post_and_chart(chat):
    async def scenario(d):
        channel = await d.enable_channel("t.choice-view")
        post = await d.post_today(channel)
        for who in ("alice", "bob"):
            await d.click(post, post.choice("B"), who)
        hidden = await d.command("privacy", "alice", mode="hidden")
        assert hidden.private and "You are now hidden" in hidden.text
        for period in ("week", "all"):
            board = await d.command("leaderboard", "bob", period=period)
            assert "Alice" not in board.text and "+1 member hidden" in board.text
        weekly = await d.post_board(channel)
        assert "Weekly leaderboard" in weekly.text and "王小明" in weekly.text
        assert "Alice" not in weekly.text and "+1 member hidden" in weekly.text
        assert weekly.image is not None and weekly.image[1][:4] == b"\x89PNG"
        for asker in ("bob", "admin"):
            theirs = await d.command("stats", asker, member="alice")
            assert "keeps their stats private" in theirs.text and "Alice" in theirs.text
        mine = await d.command("stats", "alice")
        assert mine.private and "Rank this week: #1 of 2" in mine.text
        assert "Freezes held: 0" in mine.text and "hidden from the boards" in mine.text
        if d.platform == "discord":
            # The mastery chart comes with the private reply, with its alt text.
            upload = [c for c in d.fake.calls if c.files][-1]
            assert len(upload.files) == 1 and re.fullmatch(r"mastery-\d+-\d+\.png", upload.files[0])
            assert "share answered right on the first try per topic" in str(upload.body)
        else:
            # A private reply cannot carry a file on Slack: the chart goes to the member's IM
            # with the app, with its alt text, and the reply says so.
            im = d.fake.ims[d.user_id("alice")]
            chart = [f for f in d.fake.files.values() if f.get("channel") == im][-1]
            assert re.fullmatch(r"mastery-\d+-\d+\.png", chart["name"])
            assert "share answered right on the first try per topic" in chart["alt_txt"]
            assert "direct messages with the app" in mine.text
        shown = await d.command("privacy", "alice", mode="visible")
        assert "visible on the leaderboards again" in shown.text
        board = await d.command("leaderboard", "bob", period="all")
        assert "Alice" in board.text and "hidden" not in board.text

    chat.run(scenario)


def test_stats_team_is_for_admins_and_names_the_weakest_topics(chat):
    async def scenario(d):
        channel = await d.enable_channel("t.choice-view")
        post = await d.post_today(channel)
        await d.click(post, post.choice("B"), "alice")
        refused = await d.command("stats", "bob", team=True)
        assert "Only admins can see the team's stats." in refused.text
        shown = await d.command("stats", "admin", team=True)
        assert shown.private and "Team mastery · weakest first" in shown.text
        assert "tensors" in shown.text

    chat.run(scenario)
