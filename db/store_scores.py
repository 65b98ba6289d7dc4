"""Store answers with the totals leaderboards read, and read scores, streak dates and outcomes.

Every answer updates its member's all-time and weekly totals in the answer's own transaction,
so a crash never leaves an answer without its totals or totals without their answer. Boards then
read a few rows of totals instead of every answer of the channel (docs/storage.md measures why).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Collection, Sequence
from functools import cached_property
from typing import Any

from sqlalchemy import (
    Connection,
    Integer,
    Table,
    and_,
    bindparam,
    case,
    cast,
    delete,
    distinct,
    func,
    insert,
    literal,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.core.models import AnswerDraft, AnswerMode, AnswerRecord, ItemResult, ScoreRow, Tally
from bot.core.models import week_start as week_of
from db.store_base import StoreBase
from db.tables import (
    RESPONSE_MAX_CHARS,
    AnswerRow,
    ChannelRow,
    PracticeResultRow,
    RoundRow,
    ScoreTotalRow,
    UserRow,
    WeekTotalRow,
)
from db.totals import Answer, Totals, added_by, fold

log = logging.getLogger(__name__)

TotalsTable = type[ScoreTotalRow] | type[WeekTotalRow]
# A query's IN list stays well below SQLite's limit on bound parameters.
_IN_CHUNK = 500


def _answer(row: Any) -> AnswerRecord:
    """Return the answer row as the core's value."""
    return AnswerRecord(
        id=row.id,
        round_id=row.round_id,
        user_id=row.user_id,
        attempt=row.attempt,
        mode=AnswerMode(row.mode),
        response=row.response,
        correct=row.correct,
        points=row.points,
        submitted_at=row.submitted_at,
        verdict_status=row.verdict_status,
    )


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


def _totals_columns(table: TotalsTable) -> tuple[Any, ...]:
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


