"""TORCHQUIZ_DISCORD_SHARDS: which shards a process runs, and where Discord sends a server."""

import pytest

from bot.adapters.discord.sharding import Shards, parse_shards, shard_of


@pytest.mark.parametrize("text, shards", [
    ("", None), ("  ", None), ("0/1", Shards((0,), 1)), ("0,1/4", Shards((0, 1), 4)),
    (" 3 , 1 /4 ", Shards((1, 3), 4)), ("1,1/2", Shards((1,), 2)),
])
def test_a_shard_setting_reads_as_ids_of_a_total(text, shards):
    assert parse_shards(text) == shards


@pytest.mark.parametrize("text", ["2/2", "0,1", "a/b", "0/0", "1/99999", "-1/2", "0/2/4",
                                  "0;1/2", "1" * 50])
def test_a_shard_setting_that_is_not_ids_below_the_total_is_refused(text):
    with pytest.raises(ValueError, match="TORCHQUIZ_DISCORD_SHARDS"):
        parse_shards(text)


def test_only_the_process_with_shard_zero_registers_the_commands():
    assert Shards((0, 2), 4).syncs_commands
    assert not Shards((1, 3), 4).syncs_commands


def test_a_server_goes_to_the_shard_discord_documents():
    # Discord: shard_id = (guild_id >> 22) % num_shards
    assert shard_of(41771983423143937, 4) == (41771983423143937 >> 22) % 4
    assert {shard_of((n << 22), 2) for n in range(4)} == {0, 1}
