"""A reveal due before the gateway has sent the server still goes into a thread.

Found by the soak run (tests/soak): a Discord process restarted after a round's closing time
closes the round in its start-up sweep, before the gateway's GUILD_CREATE. The post's partial
message then had no guild, discord.py's ``create_thread`` raised ValueError, the reveal was
lost (the buttons already gone) and the log got a traceback.
"""

from __future__ import annotations

import logging

from tests.adapters.chat.discord_driver import DiscordDriver
from tests.fake_discord import GUILD_ID


def test_a_reveal_before_the_server_is_cached_goes_into_a_thread(tmp_path, zygote, caplog):
    caplog.set_level(logging.INFO)

    async def scenario(d):
        post = await d.todays_post("t.choice-view")
        await d.click(post, post.choice("B"), "alice")
        await d.settle()
        d.clock.advance(hours=24)
        # As at start-up: the gateway has not sent the server yet, so nothing of it is cached.
        d.bot._connection._guilds.pop(GUILD_ID)
        assert d.bot.get_channel(int(d.channel_id("general"))) is None
        await d.close_due()
        reveal = d.thread_of(post)
        assert len(reveal) == 1 and f"Answer: {post.letter('B')}. reshape" in reveal[0].text
        assert d.current(post).buttons == ()

    DiscordDriver(tmp_path, zygote).run(scenario)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
