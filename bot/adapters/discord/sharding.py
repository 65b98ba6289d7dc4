"""Which gateway shards one Discord process runs: ``TORCHQUIZ_DISCORD_SHARDS``.

Discord wants a shard per ~2,500 servers, and a server's events go to the shard
``(guild_id >> 22) % shard_count``. ``0,1/4`` gives this process shards 0 and 1 of 4, so four
processes (or pods: a StatefulSet's ordinal picks its shards) each connect a part; every
server's interactions reach exactly one of them. Daily posts need no routing: REST reaches any
channel, and the database's claims keep each post once whichever process makes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_SHARDS = 4096
_SPEC = re.compile(r"\s*([0-9]{1,4}(?:\s*,\s*[0-9]{1,4})*)\s*/\s*([0-9]{1,4})\s*")


@dataclass(frozen=True)
class Shards:
    """The shard ids this process connects, of ``count`` in all."""

    ids: tuple[int, ...]
    count: int

    @property
    def syncs_commands(self) -> bool:
        """Say whether this process registers the slash commands (the one that runs shard 0)."""
        return 0 in self.ids


def parse_shards(text: str) -> Shards | None:
    """Read ``0,1/4`` (ids / total); "" means all shards, as Discord suggests. Raise ValueError."""
    if not text.strip():
        return None
    match = _SPEC.fullmatch(text)
    if match is None:
        raise ValueError(f"TORCHQUIZ_DISCORD_SHARDS={text[:40]!r} is not IDS/TOTAL, "
                         "for example 0,1/4")
    count = int(match.group(2))
    ids = tuple(sorted({int(part) for part in match.group(1).split(",")}))
    if not 1 <= count <= MAX_SHARDS:
        raise ValueError(f"TORCHQUIZ_DISCORD_SHARDS: the total must be 1 to {MAX_SHARDS}")
    if ids[-1] >= count:
        raise ValueError(f"TORCHQUIZ_DISCORD_SHARDS: shard {ids[-1]} is not below the total "
                         f"{count} (shards are numbered from 0)")
    return Shards(ids, count)


def shard_of(guild_id: int, count: int) -> int:
    """Return the shard Discord sends a server's events to."""
    return (guild_id >> 22) % count
