"""Map the quiz's state onto tables: SQLAlchemy 2 declarative models, portable to SQLite and PG."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    Time,
    TypeDecorator,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Named constraints keep Alembic's autogenerate and SQLite batch migrations deterministic.
NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

RESPONSE_MAX_CHARS = 2000


class UtcDateTime(TypeDecorator[dt.datetime]):
    """Store aware datetimes as UTC and always read them back as aware UTC.

    SQLite keeps no offset, so values are normalised to UTC on the way in (which also keeps its
    text comparisons ordered) and tagged as UTC on the way out: the one place that knows.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        """Reject naive datetimes and convert aware ones to UTC."""
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: storage takes aware UTC datetimes only")
        return value.astimezone(dt.UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> dt.datetime | None:
        """Return the stored instant as an aware UTC datetime."""
        if value is None:
            return None
        if not isinstance(value, dt.datetime):
            raise TypeError(f"expected a datetime from the database, got {value!r}")
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


class Base(DeclarativeBase):
    """Declarative base holding the shared metadata and its naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class WorkspaceRow(Base):
    """A Discord guild, Slack workspace or the console: the home of channels."""

    __tablename__ = "workspaces"
    __table_args__ = (UniqueConstraint("platform", "external_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform: Mapped[str] = mapped_column(String(32))
    external_id: Mapped[str] = mapped_column(String(128))


class ChannelRow(Base):
    """A team channel with its schedule, language and content choice."""

    __tablename__ = "channels"
    __table_args__ = (UniqueConstraint("platform", "external_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform: Mapped[str] = mapped_column(String(32))
    external_id: Mapped[str] = mapped_column(String(128))
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    post_time: Mapped[dt.time] = mapped_column(Time)
    timezone: Mapped[str] = mapped_column(String(64))
    locale: Mapped[str] = mapped_column(String(16))
    # JSON lists: small, read whole, never queried inside; portable to SQLite and PostgreSQL.
    topics: Mapped[list[str]] = mapped_column(JSON)
    difficulties: Mapped[list[int]] = mapped_column(JSON)
    # The packs the channel draws from ("bank": the shipped bank), by id (migration 0012).
    packs: Mapped[list[str]] = mapped_column(JSON, server_default=text("'[\"bank\"]'"))
    enabled: Mapped[bool] = mapped_column(Boolean)
    leaderboard_weekday: Mapped[int] = mapped_column(Integer)
    leaderboard_hour: Mapped[int] = mapped_column(Integer)
    round_hours: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    # Whether a member who is no admin may host a live session here (migration 0023).
    live_anyone: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Whether a counted live session's points go on the weekly board too (migration 0028).
    live_on_board: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The kinds of question its daily rounds draw, in ROUND_KINDS order (migration 0029).
    kinds: Mapped[list[str]] = mapped_column(
        JSON, server_default=text("'[\"choice\", \"text\", \"code\"]'"))


class UserRow(Base):
    """A member on one platform."""

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("platform", "external_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform: Mapped[str] = mapped_column(String(32))
    external_id: Mapped[str] = mapped_column(String(128))
    display_name: Mapped[str] = mapped_column(String(200))
    # Off the public boards (still scored); indexed so a board counts its few hidden members.
    hidden: Mapped[bool] = mapped_column(
        Boolean, index=True, default=False, server_default=false()
    )


class RoundRow(Base):
    """One channel's question for one local date; the unique key is what replicas claim."""

    __tablename__ = "rounds"
    __table_args__ = (
        UniqueConstraint("channel_id", "local_date"),
        # due_rounds scans open rounds by closing time.
        Index("ix_rounds_status_closes_at", "status", "closes_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"))
    local_date: Mapped[dt.date] = mapped_column(Date)
    item_id: Mapped[str] = mapped_column(String(128))
    item_version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    opened_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    closes_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    closed_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)
    message_ref: Mapped[str | None] = mapped_column(String(255))  # the platform's, once posted
    # When a replica claimed the round's post; null once posted (or never claimed).
    post_claimed_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)


