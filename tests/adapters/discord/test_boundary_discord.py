"""A /quiz-settings channel Discord cannot vouch for is refused clearly; nothing is stored."""

import logging

from tests.fake_discord import RANDOM

UNKNOWN = 900000000000000999  # not a channel of the server


def test_settings_for_a_channel_not_in_the_server_are_refused_and_nothing_stored(
        discord_run, caplog):
    async def scenario(h):
        with caplog.at_level(logging.WARNING):
            shown = await h.done(await h.fake.slash("quiz-settings", "admin", channel=UNKNOWN,
                                                    enabled=True))
        assert "Nothing was saved" in shown.text()
        assert h.quiz.rounds.find_channel("discord", str(UNKNOWN)) is None
        assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]

    discord_run(scenario)


def test_settings_for_a_text_channel_of_the_server_are_saved(discord_run):
    async def scenario(h):
        shown = await h.done(await h.fake.slash("quiz-settings", "admin", channel=RANDOM,
                                                enabled=True))
        assert "Settings saved" in shown.text()
        assert h.quiz.rounds.find_channel("discord", str(RANDOM)) is not None

    discord_run(scenario)


def test_commands_faster_than_the_limit_get_a_clear_private_reply(discord_run, monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_RATE_COMMANDS_PER_10S", "2")

    async def scenario(h):
        for _ in range(2):
            shown = await h.done(await h.fake.slash("explain", "alice", topic="detach"))
            assert "detach()" in shown.text()
        limited = await h.done(await h.fake.slash("explain", "alice", topic="detach"))
        assert "a lot of commands at once; try again in" in limited.text()
        other = await h.done(await h.fake.slash("explain", "bob", topic="detach"))
        assert "detach()" in other.text()

    discord_run(scenario)
