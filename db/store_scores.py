"""Read scores, streak dates and outcomes: the boards from the stored totals, stats, recounts."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Select,
    Table,
    and_,
    bindparam,
    case,
    cast,
    delete,
    distinct,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    true,
    tuple_,
    union_all,
)
from sqlalchemy.orm import aliased

from bot.core.kernel.models import (
    AnsweredTry,
    BoardRead,
    ItemResult,
    MemberRead,
    Round,
    RoundStatus,
    ScoreRow,
    StreakAnchor,
    StreakState,
    Tally,
)
from db.retry import retry_on_disconnect
from db.store_answers import TotalsTable, lock_channel_answers
from db.store_base import StoreBase, batches
from db.tables import (
    AnswerRow,
    ItemTopicRow,
    ItemTotalRow,
    PracticeResultRow,
    ReviewRow,
    RoundRow,
    ScoreTotalRow,
    TopicRecountRow,
    TopicTotalRow,
    UserRow,
    WeekTotalRow,
)

# A query's IN list stays well below SQLite's limit on bound parameters.
_IN_CHUNK = 500
# Channels whose per-topic totals one transaction counts again (sync_item_topics).
_RECOUNT_CHANNELS = 100


def _score(row: Sequence[Any]) -> ScoreRow:
    """Return a (user_id, display_name, points, solved, first_try, last, attempted) row."""
    user_id, name, points, solved, first_try, last, attempted = row
    return ScoreRow(
        user_id=user_id,
        display_name=name,
        points=int(points),
        solved=solved,
        first_try=first_try,
        last_solved_at=last,
        attempted=attempted,
    )


def _totals_columns(table: TotalsTable | type[TopicTotalRow]) -> tuple[Any, ...]:
    return (
        table.user_id,
        UserRow.display_name,
        table.points,
        table.solved,
        table.first_try,
        table.last_solved_at,
        table.attempted,
    )


def _rank_key(row: Sequence[Any]) -> tuple[Any, ...]:
    """Return what decides a rank: points, rounds solved, last solve (not the name)."""
    return row[2], row[3], row[5]


class ScoreStore(StoreBase):
    """Scores, streak dates and outcomes of the QuizStore port."""

    def tally(self, round_id: int) -> Tally:
        """Return how many members solved and attempted the round."""
        [(solved, attempted)] = self._fetch(_TALLY, {"round_id": round_id})
        return Tally(solved=solved, attempted=attempted)

    def scores(self, channel_id: int, since: dt.datetime | None = None) -> list[ScoreRow]:
        """Return every member's points in the channel, for answers at or after ``since``.

        Rows come best first: points, then rounds solved, then who solved last the earliest,
        then member id, so ties always break the same way. This recounts every answer of the
        channel: it is the reference the stored totals are checked against, not a board's path.
        """
        points = func.sum(AnswerRow.points)
        solved = func.count(distinct(case((AnswerRow.correct, AnswerRow.round_id))))
        attempted = func.count(distinct(AnswerRow.round_id))
        first_try = func.count(case((and_(AnswerRow.correct, AnswerRow.attempt == 1), 1)))
        last_solved_at = func.max(case((AnswerRow.correct, AnswerRow.submitted_at)))
        stmt = (
            select(
                AnswerRow.user_id,
                UserRow.display_name,
                points,
                solved,
                first_try,
                last_solved_at,
                attempted,
            )
            .join(RoundRow, RoundRow.id == AnswerRow.round_id)
            .join(UserRow, UserRow.id == AnswerRow.user_id)
            .where(RoundRow.channel_id == channel_id)
            .group_by(AnswerRow.user_id, UserRow.display_name)
            .order_by(
                points.desc(), solved.desc(), last_solved_at.asc().nulls_last(), AnswerRow.user_id
            )
        )
        if since is not None:
            stmt = stmt.where(AnswerRow.submitted_at >= since)
        return [_score(row) for row in self._fetch(stmt)]

    @retry_on_disconnect
    def top_scores(
        self, channel_id: int, week_start: dt.datetime | None, limit: int | None
    ) -> list[ScoreRow]:
        """Return the leaderboard's rows from the stored totals, best first.

        Members with points whose competition rank is within ``limit`` (all when None), so
        everyone tied at the cut comes along; ``week_start``
        (bot.core.kernel.models.week_start of the channel's zone) picks that week's totals, None
        the all-time ones.
        """
        with self._reading() as connection:
            return _top(connection, channel_id, week_start, limit)

    @retry_on_disconnect
    def board_read(
        self, channel_id: int, week_start: dt.datetime | None, limit: int | None
    ) -> BoardRead:
        """Return what a leaderboard shows, in one statement (one round trip).

        The rows as ``top_scores``, each with its member's stored streak, the hidden members
        with points and the channel's rounds (how many, the latest): a few indexed lookups
        joined to a one-row head, none per member. A tie at the board's cut adds one read.
        """
        sql = _TOP[week_start is not None]
        params: dict[str, Any] = {"channel_id": channel_id, "week_start": week_start}
        with self._reading() as connection:
            if limit is None:
                rows = connection.execute(sql.board_every, params).all()
            else:
                rows = connection.execute(sql.board, {**params,
                                                       "limit": max(limit, 0) + 1}).all()
            head = rows[0]
            rounds = int(head.rounds)
            tops: list[Sequence[Any]] = [row[_HEAD:] for row in rows if row.user_id is not None]
            if limit is not None:
                tops = _cut(connection, sql, params, tops, max(limit, 0))
        latest = _latest_round(head) if head.latest_id is not None else None
        scores = [_score(row[:7]) for row in tops]
        anchors = {row[0]: _anchor(row[7:], rounds) for row in tops if row[7] is not None}
        return BoardRead(scores, int(head.hidden), rounds, latest, anchors)

    @retry_on_disconnect
    def topic_scores(self, channel_id: int, topic: str, limit: int | None = None
                     ) -> tuple[list[ScoreRow], int]:
        """Return the visible members' points on the channel's rounds of ``topic``.

        With them, how many hidden members have points there. One statement whatever the
        history, from the channel's topic_totals rows (one per member), best first: the
        members whose competition rank is within ``limit`` (a tie at the cut comes whole, so
        that the core orders it by name), every one when None. Equal to the head of
        ``topic_scores_recount`` of the topic's items while item_topics holds the library's
        topics (``sync_item_topics``).
        """
        params = {"channel_id": channel_id, "topic": topic,
                  "cut": max(limit, 1) - 1 if limit is not None else _NO_CUT}
        with self._reading() as connection:
            rows = connection.execute(_TOPIC_TOTALS, params).all()
        if limit is not None and limit <= 0:
            return [], int(rows[0].hidden)
        visible = [_score(row[1:8]) for row in rows if row.user_id is not None]
        return visible, int(rows[0].hidden)

    @retry_on_disconnect
    def topic_scores_recount(self, channel_id: int, item_ids: Collection[str]
                             ) -> tuple[list[ScoreRow], int]:
        """Return ``topic_scores`` recounted from the answers of the rounds of ``item_ids``.

        The per-topic board before topic_totals (0.8-1 s at a million answers): kept as the
        reference the tests hold the stored totals to. One statement, rows best first.
        """
        if not item_ids:
            return [], 0
        params = {"channel_id": channel_id, "items": sorted(set(item_ids))}
        with self._reading() as connection:
            rows = connection.execute(_TOPIC_SCORES, params).all()
        visible = [_score(row[:7]) for row in rows if not row[7]]
        return visible, sum(1 for row in rows if row[7])

    def sync_item_topics(self, topics_of: Mapping[str, Collection[str]]) -> int:
        """Store the library's topics of each question; recount the topics that changed.

        ``topics_of`` is the whole library's (``Library.topics_of()``). One read when nothing
        changed and nothing is owed. Otherwise the changed (item, topic) pairs are written
        and noted as owed in one transaction, so every answer recorded after it adds to the
        new pairs' totals; then the channels with a round of an owed item are taken in id
        order, a hundred a transaction (as a change of zone takes them: an answer in flight
        there finishes first), their totals on every owed topic are counted again from the
        answers, and the pairs are no longer owed. A process that dies before that leaves
        them owed, and the next call finishes the count. The first call after migration 0030
        counts every topic: the backfill. Returns the topics recounted.
        """
        wanted = {(item, topic) for item, topics in topics_of.items() for topic in topics}
        with self._read() as session:
            stored = {(item, topic) for item, topic in session.execute(
                select(ItemTopicRow.item_id, ItemTopicRow.topic))}
            owed = {(item, topic) for item, topic in session.execute(
                select(TopicRecountRow.item_id, TopicRecountRow.topic))}
        added, removed = sorted(wanted - stored), sorted(stored - wanted)
        if added or removed:
            with self._transaction() as session:
                for item, topic in removed:  # rare: a pack's new version changed its topics
                    session.execute(delete(ItemTopicRow).where(ItemTopicRow.item_id == item,
                                                               ItemTopicRow.topic == topic))
                if added:
                    session.execute(self._upsert(ItemTopicRow).on_conflict_do_nothing(),
                                    [{"item_id": item, "topic": topic} for item, topic in added])
                session.execute(self._upsert(TopicRecountRow).on_conflict_do_nothing(),
                                [{"item_id": item, "topic": topic}
                                 for item, topic in (*added, *removed)])
        pairs = sorted(owed.union(added, removed))
        if not pairs:
            return 0
        items = sorted({item for item, _ in pairs})
        topics = sorted({topic for _, topic in pairs})
        with self._read() as session:
            channels: set[int] = set()
            for item_chunk in batches(items):
                channels.update(session.scalars(
                    select(RoundRow.channel_id).where(RoundRow.item_id.in_(item_chunk))
                    .distinct()))
        # A transaction per slice of channels: each holds its channels' locks (one advisory
        # lock each on PostgreSQL, well within its lock table) only while it counts them.
        for channel_chunk in batches(sorted(channels), _RECOUNT_CHANNELS):
            with self._transaction() as session:
                for channel_id in channel_chunk:
                    lock_channel_answers(session, channel_id)
                session.execute(delete(TopicTotalRow).where(
                    TopicTotalRow.channel_id.in_(channel_chunk), TopicTotalRow.topic.in_(topics)))
                session.execute(insert(TopicTotalRow).from_select(
                    ["channel_id", "topic", "user_id", "points", "solved", "first_try",
                     "attempted", "last_solved_at"],
                    _TOPIC_RECOUNT.where(RoundRow.channel_id.in_(channel_chunk),
                                         ItemTopicRow.topic.in_(topics))))
        with self._transaction() as session:
            for pair_chunk in batches(pairs):
                session.execute(delete(TopicRecountRow).where(
                    tuple_(TopicRecountRow.item_id, TopicRecountRow.topic).in_(pair_chunk)))
        return len(topics)

    @retry_on_disconnect
    def member_read(
        self, channel_id: int, user_id: int, now: dt.datetime, week_start: dt.datetime
    ) -> MemberRead:
        """Return what /stats shows of the member in the channel, in two statements.

        One row: totals and stored streak, the channel's rounds (how many, the latest), and
        the member's place this week (``week_start``) and all time; then the outcomes per item
        and the cards due at ``now``.
        """
        params = {"channel_id": channel_id, "user_id": user_id, "now": now,
                  "week_start": week_start}
        with self._reading() as connection:
            head = connection.execute(_MEMBER_HEAD, params).one()
            outcomes = connection.execute(_MEMBER_OUTCOMES, params).all()
        rounds = int(head.rounds)
        latest = _latest_round(head) if head.latest_id is not None else None
        mine = head[1 + len(_LATEST_COLUMNS):]
        score = _score(mine[:7]) if head.user_id is not None else None
        anchor = _anchor(mine[7:14], rounds) if score and head.streak_on is not None else None
        results = [(item, int(answered), int(solved or 0), int(first or 0))
                   for kind, item, answered, solved, first, _ in outcomes if kind != _DUE_KIND]
        due = [item for kind, item, *_ in outcomes if kind == _DUE_KIND]
        hidden = int(bool(head.member_hidden))
        ranks = [
            (int(ahead) + 1, int(visible) + hidden) if score and points and points > 0 else None
            for points, visible, ahead in ((head.week_points, head.week_visible, head.week_ahead),
                                           (head.points, head.all_visible, head.all_ahead))
        ]
        return MemberRead(score, anchor, rounds, latest, results, due, ranks[0], ranks[1])

    @retry_on_disconnect
    def hidden_with_points(self, channel_id: int, week_start: dt.datetime | None) -> int:
        """Return how many hidden members have points on the board of that period."""
        sql = _TOP[week_start is not None]
        [(count,)] = self._fetch(sql.hidden, {"channel_id": channel_id, "week_start": week_start})
        return int(count)

    @retry_on_disconnect
    def member_rank(
        self, channel_id: int, user_id: int, week_start: dt.datetime | None
    ) -> tuple[int, int] | None:
        """Return the member's competition rank among the visible members, and of how many.

        A hidden member gets the place they would take among the visible ones (and counts in
        "of"); None when the member has no points in the period. Two small reads.
        """
        with self._reading() as connection:
            return _place(connection, channel_id, user_id, week_start)

    @retry_on_disconnect
    def due_review_items(self, user_id: int, now: dt.datetime) -> list[str]:
        """Return the items whose FSRS card is due for the member at ``now``, soonest first."""
        return [item for (item,) in self._fetch(_DUE, {"user_id": user_id, "now": now})]

    @retry_on_disconnect
    def channel_item_results(self, channel_id: int) -> list[tuple[str, int, int, int]]:
        """Return (item, answered, solved, first try) over the channel's member-rounds per item.

        The counts kept with every answer (item_totals); a member's round counts as solved
        when any attempt was right, and as right on the first try when attempt 1 was.
        """
        rows = self._fetch(_ITEM_TOTALS, {"channel_id": channel_id})
        return [(item, int(answered), int(solved or 0), int(first or 0))
                for item, answered, solved, first in rows]

    def member_score(self, channel_id: int, user_id: int) -> ScoreRow | None:
        """Return the member's all-time totals in the channel, if they ever answered there."""
        rows = self._fetch(_MEMBER_SCORE, {"channel_id": channel_id, "user_id": user_id})
        return _score(rows[0]) if rows else None

    def solved_dates(self, channel_id: int, user_id: int) -> list[dt.date]:
        """Return the local dates of rounds the member solved, oldest first."""
        rows = self._fetch(
            _SOLVED_DATES, {"channel_id": channel_id, "user_ids": [user_id], "since": None}
        )
        return [day for _, day in rows]

    @retry_on_disconnect
    def recent_solved_dates(
        self, channel_id: int, user_ids: Collection[int], since: dt.date | None
    ) -> dict[int, list[dt.date]]:
        """Return the local dates of rounds from ``since`` on that each member solved.

        One query for all members (per few hundred); members who solved none are left out.
        """
        found: dict[int, list[dt.date]] = {}
        ids = sorted(set(user_ids))
        stmt = _SOLVED_DATES if since is None else _SOLVED_DATES_SINCE
        with self._reading() as connection:
            for start in range(0, len(ids), _IN_CHUNK):
                chunk = {"channel_id": channel_id, "user_ids": ids[start : start + _IN_CHUNK]}
                for user_id, day in connection.execute(stmt, {**chunk, "since": since}):
                    if user_id is not None:  # always: the statement names its members
                        found.setdefault(user_id, []).append(day)
        return found

    @retry_on_disconnect
    def streak_history(
        self, channel_id: int, user_ids: Collection[int]
    ) -> tuple[list[dt.date], dict[int, list[dt.date]]]:
        """Return the channel's round dates and each member's solved rounds' dates.

        Every round of the channel, left-joined to the members' solves of it: one statement
        per few hundred members (a stale stored streak is walked again from these).
        """
        ids = sorted(set(user_ids))
        dates: list[dt.date] = []
        found: dict[int, list[dt.date]] = {}
        with self._reading() as connection:
            for start in range(0, max(len(ids), 1), _IN_CHUNK):
                chunk = {"channel_id": channel_id, "user_ids": ids[start : start + _IN_CHUNK]}
                days: list[dt.date] = []
                for day, user_id in connection.execute(_STREAK_HISTORY, chunk):
                    if not days or days[-1] != day:
                        days.append(day)
                    if user_id is not None:
                        found.setdefault(user_id, []).append(day)
                dates = days
        return dates, found

    @retry_on_disconnect
    def answer_history(self, channel_id: int, user_id: int, offset: int,
                       limit: int) -> list[AnsweredTry]:
        """Return the member's tries at the channel's rounds, newest first: one statement."""
        params = {"channel_id": channel_id, "user_id": user_id, "offset": offset,
                  "limit": limit}
        with self._reading() as connection:
            return [AnsweredTry(round_id=r[0], local_date=r[1], item_id=r[2], attempt=r[3],
                                response=r[4], correct=bool(r[5]),
                                round_open=r[6] == RoundStatus.OPEN.value, submitted_at=r[7])
                    for r in connection.execute(_ANSWER_HISTORY, params)]

    @retry_on_disconnect
    def item_results(self, user_id: int, channel_id: int | None = None) -> list[ItemResult]:
        """Return the member's final outcome per daily round and practice answer.

        A daily round counts as correct when any attempt was, at the time of the last attempt,
        and carries whether its first attempt was right. ``channel_id`` narrows the daily
        rounds; practice is not tied to a channel, so practice results are always included
        (``first_try`` None for those stored before their tries were kept). Oldest first.
        """
        with self._reading() as connection:
            return _item_results(connection, user_id, channel_id)


def _top(connection: Connection, channel_id: int, week_start: dt.datetime | None,
         limit: int | None) -> list[ScoreRow]:
    """Return ``top_scores`` read on ``connection``."""
    if limit is not None and limit <= 0:
        return []
    sql = _TOP[week_start is not None]
    params: dict[str, Any] = {"channel_id": channel_id, "week_start": week_start}
    if limit is None:
        return [_score(row) for row in connection.execute(sql.every, params)]
    rows = connection.execute(sql.best, {**params, "limit": limit + 1}).all()
    if len(rows) <= limit or _rank_key(rows[limit]) != _rank_key(rows[limit - 1]):
        return [_score(row) for row in rows[:limit]]
    # The cut falls inside a tie: the whole tie shares the last rank, so all of it comes (the
    # core orders a tie by name, which SQL cannot fold like Python).
    points, solved, last = _rank_key(rows[limit - 1])
    tied = connection.execute(
        sql.tied_unsolved if last is None else sql.tied,
        {**params, "points": points, "solved": solved, "last": last},
    ).all()
    shown = {row[0] for row in rows[:limit]}
    return [_score(row) for row in [*rows[:limit], *(r for r in tied if r[0] not in shown)]]


def _place(connection: Connection, channel_id: int, user_id: int,
           week_start: dt.datetime | None) -> tuple[int, int] | None:
    """Return ``member_rank`` read on ``connection``."""
    sql = _TOP[week_start is not None]
    params: dict[str, Any] = {"channel_id": channel_id, "week_start": week_start,
                              "user_id": user_id}
    mine = connection.execute(sql.points_of, params).first()
    if mine is None:
        return None
    _, _, points, solved, _, last, _, hidden = mine
    mark = {**params, "points": points, "solved": solved, "last": last}
    visible, ahead = connection.execute(
        sql.place_unsolved if last is None else sql.place, mark).one()
    return int(ahead) + 1, int(visible) + int(bool(hidden))


def _item_results(connection: Connection, user_id: int,
                  channel_id: int | None) -> list[ItemResult]:
    """Return ``item_results`` read on ``connection``."""
    daily = _DAILY_RESULTS if channel_id is None else _DAILY_RESULTS_IN
    params = {"user_id": user_id, "channel_id": channel_id}
    results = [ItemResult(item_id=i, correct=bool(ok), answered_at=at, first_try=bool(first))
               for i, ok, first, at in connection.execute(daily, params)]
    results += [ItemResult(item_id=i, correct=bool(ok), answered_at=at,
                           first_try=None if first is None else bool(first))
                for i, ok, first, at in connection.execute(_PRACTICE, params)]
    return sorted(results, key=lambda r: (r.answered_at, r.item_id))


def _cut(connection: Connection, sql: _TopQueries, params: dict[str, Any],
         rows: list[Sequence[Any]], limit: int) -> list[Sequence[Any]]:
    """Return the board's ``limit`` first rows, and all of a tie that the cut falls inside.

    ``rows``: up to ``limit`` + 1 rows best first, as the board statement returns them.
    """
    if limit <= 0:
        return []
    if len(rows) <= limit or _rank_key(rows[limit]) != _rank_key(rows[limit - 1]):
        return rows[:limit]
    # The whole tie shares the last rank, so all of it comes (the core orders a tie by name,
    # which SQL cannot fold like Python).
    points, solved, last = _rank_key(rows[limit - 1])
    tied = connection.execute(
        sql.tied_streaks_unsolved if last is None else sql.tied_streaks,
        {**params, "points": points, "solved": solved, "last": last},
    ).all()
    shown = {row[0] for row in rows[:limit]}
    return [*rows[:limit], *(r for r in tied if r[0] not in shown)]


def _latest_round(head: Any) -> Round:
    """Return the channel's latest round from the board statement's head columns."""
    return Round(
        id=head.latest_id,
        channel_id=head.latest_channel_id,
        local_date=head.latest_local_date,
        item_id=head.latest_item_id,
        item_version=head.latest_item_version,
        status=RoundStatus(head.latest_status),
        opened_at=head.latest_opened_at,
        closes_at=head.latest_closes_at,
        message_ref=head.latest_message_ref,
        post_claimed_at=head.latest_post_claimed_at,
    )


def _anchor(row: Sequence[Any], rounds: int) -> StreakAnchor:
    """Return (streak_on, streak_through, rounds after it, state...) as an anchor."""
    on, through, later, *state = row
    return StreakAnchor(on, int(through), rounds - int(later), StreakState(*map(int, state)))


# Reads built once (see StoreBase._reading).
_TOPIC_POINTS = func.sum(AnswerRow.points)
_TOPIC_SOLVED = func.count(distinct(case((AnswerRow.correct, AnswerRow.round_id))))
_TOPIC_LAST = func.max(case((AnswerRow.correct, AnswerRow.submitted_at)))
_TOPIC_SCORES = (
    select(AnswerRow.user_id, UserRow.display_name, _TOPIC_POINTS, _TOPIC_SOLVED,
           func.count(case((and_(AnswerRow.correct, AnswerRow.attempt == 1), 1))),
           _TOPIC_LAST, func.count(distinct(AnswerRow.round_id)), UserRow.hidden)
    .join(RoundRow, RoundRow.id == AnswerRow.round_id)
    .join(UserRow, UserRow.id == AnswerRow.user_id)
    .where(RoundRow.channel_id == bindparam("channel_id"),
           RoundRow.item_id.in_(bindparam("items", expanding=True)))
    .group_by(AnswerRow.user_id, UserRow.display_name, UserRow.hidden)
    .having(_TOPIC_POINTS > 0)
    .order_by(_TOPIC_POINTS.desc(), _TOPIC_SOLVED.desc(), _TOPIC_LAST.is_(None), _TOPIC_LAST,
              AnswerRow.user_id)
)
# Every member's totals per (channel, topic): score_totals' fold narrowed to the topic's rounds
# (migration 0030's BACKFILL). A forgotten member's tries count in no one's.
_TOPIC_RECOUNT = (
    select(RoundRow.channel_id, ItemTopicRow.topic, AnswerRow.user_id, _TOPIC_POINTS,
           _TOPIC_SOLVED, func.count(case((and_(AnswerRow.correct, AnswerRow.attempt == 1), 1))),
           func.count(distinct(AnswerRow.round_id)), _TOPIC_LAST)
    .join(RoundRow, RoundRow.id == AnswerRow.round_id)
    .join(ItemTopicRow, ItemTopicRow.item_id == RoundRow.item_id)
    .where(AnswerRow.user_id.is_not(None))
    .group_by(RoundRow.channel_id, ItemTopicRow.topic, AnswerRow.user_id)
)
# The per-topic board in one statement: a one-row head (the hidden members with points on the
# topic, and the rank key of the visible row at the cut) left-joined to the visible rows up to
# that key, best first. The cut is an OFFSET in the index order (points, solved); no cut row
# (fewer members than the limit, or _NO_CUT) takes every row.
_NO_CUT = 1 << 30
_TOPIC_MINE = (TopicTotalRow.channel_id == bindparam("channel_id"),
               TopicTotalRow.topic == bindparam("topic"), TopicTotalRow.points > 0)
_TOPIC_ORDER = (TopicTotalRow.points.desc(), TopicTotalRow.solved.desc(),
                TopicTotalRow.last_solved_at.is_(None), TopicTotalRow.last_solved_at,
                TopicTotalRow.user_id)


def _topic_totals() -> Select[Any]:
    hidden = (select(func.count()).select_from(TopicTotalRow)
              .join(UserRow, UserRow.id == TopicTotalRow.user_id)
              .where(*_TOPIC_MINE, UserRow.hidden.is_(True)).scalar_subquery())
    visible = (select(*_totals_columns(TopicTotalRow))
               .join(UserRow, UserRow.id == TopicTotalRow.user_id)
               .where(*_TOPIC_MINE, UserRow.hidden.is_(False)))
    cut = (select(TopicTotalRow.points.label("points"), TopicTotalRow.solved.label("solved"),
                  TopicTotalRow.last_solved_at.label("last"))
           .join(UserRow, UserRow.id == TopicTotalRow.user_id)
           .where(*_TOPIC_MINE, UserRow.hidden.is_(False))
           .order_by(*_TOPIC_ORDER).limit(1).offset(bindparam("cut")).subquery("cut"))
    head = select(hidden.label("hidden")).subquery("head")
    at_cut = and_(TopicTotalRow.points == cut.c.points, TopicTotalRow.solved == cut.c.solved)
    not_after = or_(
        cut.c.points.is_(None),
        TopicTotalRow.points > cut.c.points,
        and_(TopicTotalRow.points == cut.c.points, TopicTotalRow.solved > cut.c.solved),
        and_(at_cut, or_(cut.c.last.is_(None),
                         and_(TopicTotalRow.last_solved_at.is_not(None),
                              TopicTotalRow.last_solved_at <= cut.c.last))),
    )
    top = visible.join(cut, true(), isouter=True).where(not_after).subquery("top")
    c = top.c
    return (select(head.c.hidden, c.user_id, c.display_name, c.points, c.solved, c.first_try,
                   c.last_solved_at, c.attempted)
            .select_from(head.outerjoin(top, true()))
            .order_by(c.points.desc(), c.solved.desc(), c.last_solved_at.is_(None),
                      c.last_solved_at, c.user_id))


_TOPIC_TOTALS = _topic_totals()
_TALLY = select(
    func.count(distinct(case((AnswerRow.correct, AnswerRow.user_id)))),
    func.count(distinct(AnswerRow.user_id)),
).where(AnswerRow.round_id == bindparam("round_id"))
_MEMBER_SCORE = (
    select(*_totals_columns(ScoreTotalRow))
    .join(UserRow, UserRow.id == ScoreTotalRow.user_id)
    .where(
        ScoreTotalRow.channel_id == bindparam("channel_id"),
        ScoreTotalRow.user_id == bindparam("user_id"),
    )
)
_SOLVED_DATES = (
    select(AnswerRow.user_id, RoundRow.local_date)
    .join(AnswerRow, AnswerRow.round_id == RoundRow.id)
    .where(
        RoundRow.channel_id == bindparam("channel_id"),
        AnswerRow.user_id.in_(bindparam("user_ids", expanding=True)),
        AnswerRow.correct.is_(True),
    )
    .distinct()
    .order_by(AnswerRow.user_id, RoundRow.local_date)
)
_SOLVES = (
    select(AnswerRow.round_id, AnswerRow.user_id)
    .where(AnswerRow.user_id.in_(bindparam("user_ids", expanding=True)),
           AnswerRow.correct.is_(True))
    .distinct()
    .subquery("solves")
)
_STREAK_HISTORY = (
    select(RoundRow.local_date, _SOLVES.c.user_id)
    .outerjoin(_SOLVES, _SOLVES.c.round_id == RoundRow.id)
    .where(RoundRow.channel_id == bindparam("channel_id"))
    .order_by(RoundRow.local_date, _SOLVES.c.user_id)
)
# A member's tries in a channel, newest first, a page at a time (the web page's history).
_ANSWER_HISTORY = (
    select(RoundRow.id, RoundRow.local_date, RoundRow.item_id, AnswerRow.attempt,
           AnswerRow.response, AnswerRow.correct, RoundRow.status, AnswerRow.submitted_at)
    .join(RoundRow, RoundRow.id == AnswerRow.round_id)
    .where(AnswerRow.user_id == bindparam("user_id"),
           RoundRow.channel_id == bindparam("channel_id"))
    .order_by(AnswerRow.submitted_at.desc(), AnswerRow.id.desc())
    .limit(bindparam("limit")).offset(bindparam("offset"))
)
_SOLVED_DATES_SINCE = _SOLVED_DATES.where(RoundRow.local_date >= bindparam("since"))
# Right on the first try: attempt 1 was right (a member-round has one attempt 1 at most).
_FIRST_RIGHT = func.max(case((and_(AnswerRow.correct, AnswerRow.attempt == 1), 1), else_=0))
_DAILY_RESULTS = (
    select(
        RoundRow.item_id,
        func.max(case((AnswerRow.correct, 1), else_=0)),
        _FIRST_RIGHT,
        func.max(AnswerRow.submitted_at),
    )
    .join(AnswerRow, AnswerRow.round_id == RoundRow.id)
    .where(AnswerRow.user_id == bindparam("user_id"))
    .group_by(RoundRow.id, RoundRow.item_id)
)
_DUE = (
    select(ReviewRow.item_id)
    .where(ReviewRow.user_id == bindparam("user_id"), ReviewRow.due_at <= bindparam("now"))
    .order_by(ReviewRow.due_at, ReviewRow.item_id)
)
_ITEM_TOTALS = select(
    ItemTotalRow.item_id, ItemTotalRow.answered, ItemTotalRow.solved, ItemTotalRow.first_try,
).where(ItemTotalRow.channel_id == bindparam("channel_id")).order_by(ItemTotalRow.item_id)
_DAILY_RESULTS_IN = _DAILY_RESULTS.where(RoundRow.channel_id == bindparam("channel_id"))
_ROUNDS = Table("rounds", RoundRow.metadata)
_OTHERS = _ROUNDS.alias("others")
# /stats' mastery: the member's daily rounds of the channel counted per item (solved when any
# try was right, first when attempt 1 was), and their practice results per item (a result
# kept before its tries were stands for its first try).
_MEMBER_ROUNDS = (
    select(
        RoundRow.item_id.label("item_id"),
        func.max(case((AnswerRow.correct, 1), else_=0)).label("solved"),
        _FIRST_RIGHT.label("first"),
    )
    .join(AnswerRow, AnswerRow.round_id == RoundRow.id)
    .where(AnswerRow.user_id == bindparam("user_id"),
           RoundRow.channel_id == bindparam("channel_id"))
    .group_by(RoundRow.id, RoundRow.item_id)
    .subquery()
)
_MEMBER_ITEMS = select(
    _MEMBER_ROUNDS.c.item_id, func.count(), func.sum(_MEMBER_ROUNDS.c.solved),
    func.sum(_MEMBER_ROUNDS.c.first),
).group_by(_MEMBER_ROUNDS.c.item_id)
_MEMBER_PRACTICE = select(
    PracticeResultRow.item_id,
    func.count(),
    func.sum(case((PracticeResultRow.correct, 1), else_=0)),
    func.sum(case((PracticeResultRow.first_try.is_(None),
                   case((PracticeResultRow.correct, 1), else_=0)),
                  (PracticeResultRow.first_try.is_(True), 1), else_=0)),
).where(PracticeResultRow.user_id == bindparam("user_id")).group_by(PracticeResultRow.item_id)
_PRACTICE = select(
    PracticeResultRow.item_id, PracticeResultRow.correct, PracticeResultRow.first_try,
    PracticeResultRow.answered_at,
).where(PracticeResultRow.user_id == bindparam("user_id"))


class _TopQueries:
    """The board's reads of one totals table: best first, everyone, and a tie at the cut."""

    def __init__(self, table: TotalsTable) -> None:
        query = (
            select(*_totals_columns(table))
            .join(UserRow, UserRow.id == table.user_id)
            .where(table.channel_id == bindparam("channel_id"), table.points > 0)
        )
        if table is WeekTotalRow:
            query = query.where(WeekTotalRow.week_start == bindparam("week_start"))
        # Hidden members are counted apart; the board ranks the visible ones among themselves.
        # Every count here is driven by an index: the channel's totals by points and solved
        # (ranges counted in the index, no row read), and the hidden members (few) by the
        # users' hidden index, each probing its totals row by key. Counting the visible members
        # by joining every totals row to its member cost a board 1.5 ms at 2,000 members.
        mine = [table.channel_id == bindparam("channel_id")]
        if table is WeekTotalRow:
            mine.append(WeekTotalRow.week_start == bindparam("week_start"))

        def counted(*where: Any) -> Any:
            return select(func.count()).select_from(table).where(*mine, *where).scalar_subquery()

        def hidden(*where: Any) -> Any:
            # Correlated to the member counted and to whoever ``where`` compares with.
            row = select(table.user_id).where(*mine, table.user_id == UserRow.id,
                                              table.points > 0, *where).correlate_except(table)
            return (select(func.count()).select_from(UserRow)
                    .where(UserRow.hidden == True, row.exists())  # noqa: E712 - indexable
                    .scalar_subquery())

        self.hidden = select(hidden())
        self.points_of = query.add_columns(UserRow.hidden).where(
            table.user_id == bindparam("user_id"))
        query = query.where(UserRow.hidden.is_(False))
        # Competition rank: 1 + the visible members strictly ahead (points, then solved, then
        # the earlier last solve; never having solved comes after every solve): everyone ahead
        # less the hidden members ahead, and everyone with points less the hidden ones.
        def place(points: Any, solved: Any, ahead_in_tie: Any) -> tuple[Any, Any]:
            """Return (visible members with points, visible members ahead) as expressions."""
            level = (table.points == points, table.solved == solved)
            better = or_(table.points > points,
                         and_(table.points == points, table.solved > solved))
            return (
                counted(table.points > 0) - hidden(),
                counted(table.points > points) + counted(table.points == points,
                                                         table.solved > solved)
                + counted(*level, ahead_in_tie)
                - hidden(or_(better, and_(*level, ahead_in_tie))),
            )

        self.place_of = place
        points: Any = bindparam("points")
        solved: Any = bindparam("solved")
        self.place = select(*place(points, solved, table.last_solved_at < bindparam("last")))
        self.place_unsolved = select(*place(points, solved, table.last_solved_at.is_not(None)))
        self.every = query.order_by(
            table.points.desc(),
            table.solved.desc(),
            table.last_solved_at.is_(None),  # never solved: after every solve
            table.last_solved_at,
            table.user_id,
        )
        self.best = self.every.limit(bindparam("limit"))
        tie = query.where(table.points == bindparam("points"), table.solved == bindparam("solved"))
        self.tied = tie.where(table.last_solved_at == bindparam("last"))
        self.tied_unsolved = tie.where(table.last_solved_at.is_(None))
        # The board in one statement (one round trip): a one-row head (the hidden members with
        # points, the channel's rounds and its latest round) left-joined to the best rows, each
        # with its member's stored streak (the all-time totals row holds it).
        streaks: Any = ScoreTotalRow if table is ScoreTotalRow else _STREAKS
        ranked = query.add_columns(
            streaks.streak_on, streaks.streak_through, streaks.streak, streaks.best_streak,
            streaks.freezes, streaks.toward_freeze)
        if table is not ScoreTotalRow:
            ranked = ranked.outerjoin(_STREAKS, and_(_STREAKS.channel_id == table.channel_id,
                                                     _STREAKS.user_id == table.user_id))
        order = (table.points.desc(), table.solved.desc(), table.last_solved_at.is_(None),
                 table.last_solved_at, table.user_id)
        self.board = _board(hidden(), ranked.order_by(*order).limit(bindparam("limit")))
        self.board_every = _board(hidden(), ranked.order_by(*order))
        tie_ranked = ranked.where(table.points == bindparam("points"),
                                  table.solved == bindparam("solved"))
        self.tied_streaks = _with_later(
            tie_ranked.where(table.last_solved_at == bindparam("last")).subquery("tied"))
        self.tied_streaks_unsolved = _with_later(
            tie_ranked.where(table.last_solved_at.is_(None)).subquery("tied"))


# The all-time totals row of a member on the week board: where their streak is stored.
_STREAKS: Any = aliased(ScoreTotalRow, name="streaks")
_LATEST_COLUMNS = ("id", "channel_id", "local_date", "item_id", "item_version", "status",
                   "opened_at", "closes_at", "message_ref", "post_claimed_at")
_HEAD = 2 + len(_LATEST_COLUMNS)  # the board statement's head: hidden, rounds, latest round


def _with_later(rows: Any) -> Select[Any]:
    """Return ``rows`` (totals, then streak columns) with each streak's later rounds counted.

    How many of the channel's rounds are dated after the member's stored streak (an index
    range, a few rounds for a member who plays) is the check that the stored streak holds.
    """
    later = (select(func.count()).select_from(_OTHERS)
             .where(_OTHERS.c.channel_id == bindparam("channel_id"),
                    _OTHERS.c.local_date > rows.c.streak_on)
             .scalar_subquery())
    c = rows.c
    return select(c.user_id, c.display_name, c.points, c.solved, c.first_try,
                  c.last_solved_at, c.attempted, c.streak_on, c.streak_through,
                  later.label("later"), c.streak, c.best_streak, c.freezes, c.toward_freeze)


def _round_head() -> tuple[Any, Any]:
    """Return one-row subqueries: how many rounds the channel has, and its latest round."""
    mine = _ROUNDS.c.channel_id == bindparam("channel_id")
    rounds = select(select(func.count()).select_from(_ROUNDS).where(mine)
                    .scalar_subquery().label("rounds")).subquery("counted")
    latest = (select(*(_ROUNDS.c[name].label(f"latest_{name}") for name in _LATEST_COLUMNS))
              .where(mine).order_by(_ROUNDS.c.local_date.desc()).limit(1).subquery("latest"))
    return rounds, latest


def _board(hidden: Any, best: Select[Any]) -> Select[Any]:
    """Return the board statement: its head joined to the ``best`` rows, kept in their order."""
    mine = _ROUNDS.c.channel_id == bindparam("channel_id")
    head = select(hidden.label("hidden"),
                  select(func.count()).select_from(_ROUNDS).where(mine)
                  .scalar_subquery().label("rounds")).subquery("head")
    _, latest = _round_head()
    top = best.subquery("top")
    c = top.c
    return (select(head.c.hidden, head.c.rounds, *latest.c,
                   *_with_later(top).selected_columns)
            .select_from(head.outerjoin(latest, true()).outerjoin(top, true()))
            .order_by(c.points.desc(), c.solved.desc(), c.last_solved_at.is_(None),
                      c.last_solved_at, c.user_id))


_TOP = {False: _TopQueries(ScoreTotalRow), True: _TopQueries(WeekTotalRow)}


def _ahead_in_tie(table: TotalsTable, last: Any) -> Any:
    """Return who is ahead of a member whose last solve was ``last`` on equal points and solved.

    The earlier last solve; a member who never solved (``last`` NULL) is behind every solve.
    """
    return or_(table.last_solved_at < last,
               and_(last.is_(None), table.last_solved_at.is_not(None)))


def _member_head() -> Select[Any]:
    """Return /stats' first statement: the channel's rounds, and the member's row with ranks."""
    me: Any = aliased(ScoreTotalRow, name="me")
    who: Any = aliased(UserRow, name="who")
    wk: Any = aliased(WeekTotalRow, name="wk")
    all_visible, all_ahead = _TOP[False].place_of(
        me.points, me.solved, _ahead_in_tie(ScoreTotalRow, me.last_solved_at))
    week_visible, week_ahead = _TOP[True].place_of(
        wk.points, wk.solved, _ahead_in_tie(WeekTotalRow, wk.last_solved_at))
    later = (select(func.count()).select_from(_OTHERS)
             .where(_OTHERS.c.channel_id == bindparam("channel_id"),
                    _OTHERS.c.local_date > me.streak_on)
             .scalar_subquery())
    mine = (
        select(me.user_id, who.display_name, me.points, me.solved, me.first_try,
               me.last_solved_at, me.attempted, me.streak_on, me.streak_through,
               later.label("later"), me.streak, me.best_streak, me.freezes, me.toward_freeze,
               who.hidden.label("member_hidden"), wk.points.label("week_points"),
               all_visible.label("all_visible"), all_ahead.label("all_ahead"),
               week_visible.label("week_visible"), week_ahead.label("week_ahead"))
        .join(who, who.id == me.user_id)
        .outerjoin(wk, and_(wk.channel_id == me.channel_id,
                            wk.week_start == bindparam("week_start"),
                            wk.user_id == me.user_id))
        .where(me.channel_id == bindparam("channel_id"), me.user_id == bindparam("user_id"))
        .subquery("mine")
    )
    rounds, latest = _round_head()
    return (select(rounds.c.rounds, *latest.c, *mine.c)
            .select_from(rounds.outerjoin(latest, true()).outerjoin(mine, true())))


_DUE_KIND = 2


def _member_outcomes() -> Any:
    """Return /stats' second statement: outcomes per item (daily, practice), then cards due."""
    nothing = cast(null(), ReviewRow.due_at.type)
    daily = select(literal_column("0").label("kind"), *_MEMBER_ITEMS.selected_columns,
                   nothing.label("due_at")).group_by(_MEMBER_ROUNDS.c.item_id)
    practice = (select(literal_column("1"), *_MEMBER_PRACTICE.selected_columns, nothing)
                .where(PracticeResultRow.user_id == bindparam("user_id"))
                .group_by(PracticeResultRow.item_id))
    zero: Any = literal_column("0")
    due = select(literal_column(str(_DUE_KIND)), ReviewRow.item_id, zero, zero, zero,
                 ReviewRow.due_at).where(ReviewRow.user_id == bindparam("user_id"),
                                         ReviewRow.due_at <= bindparam("now"))
    both = union_all(daily, practice, due).subquery("outcomes")
    return select(*both.c).order_by(both.c.kind, both.c.due_at, both.c.item_id)


_MEMBER_HEAD = _member_head()
_MEMBER_OUTCOMES = _member_outcomes()