class AnswerRow(Base):
    """One attempt of one member at one round.

    A member who asks to be forgotten while a round is open leaves their tries at it behind as
    anonymous facts (migration 0013): ``user_id`` null, a text or code response blanked, and
    ``forgotten_mark`` (db/store_members.py: a one-way hash of the round and the person) kept
    only until the round closes, so that the same person cannot start the round over.
    """

    __tablename__ = "answers"
    __table_args__ = (UniqueConstraint("round_id", "user_id", "attempt"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    # item_results and solved_dates start from the member; null: a forgotten member's try.
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    forgotten_mark: Mapped[str | None] = mapped_column(String(64), index=True)
    attempt: Mapped[int] = mapped_column(Integer)
    mode: Mapped[str] = mapped_column(String(16))
    response: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    points: Mapped[int] = mapped_column(Integer)
    verdict_status: Mapped[str | None] = mapped_column(String(32))
    submitted_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)


class PendingAnswerRow(Base):
    """A code answer waiting for an executor; a bot replica claims it while grading it."""

    __tablename__ = "pending_answers"
    # claim_pending looks for a member's oldest pending answer to a round.
    __table_args__ = (Index("ix_pending_answers_round_id_user_id", "round_id", "user_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    mode: Mapped[str] = mapped_column(String(16))
    response: Mapped[str] = mapped_column(Text)  # the whole code, as sent
    locale: Mapped[str] = mapped_column(String(16))
    submitted_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    claim: Mapped[str | None] = mapped_column(String(64))
    claimed_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)


class PracticeSessionRow(Base):
    """The practice question a member is answering now (at most one per member)."""

    __tablename__ = "practice_sessions"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(128))
    item_version: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    attempts: Mapped[int] = mapped_column(Integer)


class PracticeResultRow(Base):
    """The outcome of one finished practice question."""

    __tablename__ = "practice_results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    item_id: Mapped[str] = mapped_column(String(128))
    item_version: Mapped[int] = mapped_column(Integer)
    correct: Mapped[bool] = mapped_column(Boolean)
    answered_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    # Right with no wrong try before; null for results stored before tries were kept (0014).
    first_try: Mapped[bool | None] = mapped_column(Boolean, nullable=True)


class ReviewRow(Base):
    """Spaced-repetition state of one item for one member."""

    __tablename__ = "reviews"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    # The FSRS card (migration 0006 turned the Leitner boxes into these).
    state: Mapped[int] = mapped_column(Integer)
    step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    stability: Mapped[float | None] = mapped_column(Float, nullable=True)
    difficulty: Mapped[float | None] = mapped_column(Float, nullable=True)
    due_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    last_correct: Mapped[bool] = mapped_column(Boolean)
    reviewed_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime, nullable=True)


class ScoreTotalRow(Base):
    """A member's all-time totals in a channel, kept in the transaction of every answer.

    The columns are the leaderboard's ScoreRow over every answer of the channel; migration 0002
    backfilled them, and tests compare them with a recomputation from the answers.
    """

    __tablename__ = "score_totals"
    __table_args__ = (
        # The board reads a channel's best totals first: points, then rounds solved.
        Index("ix_score_totals_channel_id_points_solved", "channel_id", "points", "solved"),
    )

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    points: Mapped[int] = mapped_column(Integer)
    solved: Mapped[int] = mapped_column(Integer)  # rounds with a right answer
    first_try: Mapped[int] = mapped_column(Integer)  # right answers on the first attempt
    attempted: Mapped[int] = mapped_column(Integer)  # rounds answered at all
    last_solved_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)
    # The member's streak right after the latest round they solved here (migration 0015,
    # bot.core.kernel.streaks.StreakAnchor): the local date of that round, how many of the
    # channel's rounds were dated up to it, and the streak state the walk had reached there.
    # Null date: never solved a round of the channel.
    streak_on: Mapped[dt.date | None] = mapped_column(Date, nullable=True)
    streak_through: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    streak: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    best_streak: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    freezes: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    toward_freeze: Mapped[int] = mapped_column(Integer, server_default=text("0"))


class WeekTotalRow(Base):
    """A member's totals in a channel for one leaderboard week, kept like ScoreTotalRow.

    ``week_start`` is Monday 00:00 in the channel's zone as UTC
    (bot.core.kernel.models.week_start) of each answer's submission. A change of the channel's
    zone rebuilds the current week's rows;
    earlier weeks stay as they were counted.
    """

    __tablename__ = "week_totals"
    __table_args__ = (
        Index(
            "ix_week_totals_channel_id_week_start_points_solved",
            "channel_id",
            "week_start",
            "points",
            "solved",
        ),
    )

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), primary_key=True)
    week_start: Mapped[dt.datetime] = mapped_column(UtcDateTime, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    points: Mapped[int] = mapped_column(Integer)
    solved: Mapped[int] = mapped_column(Integer)
    first_try: Mapped[int] = mapped_column(Integer)
    attempted: Mapped[int] = mapped_column(Integer)
    last_solved_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)


