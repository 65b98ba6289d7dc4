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
