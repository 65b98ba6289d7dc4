"""Team packs in chat, on Discord and on Slack: a workspace sees its own packs, never another's."""

from __future__ import annotations

from tests.packs.scoped import store_packs


def test_explain_and_practice_see_our_pack_and_never_another_workspaces(chat):
    async def scenario(d):
        store_packs(d)
        ours = await d.command("explain", topic="ours secret")
        assert "The ours card's body" in ours.text
        for query in ("theirs secret", "p.theirs.card"):
            theirs = await d.command("explain", topic=query)
            assert "The theirs card's body" not in theirs.text
        practice = await d.command("quiz", topic="team-ours")
        assert "ours question one?" in practice.text
        refused = await d.command("quiz", topic="team-theirs")
        assert "theirs question" not in refused.text
        assert "team-theirs" not in refused.text.split("team-theirs", 1)[-1]  # not offered

    chat.run(scenario)


def test_a_channel_chooses_our_pack_and_cannot_choose_another_workspaces(chat):
    async def scenario(d):
        store_packs(d)
        channel = await d.enable_channel()
        assert channel.packs == ("bank",)
        refused = await d.settings("admin", packs="bank,theirs")
        assert "Unknown pack 'theirs'" in refused.text
        assert d.stored_channel().packs == ("bank",)
        saved = await d.settings("admin", packs="ours")
        assert "Settings saved" in saved.text and "ours" in saved.text
        channel = d.stored_channel()
        assert channel.packs == ("ours",)
        post = await d.post_today(channel)
        assert "ours question one?" in post.text
        reset = await d.settings("admin", packs="")
        assert "Settings saved" in reset.text
        assert d.stored_channel().packs == ("bank",)

    chat.run(scenario)


def test_an_admin_previews_our_pack_and_a_member_is_told_it_is_for_admins(chat):
    async def scenario(d):
        store_packs(d)
        preview = await d.command("quiz", "admin", topic="ours")
        assert "Preview · pack ours" in preview.text
        assert "ours question one?" in preview.text
        refused = await d.command("quiz", "bob", topic="ours")
        assert "Only admins can preview a team pack" in refused.text
        assert "ours question" not in refused.text
        foreign = await d.command("quiz", "admin", topic="theirs")
        assert "Preview" not in foreign.text and "theirs question" not in foreign.text

    chat.run(scenario)