class ItemTotalRow(Base):
    """A channel's daily answers per item, counted by member-round: /stats team's mastery.

    Kept in the transaction of every answer like ScoreTotalRow (migration 0016 backfilled it);
    forgetting a member recounts the channels they answered in from the answers left.
    """

    __tablename__ = "item_totals"

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    answered: Mapped[int] = mapped_column(Integer)  # member-rounds with any answer
    solved: Mapped[int] = mapped_column(Integer)  # member-rounds with a right answer
    first_try: Mapped[int] = mapped_column(Integer)  # member-rounds right on the first attempt


class ItemTopicRow(Base):
    """The content bank's topics of each question id, as data the totals below join on.

    Written only by SqlStore.sync_item_topics from the library's ``topics_of()`` (the core
    decides what an item covers; the store keeps the pairs). Migration 0030.
    """

    __tablename__ = "item_topics"

    item_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    topic: Mapped[str] = mapped_column(String(64), primary_key=True)


class TopicRecountRow(Base):
    """An (item, topic) pair whose change the per-topic totals have yet to be counted for.

    Written in the transaction that changes item_topics and removed once the channels'
    totals on the topic are counted again: a process that dies between the two leaves it
    here, and the next sync_item_topics finishes the count. Migration 0030.
    """

    __tablename__ = "topic_recounts"

    item_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    topic: Mapped[str] = mapped_column(String(64), primary_key=True)


class TopicTotalRow(Base):
    """A member's all-time totals in a channel on one topic: the per-topic board's rows.

    The columns are ScoreTotalRow's over the channel's rounds whose item covers ``topic``
    (item_topics), kept in the transaction of every answer; a question of several topics
    counts for each. Forgetting a member deletes their rows; a change of item_topics recounts
    the topics it touches from the answers (migration 0030).
    """

    __tablename__ = "topic_totals"
    __table_args__ = (
        # The topic board reads a channel's best totals on a topic first.
        Index("ix_topic_totals_channel_id_topic_points_solved",
              "channel_id", "topic", "points", "solved"),
    )

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), primary_key=True)
    topic: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    points: Mapped[int] = mapped_column(Integer)
    solved: Mapped[int] = mapped_column(Integer)
    first_try: Mapped[int] = mapped_column(Integer)
    attempted: Mapped[int] = mapped_column(Integer)
    last_solved_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)


class ReportRow(Base):
    """A member's report of one question version; one per (member, item, version)."""

    __tablename__ = "reports"
    __table_args__ = (
        UniqueConstraint("user_id", "item_id", "item_version"),
        # Analytics and the admin list read open reports per item.
        Index("ix_reports_status_item_id", "status", "item_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    item_id: Mapped[str] = mapped_column(String(128))
    item_version: Mapped[int] = mapped_column(Integer)
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"), nullable=True)
    reason: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(Text)  # the member's words, capped; shown only inert
    platform: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(128))  # the platform's id, where filed
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    closed_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime, nullable=True)
    close_reason: Mapped[str | None] = mapped_column(Text, nullable=True)


class PausedItemRow(Base):
    """An item version kept out of every channel's daily pick (``suspect_key``), until unpaused.

    Written when the item statistics find the flag; an admin's unpause stamps ``unpaused_at``
    and the row stays, so the same version is not paused again by the same evidence. A new
    version of the item (a fixed question) has no row and starts clean.
    """

    __tablename__ = "paused_items"

    item_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    item_version: Mapped[int] = mapped_column(Integer, primary_key=True)
    reason: Mapped[str] = mapped_column(String(32))
    paused_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    unpaused_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)


class ReminderRow(Base):
    """A member's opt-in to a daily private nudge when reviews are due (one per member)."""

    __tablename__ = "reminders"
    __table_args__ = (
        # The minute's fan-out reads a platform's enabled reminders whose time came.
        Index("ix_reminders_platform_enabled_next_at", "platform", "enabled", "next_at"),
        # A private command asks, by the platform's ids, whether the member is to be told
        # something (their reminder was turned off): the users table's key, one row each.
        UniqueConstraint("platform", "member_external_id"),
    )

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    platform: Mapped[str] = mapped_column(String(32))
    member_external_id: Mapped[str] = mapped_column(String(128))  # whom the DM goes to
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"))  # where they opted in
    local_time: Mapped[dt.time] = mapped_column(Time)
    timezone: Mapped[str] = mapped_column(String(64))  # the channel's, when they opted in
    enabled: Mapped[bool] = mapped_column(Boolean)
    next_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)  # the claim moves it on
    last_sent: Mapped[dt.date | None] = mapped_column(Date)  # local date of the last nudge
    snoozed_until: Mapped[dt.date | None] = mapped_column(Date)  # no nudge before this date
    stopped: Mapped[str | None] = mapped_column(String(32))  # why we turned it off
    notice: Mapped[bool] = mapped_column(Boolean)  # the member is still to be told why