def lock_channel_answers(session: Session, channel_id: int) -> None:
    """Wait until no answer of the channel is being counted, and hold new ones off.

    On PostgreSQL record_answer holds this lock shared while it reads the channel's zone and
    counts the answer; a change of zone takes it alone, so it never recounts around an answer
    in flight. SQLite needs nothing: its writers run one at a time.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(cast(literal(channel_id), Integer))))


def recount_week(session: Session, channel_id: int, timezone: str, since: dt.datetime) -> None:
    """Recount the channel's weekly totals of the weeks from ``since`` on, in ``timezone``.

    Called when the channel's zone changes: the week that is on now starts at another instant,
    and the answers already given in it are counted again under the new zone.
    """
    session.execute(
        delete(WeekTotalRow).where(
            WeekTotalRow.channel_id == channel_id, WeekTotalRow.week_start >= since
        )
    )
    answers = [
        Answer(*row)
        for row in session.execute(
            select(
                AnswerRow.round_id,
                AnswerRow.user_id,
                AnswerRow.attempt,
                AnswerRow.correct,
                AnswerRow.points,
                AnswerRow.submitted_at,
            )
            .join(RoundRow, RoundRow.id == AnswerRow.round_id)
            .where(RoundRow.channel_id == channel_id, AnswerRow.submitted_at >= since)
        )
    ]
    totals = fold(answers, lambda a: (a.user_id, week_of(a.submitted_at, timezone)))
    if totals:
        session.execute(
            insert(WeekTotalRow),
            [
                {
                    "channel_id": channel_id,
                    "week_start": week,
                    "user_id": user_id,
                    "points": t.points,
                    "solved": t.solved,
                    "first_try": t.first_try,
                    "attempted": t.attempted,
                    "last_solved_at": t.last_solved_at,
                }
                for (user_id, week), t in totals.items()
            ],
        )


_TOTALS = ("points", "solved", "first_try", "attempted", "last_solved_at")
_ANSWER = ("round_id", "user_id", "attempt", "mode", "response", "correct", "points",
           "verdict_status", "submitted_at")


class _AnswerStatements:
    """The statements record_answer sends, built once per store (building costs ~1 ms each).

    Bound names: ``a_*`` the answer's columns, ``channel_id`` and ``week_start`` its place,
    ``s_*`` and ``w_*`` what it adds to the all-time and the weekly totals.
    """

    def __init__(self, store: StoreBase, postgres: bool) -> None:
        answers = Table("answers", AnswerRow.metadata)  # the model's table, for Core statements
        round_id: Any = bindparam("a_round_id")
        user_id: Any = bindparam("a_user_id")
        # Under READ COMMITTED two answers of one member to one round would both count the
        # round as new: the (round, member) lock makes the second read the first. The shared
        # channel lock keeps a change of zone (lock_channel_answers) out while this one counts.
        # The lock is a statement of its own: only a statement after it sees what the lock's
        # holder committed. On SQLite, BEGIN IMMEDIATE already runs writers one at a time.
        self.lock = (
            select(
                func.pg_advisory_xact_lock_shared(RoundRow.channel_id),
                func.pg_advisory_xact_lock(RoundRow.id, cast(user_id, Integer)),
            ).where(RoundRow.id == round_id)
            if postgres
            else None
        )
        # The round's channel and zone, and the member's earlier answers to it (NULLs if none).
        self.place = (
            select(
                RoundRow.channel_id,
                ChannelRow.timezone,
                answers.c.attempt,
                answers.c.correct,
                answers.c.points,
                answers.c.submitted_at,
            )
            .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
            .outerjoin(
                answers, and_(answers.c.round_id == RoundRow.id, answers.c.user_id == user_id)
            )
            .where(RoundRow.id == round_id)
        )
        self.insert = (
            insert(answers)
            .values({name: bindparam(f"a_{name}") for name in _ANSWER})
            .returning(*answers.c)
        )
        totals = _add_statement(store, ScoreTotalRow, "s", ("channel_id", "user_id"))
        week = _add_statement(store, WeekTotalRow, "w", ("channel_id", "week_start", "user_id"))
        # PostgreSQL takes all three writes in one statement, one round trip; SQLite, which
        # has no data-modifying CTEs and no round trips, takes them one by one.
        self.writes = (
            [select(self.insert.cte("new_answer")).add_cte(totals.cte("totals"), week.cte("week"))]
            if postgres
            else [self.insert, totals, week]
        )


def _add_statement(store: StoreBase, table: TotalsTable, prefix: str, key: tuple[str, ...]) -> Any:
    """Return an upsert adding bound totals to the row under ``key``, or creating it."""
    columns: dict[str, Any] = {"user_id": bindparam("a_user_id")}
    columns.update({name: bindparam(name) for name in key if name != "user_id"})
    columns.update({name: bindparam(f"{prefix}_{name}") for name in _TOTALS})
    stmt = store._upsert(table).values(columns)
    new = stmt.excluded
    later = case(
        (new.last_solved_at.is_(None), table.last_solved_at),
        (table.last_solved_at.is_(None), new.last_solved_at),
        (new.last_solved_at > table.last_solved_at, new.last_solved_at),
        else_=table.last_solved_at,
    )
    return stmt.on_conflict_do_update(
        index_elements=list(key),
        set_={
            "points": table.points + new.points,
            "solved": table.solved + new.solved,
            "first_try": table.first_try + new.first_try,
            "attempted": table.attempted + new.attempted,
            "last_solved_at": later,
        },
    )


def _values(prefix: str, delta: Totals) -> dict[str, Any]:
    return {f"{prefix}_{name}": getattr(delta, name) for name in _TOTALS}


class ScoreStore(StoreBase):
    """Answers, totals, scores and outcomes of the QuizStore port."""

    @cached_property
    def _answer_statements(self) -> _AnswerStatements:
        return _AnswerStatements(self, self._postgres)

    # ------------------------------------------------------------------ writing answers
    def record_answer(self, draft: AnswerDraft) -> AnswerRecord | None:
        """Store the answer and add it to the member's totals; None when already recorded."""
        try:
            with self._transaction() as session:
                return self._record(session.connection(), draft)
        except IntegrityError:
            # A replica still on the code before totals raced this one, or a bug (an unknown
            # round or member), which must surface.
            if not any(
                a.attempt == draft.attempt for a in self.answers_for(draft.round_id, draft.user_id)
            ):
                raise
            self._log_duplicate(draft)
            return None

    def _record(self, connection: Connection, draft: AnswerDraft) -> AnswerRecord | None:
        sql = self._answer_statements
        answer = {
            "a_round_id": draft.round_id,
            "a_user_id": draft.user_id,
            "a_attempt": draft.attempt,
            "a_mode": draft.mode.value,
            "a_response": draft.response[:RESPONSE_MAX_CHARS],
            "a_correct": draft.correct,
            "a_points": draft.points,
            "a_verdict_status": draft.verdict_status,
            "a_submitted_at": draft.submitted_at,
        }
        if sql.lock is not None:
            connection.execute(sql.lock, answer)
        place = connection.execute(sql.place, answer).all()
        earlier = [
            Answer(draft.round_id, draft.user_id, *row[2:]) for row in place if row[2] is not None
        ]
        if any(a.attempt == draft.attempt for a in earlier):
            # A double click or a second replica: the attempt is stored once.
            self._log_duplicate(draft)
            return None
        if not place:
            # Let the foreign key say what is wrong, as every other unknown reference does.
            connection.execute(sql.insert, answer)
            raise LookupError(f"no round with id {draft.round_id}")
        channel_id, timezone = place[0][0], place[0][1]
        new = Answer(
            draft.round_id, draft.user_id, draft.attempt, draft.correct, draft.points,
            draft.submitted_at,
        )
        week = week_of(new.submitted_at, timezone)
        same_week = [a for a in earlier if week_of(a.submitted_at, timezone) == week]
        params = {
            **answer,
            "channel_id": channel_id,
            "week_start": week,
            **_values("s", added_by(new, earlier)),
            **_values("w", added_by(new, same_week)),
        }
        # The first write inserts the answer and returns it; an unknown member fails there.
        stored = connection.execute(sql.writes[0], params).one()
        for write in sql.writes[1:]:
            connection.execute(write, params)
        return _answer(stored)

    @staticmethod
    def _log_duplicate(draft: AnswerDraft) -> None:
        log.info(
            "answer already recorded: round=%s user=%s attempt=%s",
            draft.round_id,
            draft.user_id,
            draft.attempt,
        )

    # ------------------------------------------------------------------ reading
    def answers_for(self, round_id: int, user_id: int) -> list[AnswerRecord]:
        """Return a member's answers to a round, by attempt."""
        rows = self._fetch(_ANSWERS_FOR, {"round_id": round_id, "user_id": user_id})
        return [_answer(row) for row in rows]

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

    def top_scores(
        self, channel_id: int, week_start: dt.datetime | None, limit: int | None
    ) -> list[ScoreRow]:
        """Return the leaderboard's rows from the stored totals, best first.

        Members with points whose competition rank is within ``limit`` (all when None), so
        everyone tied at the cut comes along; ``week_start`` (bot.core.models.week_start of the
        channel's zone) picks that week's totals, None the all-time ones.
        """
        if limit is not None and limit <= 0:
            return []
        sql = _TOP[week_start is not None]
        params: dict[str, Any] = {"channel_id": channel_id, "week_start": week_start}
        with self._reading() as connection:
            if limit is None:
                return [_score(row) for row in connection.execute(sql.every, params)]
            rows = connection.execute(sql.best, {**params, "limit": limit + 1}).all()
            if len(rows) <= limit or _rank_key(rows[limit]) != _rank_key(rows[limit - 1]):
                return [_score(row) for row in rows[:limit]]
            # The cut falls inside a tie: the whole tie shares the last rank, so all of it
            # comes (the core orders a tie by name, which SQL cannot fold like Python).
            points, solved, last = _rank_key(rows[limit - 1])
            tied = connection.execute(
                sql.tied_unsolved if last is None else sql.tied,
                {**params, "points": points, "solved": solved, "last": last},
            ).all()
        shown = {row[0] for row in rows[:limit]}
        return [_score(row) for row in [*rows[:limit], *(r for r in tied if r[0] not in shown)]]

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
                    found.setdefault(user_id, []).append(day)
        return found

    def item_results(self, user_id: int, channel_id: int | None = None) -> list[ItemResult]:
        """Return the member's final outcome per daily round and practice answer.

        A daily round counts as correct when any attempt was, at the time of the last attempt.
        ``channel_id`` narrows the daily rounds; practice is not tied to a channel, so practice
        results are always included. Oldest first.
        """
        daily = _DAILY_RESULTS if channel_id is None else _DAILY_RESULTS_IN
        params = {"user_id": user_id, "channel_id": channel_id}
        with self._reading() as connection:
            rows = [*connection.execute(daily, params), *connection.execute(_PRACTICE, params)]
        results = [ItemResult(item_id=i, correct=bool(ok), answered_at=at) for i, ok, at in rows]
        return sorted(results, key=lambda r: (r.answered_at, r.item_id))


# Reads built once (see StoreBase._reading).
_ANSWERS = Table("answers", AnswerRow.metadata)
_ANSWERS_FOR = (
    select(_ANSWERS)
    .where(_ANSWERS.c.round_id == bindparam("round_id"), _ANSWERS.c.user_id == bindparam("user_id"))
    .order_by(_ANSWERS.c.attempt)
)
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
_SOLVED_DATES_SINCE = _SOLVED_DATES.where(RoundRow.local_date >= bindparam("since"))
_DAILY_RESULTS = (
    select(
        RoundRow.item_id,
        func.max(case((AnswerRow.correct, 1), else_=0)),
        func.max(AnswerRow.submitted_at),
    )
    .join(AnswerRow, AnswerRow.round_id == RoundRow.id)
    .where(AnswerRow.user_id == bindparam("user_id"))
    .group_by(RoundRow.id, RoundRow.item_id)
)
_DAILY_RESULTS_IN = _DAILY_RESULTS.where(RoundRow.channel_id == bindparam("channel_id"))
_PRACTICE = select(
    PracticeResultRow.item_id, PracticeResultRow.correct, PracticeResultRow.answered_at
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


_TOP = {False: _TopQueries(ScoreTotalRow), True: _TopQueries(WeekTotalRow)}
