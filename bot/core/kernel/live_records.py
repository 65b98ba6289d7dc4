"""Values of live sessions (bot/core/live): a session, its questions, players and answers.

Frozen and platform-neutral like the rest of bot.core.kernel.models, which re-exports them,
so storage (db/store_live.py) and the live feature share one definition.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from enum import StrEnum


class LiveStatus(StrEnum):
    """Where a live session stands; only ``ended`` frees its channel for another one."""

    LOBBY = "lobby"  # players join; the first question is posted at ``lobby_ends_at``
    RUNNING = "running"  # question ``current`` is open, or revealed and the next is due
    PAUSED = "paused"  # the host paused the open question: its time left is kept
    ENDING = "ending"  # the host or an admin ended it: the next advance posts the podium
    ENDED = "ended"


@dataclass(frozen=True)
class LiveSession:
    """One live session in one channel; at most one is not ended per channel."""

    id: int
    channel_id: int
    status: LiveStatus
    question_count: int
    current: int  # the position of the question posted last; -1 in the lobby
    lobby_ends_at: dt.datetime
    created_at: dt.datetime
    topics: tuple[str, ...] = ()  # what the host asked for (empty: the channel's choice)
    ended_at: dt.datetime | None = None
    counted: bool | None = None  # set at the end: enough human players to count on a board
    lobby_posted: bool = False  # the lobby post went out (claimed by one replica)
    paused_at: dt.datetime | None = None  # while paused: since when
    thread_ref: str | None = None  # the platform's thread the session posts in, once started


@dataclass(frozen=True)
class LiveQuestion:
    """A question drawn for a session; its times are set when it is posted and revealed."""

    session_id: int
    position: int  # 0-based
    item_id: str
    item_version: int
    seconds: int
    opened_at: dt.datetime | None = None
    closes_at: dt.datetime | None = None
    closed_at: dt.datetime | None = None


@dataclass(frozen=True)
class LivePlayer:
    """A member who joined a session (the host joins when opening it)."""

    session_id: int
    user_id: int
    display_name: str
    joined_at: dt.datetime
    host: bool = False
    hidden: bool = False  # kept off public boards (/privacy hidden): no name in the tables


@dataclass(frozen=True)
class LiveAnswer:
    """A player's one answer to one question of a session: (session, position, user) is unique.

    ``response`` is what was chosen: a choice option's stored key, or the folded text.
    """

    session_id: int
    position: int
    user_id: int
    response: str
    correct: bool
    points: int
    answered_at: dt.datetime
    elapsed_ms: int  # from the question's post to the answer
    display_name: str = ""
    hidden: bool = False  # the member keeps off public boards
    # A code answer is kept at once and graded by the sandbox before the reveal: until then
    # it is ``pending`` (not right, no points) and ``code`` holds the submission.
    pending: bool = False
    code: str | None = None


@dataclass(frozen=True)
class LiveDraft:
    """A session about to be opened: its channel, host, lobby and the questions drawn.

    ``questions`` holds (item id, item version, seconds) in the order they will be asked.
    """

    channel_id: int
    host_id: int
    created_at: dt.datetime
    lobby_ends_at: dt.datetime
    questions: tuple[tuple[str, int, int], ...]
    topics: tuple[str, ...] = ()