class TeamPackRow(Base):
    """One version of a team's question pack, as uploaded (its YAML text is the source of truth).

    ``scope`` is ``PLATFORM:WORKSPACE`` for a workspace's own pack, ``*`` for every workspace of
    the deployment. Every version stays (answers name item ids plus versions, as for the bank);
    ``removed`` hides a pack from lists and draws without forgetting its history. A pack id
    belongs to one scope: its item ids (``p.<pack id>.<item>``) are global.
    """

    __tablename__ = "team_packs"
    __table_args__ = (UniqueConstraint("pack_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    pack_id: Mapped[str] = mapped_column(String(32), index=True)
    version: Mapped[int] = mapped_column(Integer)
    scope: Mapped[str] = mapped_column(String(300), index=True)
    title: Mapped[str] = mapped_column(String(200))
    locales: Mapped[list[str]] = mapped_column(JSON)
    text: Mapped[str] = mapped_column(Text)
    # The validated items as plain JSON: a start loads this (ten times faster than the YAML).
    document: Mapped[str] = mapped_column(Text)
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)


class WebSecretRow(Base):
    """The web page's signing secret when TORCHQUIZ_WEB_SECRET is unset: generated once, kept."""

    __tablename__ = "web_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class WebLinkRow(Base):
    """A one-time sign-in link asked for in chat: the SHA-256 of its token and whom it is for."""

    __tablename__ = "web_links"
    # The rate limit counts a member's recent links.
    __table_args__ = (Index("ix_web_links_platform_user_created_at", "platform", "user",
                            "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    platform: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(128))
    user: Mapped[str] = mapped_column(String(128))
    display_name: Mapped[str] = mapped_column(String(200))
    channel: Mapped[str] = mapped_column(String(128))
    locale: Mapped[str] = mapped_column(String(16))
    is_admin: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)


class WebSessionRow(Base):
    """A signed-in browser (server-side: deleting the row ends it), with its CSRF token."""

    __tablename__ = "web_sessions"
    __table_args__ = (Index("ix_web_sessions_platform_user", "platform", "user"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    platform: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(128))
    user: Mapped[str] = mapped_column(String(128))
    display_name: Mapped[str] = mapped_column(String(200))
    channel: Mapped[str] = mapped_column(String(128))
    locale: Mapped[str] = mapped_column(String(16))
    is_admin: Mapped[bool] = mapped_column(Boolean)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)


class LiveSessionRow(Base):
    """A live session in a channel (bot/core/live): its lobby, where it is, how it ended.

    ``active_channel_id`` is the channel's id while the session has not ended and null after:
    its unique key lets one session at a time run in a channel, whichever replica opens it.
    """

    __tablename__ = "live_sessions"
    __table_args__ = (
        UniqueConstraint("active_channel_id"),
        Index("ix_live_sessions_status", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), index=True)
    active_channel_id: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    question_count: Mapped[int] = mapped_column(Integer)
    current: Mapped[int] = mapped_column(Integer)  # -1 in the lobby
    topics: Mapped[list[str]] = mapped_column(JSON)  # what the host asked for
    lobby_ends_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    ended_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)
    counted: Mapped[bool | None] = mapped_column(Boolean)  # enough players for a board
    # Its points were added to the weekly totals when it ended (migration 0028): a change of
    # the channel's zone recounts them with the daily answers.
    on_board: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    lobby_posted: Mapped[bool] = mapped_column(Boolean)  # claimed by the replica that posts it
    # While paused: since when, and the open question's time left (its deadline on resume).
    paused_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)
    paused_left_ms: Mapped[int | None] = mapped_column(Integer)
    # The thread started on the lobby post, where the questions, reveals and final board go
    # (migration 0028); null on the console, and again once the thread is gone.
    thread_ref: Mapped[str | None] = mapped_column(String(128))


class LiveQuestionRow(Base):
    """A question drawn for a live session; posted and revealed by its times."""

    __tablename__ = "live_questions"

    session_id: Mapped[int] = mapped_column(ForeignKey("live_sessions.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[str] = mapped_column(String(128))
    item_version: Mapped[int] = mapped_column(Integer)
    seconds: Mapped[int] = mapped_column(Integer)
    opened_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)
    closes_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)
    closed_at: Mapped[dt.datetime | None] = mapped_column(UtcDateTime)


class LivePlayerRow(Base):
    """A member who joined a live session (the host is one, marked)."""

    __tablename__ = "live_players"

    session_id: Mapped[int] = mapped_column(ForeignKey("live_sessions.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    joined_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    host: Mapped[bool] = mapped_column(Boolean)


class LiveAnswerRow(Base):
    """A player's one answer to one question of a live session, kept apart from daily answers.

    The table is the answer's "live" tag: the item statistics (p-values) read ``answers``
    only, so answers given under a countdown never move them.
    """

    __tablename__ = "live_answers"
    __table_args__ = (UniqueConstraint("session_id", "position", "user_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("live_sessions.id"))
    position: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    response: Mapped[str] = mapped_column(String(RESPONSE_MAX_CHARS))
    correct: Mapped[bool] = mapped_column(Boolean)
    points: Mapped[int] = mapped_column(Integer)
    answered_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    elapsed_ms: Mapped[int] = mapped_column(Integer)
    # A code answer: the submission, and whether the sandbox has yet to grade it (migration
    # 0028); graded before its question's reveal.
    code: Mapped[str | None] = mapped_column(Text)
    pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class SettingsStampRow(Base):
    """One row whose version moves on with every settings change (schedulers poll it)."""

    __tablename__ = "settings_stamps"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    version: Mapped[int] = mapped_column(Integer)


class AdminChangeRow(Base):
    """One change an admin made, from chat or the web page: who, what, when, before and after."""

    __tablename__ = "admin_changes"
    __table_args__ = (Index("ix_admin_changes_platform_workspace_at", "platform", "workspace",
                            "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(128))
    actor: Mapped[str] = mapped_column(String(128))
    actor_name: Mapped[str] = mapped_column(String(200))
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(200))
    before: Mapped[str] = mapped_column(Text)
    after: Mapped[str] = mapped_column(Text)
    at: Mapped[dt.datetime] = mapped_column(UtcDateTime)


class BoardPostRow(Base):
    """A channel's weekly leaderboard post, claimed once per week (migration 0025).

    The primary key decides which replica posts the week's board: every replica's scheduler
    fires at the board's hour, and only the one whose insert wins posts it.
    """

    __tablename__ = "board_posts"

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), primary_key=True)
    # Monday 00:00 in the channel's zone, as UTC (bot.core.kernel.models.week_start).
    week_start: Mapped[dt.datetime] = mapped_column(UtcDateTime, primary_key=True)
    claimed_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)


class PublishedBoardRow(Base):
    """A channel's board published at an unguessable link by an admin (migration 0027).

    One link per channel: publishing again replaces it, withdrawing deletes the row, and the
    old link then finds nothing. The token is kept as it is, so the admin's desk can show the
    link again: it opens a read-only page of what the board shows anyway, nothing more.
    """

    __tablename__ = "published_boards"

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id"), primary_key=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    published_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)


class SpeedOpenRow(Base):
    """The speed challenge a member was last served (``/quiz speed``), one per member (0026)."""

    __tablename__ = "speed_open"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(128))
    item_version: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)


class SpeedVerdictRow(Base):
    """One speed verdict of a member (migration 0026): what a board ranks, once released.

    ``status``: released (ranked when faster), pending (held for an admin), rejected.
    ``workspace`` is the asking workspace's scope (``PLATFORM:ID``); ``channel_id`` the quiz
    channel it was asked in (NULL outside one). ``shapes``: the per-shape figures as JSON
    (shape, speedup, low, high), read whole, never queried inside.
    """

    __tablename__ = "speed_verdicts"
    __table_args__ = (
        Index("ix_speed_verdicts_item_id_channel_id", "item_id", "channel_id"),
        Index("ix_speed_verdicts_workspace_status", "workspace", "status"),
        # A daily speed round's verdict is kept once per try (migration 0029); NULLs (practice)
        # never collide.
        Index("ux_speed_verdicts_round_id_user_id_attempt", "round_id", "user_id", "attempt",
              unique=True),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    channel_id: Mapped[int | None] = mapped_column(ForeignKey("channels.id"), nullable=True)
    workspace: Mapped[str] = mapped_column(String(200))
    item_id: Mapped[str] = mapped_column(String(128))
    item_version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))
    faster: Mapped[bool] = mapped_column(Boolean)
    held: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[float] = mapped_column(Float)
    shapes: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime)
    # The daily speed round it answered and the member's try at it (migration 0029); NULL for
    # practice (/quiz speed). No foreign key: a column added in place on SQLite.
    round_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    attempt: Mapped[int | None] = mapped_column(Integer, nullable=True)
