"""Store answers together with the totals leaderboards read, in one transaction each.

Every answer adds to its member's all-time and weekly totals in the answer's own transaction,
so a crash never leaves an answer without its totals or totals without their answer. Boards then
read a few rows of totals instead of every answer of the channel (docs/storage.md measures why).
"""

from __future__ import annotations

import datetime as dt
import logging
from functools import cached_property
from typing import Any

from sqlalchemy import (
    Boolean,
    Connection,
    Date,
    Integer,
    Table,
    and_,
    bindparam,
    case,
    cast,
    delete,
    func,
    insert,
    literal,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.core.kernel.models import (
    AnswerDraft,
    AnswerMode,
    AnswerRecord,
    Review,
    SpeedVerdictRecord,
    StreakState,
    streak_misses,
    streak_step,
)
from bot.core.kernel.models import week_start as week_of
from bot.core.kernel.ports import RoundCount
from db.retry import run_retrying
from db.store_base import StoreBase
from db.store_speed import verdict_values
from db.tables import (
    RESPONSE_MAX_CHARS,
    AnswerRow,
    ChannelRow,
    ItemTopicRow,
    ItemTotalRow,
    LiveAnswerRow,
    LiveSessionRow,
    ReviewRow,
    RoundRow,
    ScoreTotalRow,
    SpeedVerdictRow,
    TopicTotalRow,
    WeekTotalRow,
)
from db.totals import Answer, Totals, added_by, fold

log = logging.getLogger(__name__)

TotalsTable = type[ScoreTotalRow] | type[WeekTotalRow]


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


def _same(stored: AnswerRecord, draft: AnswerDraft) -> bool:
    """Return whether the stored answer holds exactly what ``draft`` would have stored."""
    return (
        stored.mode == draft.mode
        and stored.response == draft.response[:RESPONSE_MAX_CHARS]
        and stored.correct == draft.correct
        and stored.points == draft.points
        and stored.verdict_status == draft.verdict_status
        and stored.submitted_at == draft.submitted_at
    )


def lock_channel_answers(session: Session, channel_id: int) -> None:
    """Wait until no answer of the channel is being counted, and hold new ones off.

    On PostgreSQL record_answer holds this lock shared while it reads the channel's zone and
    counts the answer; a change of zone takes it alone, so it never recounts around an answer
    in flight. SQLite needs nothing: its writers run one at a time.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(cast(literal(channel_id), Integer))))


def lock_channel_answers_shared(session: Session, channel_id: int) -> None:
    """Hold a change of the channel's zone off while this transaction adds to its totals.

    What record_answer's statement takes on PostgreSQL; a live session's points added to the
    weekly board take it too. SQLite needs nothing: its writers run one at a time.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock_shared(
            cast(literal(channel_id), Integer))))


def live_week_rows(session: Session, channel_id: int,
                   since: dt.datetime) -> list[tuple[int, int, dt.datetime]]:
    """Return (member, points, when) of the live answers on the channel's weekly board.

    The answers with points from ``since`` on of the channel's sessions whose points went to
    the weekly board when they ended (``live_sessions.on_board``).
    """
    rows = session.execute(
        select(LiveAnswerRow.user_id, LiveAnswerRow.points, LiveAnswerRow.answered_at)
        .join(LiveSessionRow, LiveSessionRow.id == LiveAnswerRow.session_id)
        .where(LiveSessionRow.channel_id == channel_id, LiveSessionRow.on_board.is_(True),
               LiveAnswerRow.answered_at >= since, LiveAnswerRow.points > 0)).all()
    return [(user_id, points, at) for user_id, points, at in rows]


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
        Answer(round_id, user_id, attempt, correct, points, at)
        for round_id, user_id, attempt, correct, points, at in session.execute(
            select(
                AnswerRow.round_id,
                AnswerRow.user_id,
                AnswerRow.attempt,
                AnswerRow.correct,
                AnswerRow.points,
                AnswerRow.submitted_at,
            )
            .join(RoundRow, RoundRow.id == AnswerRow.round_id)
            # A forgotten member's tries stay without a member, and count in no one's totals.
            .where(RoundRow.channel_id == channel_id, AnswerRow.submitted_at >= since,
                   AnswerRow.user_id.is_not(None))
        )
        if user_id is not None
    ]
    totals = fold(answers, lambda a: (a.user_id, week_of(a.submitted_at, timezone)))
    # A live session on the weekly board adds its points only (no round solved or tried).
    for user_id, points, at in live_week_rows(session, channel_id, since):
        totals.setdefault((user_id, week_of(at, timezone)), Totals()).points += points
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
_CARD = ("state", "step", "stability", "difficulty", "due_at", "last_correct", "reviewed_at")
_STREAK = ("streak_on", "streak_through", "streak", "best_streak", "freezes", "toward_freeze")
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
        # The round's channel and zone, and the member's earlier answers to it (NULLs if none);
        # then the round's date, the member's stored streak in the channel (NULLs if none) and
        # how many of the channel's rounds are dated up to the round and up to that streak's
        # round: all a solve needs to move the streak on, in the same read.
        others = Table("rounds", RoundRow.metadata).alias("others")
        through = (
            select(func.count()).select_from(others)
            .where(others.c.channel_id == RoundRow.channel_id)
            .correlate(RoundRow)
        )
        self.place = (
            select(
                RoundRow.channel_id,
                ChannelRow.timezone,
                answers.c.attempt,
                answers.c.correct,
                answers.c.points,
                answers.c.submitted_at,
                RoundRow.item_id,
                RoundRow.local_date,
                *(getattr(ScoreTotalRow, name) for name in _STREAK),
                through.where(others.c.local_date <= RoundRow.local_date).scalar_subquery(),
                through.where(others.c.local_date <= ScoreTotalRow.streak_on)
                .correlate(RoundRow, ScoreTotalRow).scalar_subquery(),
            )
            .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
            .outerjoin(
                answers, and_(answers.c.round_id == RoundRow.id, answers.c.user_id == user_id)
            )
            .outerjoin(
                ScoreTotalRow,
                and_(ScoreTotalRow.channel_id == RoundRow.channel_id,
                     ScoreTotalRow.user_id == user_id),
            )
            .where(RoundRow.id == round_id)
        )
        # The member's solved rounds' dates and every round's, when a streak is walked again.
        self.solved_dates = (
            select(RoundRow.local_date)
            .join(answers, answers.c.round_id == RoundRow.id)
            .where(RoundRow.channel_id == bindparam("channel_id"), answers.c.user_id == user_id,
                   answers.c.correct.is_(True))
            .distinct()
        )
        self.round_dates = (
            select(RoundRow.local_date)
            .where(RoundRow.channel_id == bindparam("channel_id"))
            .order_by(RoundRow.local_date)
        )
        self.insert = (
            insert(answers)
            .values({name: bindparam(f"a_{name}") for name in _ANSWER})
            .returning(*answers.c)
        )
        totals = _add_statement(store, ScoreTotalRow, "s", ("channel_id", "user_id"),
                                streak=True)
        week = _add_statement(store, WeekTotalRow, "w", ("channel_id", "week_start", "user_id"))
        items = _add_items(store)
        topics = _add_topics(store)
        card: dict[str, Any] = {name: bindparam(f"r_{name}") for name in _CARD}
        self.card = (store._upsert(ReviewRow)
                     .values(user_id=bindparam("a_user_id"), item_id=bindparam("r_item_id"),
                             **card)
                     .on_conflict_do_update(index_elements=["user_id", "item_id"], set_=card))
        # PostgreSQL takes all the writes (and the card's, when there is one) in one
        # statement, one round trip: the item's row, which every answer of the round updates,
        # is then locked for the least time. SQLite, which has no data-modifying CTEs and no
        # round trips, takes them one by one.
        if postgres:
            ctes = (totals.cte("totals"), week.cte("week"), items.cte("items"),
                    topics.cte("topics"))
            self.writes: list[Any] = [select(self.insert.cte("new_answer")).add_cte(*ctes)]
            self.carded: list[Any] = [select(self.insert.cte("new_answer")).add_cte(
                *ctes, self.card.cte("card"))]
        else:
            self.writes = [self.insert, totals, week, items, topics]
            self.carded = [*self.writes, self.card]


def _add_statement(store: StoreBase, table: TotalsTable, prefix: str, key: tuple[str, ...],
                   *, streak: bool = False) -> Any:
    """Return an upsert adding bound totals to the row under ``key``, or creating it.

    ``streak``: the row also keeps the member's streak (ScoreTotalRow), set from bound ``k_*``
    values when ``k_set`` (the answer solved its round). It is compared and set: when the
    stored streak is no longer the one the answer read (``k_was_on``, ``k_was_through``: a
    concurrent solve of another round of the channel by the same member), it is marked stale
    (``streak_through`` -1), and the boards walk that member's solved rounds until the next
    solve counts it again.
    """
    columns: dict[str, Any] = {"user_id": bindparam("a_user_id")}
    columns.update({name: bindparam(name) for name in key if name != "user_id"})
    columns.update({name: bindparam(f"{prefix}_{name}") for name in _TOTALS})
    if streak:
        columns.update({name: bindparam(f"k_{name}") for name in _STREAK})
    stmt = store._upsert(table).values(columns)
    new = stmt.excluded
    later = case(
        (new.last_solved_at.is_(None), table.last_solved_at),
        (table.last_solved_at.is_(None), new.last_solved_at),
        (new.last_solved_at > table.last_solved_at, new.last_solved_at),
        else_=table.last_solved_at,
    )
    changes: dict[str, Any] = {
        "points": table.points + new.points,
        "solved": table.solved + new.solved,
        "first_try": table.first_try + new.first_try,
        "attempted": table.attempted + new.attempted,
        "last_solved_at": later,
    }
    if streak:
        solve: Any = bindparam("k_set", type_=Boolean)
        as_read = and_(
            ScoreTotalRow.streak_on.is_not_distinct_from(bindparam("k_was_on", type_=Date)),
            ScoreTotalRow.streak_through == bindparam("k_was_through", type_=Integer),
        )
        for name in _STREAK:
            column = getattr(table, name)
            stale = literal(-1) if name == "streak_through" else column
            changes[name] = case((and_(solve, as_read), getattr(new, name)),
                                 (solve, stale), else_=column)
    return stmt.on_conflict_do_update(index_elements=list(key), set_=changes)


def _add_items(store: StoreBase) -> Any:
    """Return an upsert adding what an answer changes to its channel's counts for its item.

    Every answer of a round updates this one row: on PostgreSQL its row lock is held from
    this write (the last of the answer's) to the commit, a fraction of a millisecond.
    """
    stmt = store._upsert(ItemTotalRow).values(
        channel_id=bindparam("channel_id"), item_id=bindparam("i_item_id"),
        answered=bindparam("s_attempted"), solved=bindparam("s_solved"),
        first_try=bindparam("s_first_try"))
    new = stmt.excluded
    return stmt.on_conflict_do_update(
        index_elements=["channel_id", "item_id"],
        set_={"answered": ItemTotalRow.answered + new.answered,
              "solved": ItemTotalRow.solved + new.solved,
              "first_try": ItemTotalRow.first_try + new.first_try})


def _add_topics(store: StoreBase) -> Any:
    """Return an upsert adding what an answer adds to all time to each topic of its item.

    The topics are item_topics' rows of the round's item (none: nothing is added); a round has
    one item, so what the answer adds to a topic is what it adds to the member's all-time
    totals (the bound ``s_*``).
    """
    columns = ("channel_id", "topic", "user_id", *_TOTALS)
    rows = select(
        bindparam("channel_id", type_=Integer), ItemTopicRow.topic,
        bindparam("a_user_id", type_=Integer),
        *(bindparam(f"s_{name}", type_=TopicTotalRow.__table__.c[name].type)
          for name in _TOTALS),
    ).where(ItemTopicRow.item_id == bindparam("i_item_id"))
    stmt = store._upsert(TopicTotalRow).from_select(list(columns), rows)
    new = stmt.excluded
    later = case(
        (new.last_solved_at.is_(None), TopicTotalRow.last_solved_at),
        (TopicTotalRow.last_solved_at.is_(None), new.last_solved_at),
        (new.last_solved_at > TopicTotalRow.last_solved_at, new.last_solved_at),
        else_=TopicTotalRow.last_solved_at,
    )
    return stmt.on_conflict_do_update(
        index_elements=["channel_id", "topic", "user_id"],
        set_={"points": TopicTotalRow.points + new.points,
              "solved": TopicTotalRow.solved + new.solved,
              "first_try": TopicTotalRow.first_try + new.first_try,
              "attempted": TopicTotalRow.attempted + new.attempted,
              "last_solved_at": later})


def recount_items(session: Session, channel_ids: list[int]) -> None:
    """Count the channels' item_totals again from their answers (after a member is forgotten).

    A forgotten member's tries at a round still open stay without a member: together they
    count as one member-round, as /stats team always counted them.
    """
    if not channel_ids:
        return
    answers = Table("answers", AnswerRow.metadata)
    member_rounds = (
        select(
            RoundRow.channel_id.label("channel_id"),
            RoundRow.item_id.label("item_id"),
            func.max(case((answers.c.correct, 1), else_=0)).label("solved"),
            func.max(case((and_(answers.c.correct, answers.c.attempt == 1), 1), else_=0))
            .label("first"),
        )
        .join(answers, answers.c.round_id == RoundRow.id)
        .where(RoundRow.channel_id.in_(channel_ids))
        .group_by(RoundRow.id, RoundRow.channel_id, RoundRow.item_id, answers.c.user_id)
        .subquery()
    )
    session.execute(delete(ItemTotalRow).where(ItemTotalRow.channel_id.in_(channel_ids)))
    session.execute(insert(ItemTotalRow).from_select(
        ["channel_id", "item_id", "answered", "solved", "first_try"],
        select(member_rounds.c.channel_id, member_rounds.c.item_id, func.count(),
               func.sum(member_rounds.c.solved), func.sum(member_rounds.c.first))
        .group_by(member_rounds.c.channel_id, member_rounds.c.item_id)))


def _values(prefix: str, delta: Totals) -> dict[str, Any]:
    return {f"{prefix}_{name}": getattr(delta, name) for name in _TOTALS}


class AnswerStore(StoreBase):
    """Answers of the QuizStore port, recorded with their totals."""

    @cached_property
    def _answer_statements(self) -> _AnswerStatements:
        return _AnswerStatements(self, self._postgres)

    # ------------------------------------------------------------------ writing answers
    def record_answer(self, draft: AnswerDraft, review: Review | None = None
                      ) -> AnswerRecord | None:
        """Store the answer and add it to the member's totals; None when already recorded.

        ``review``: the member's FSRS card after this answer, saved in the same transaction.

        Retried once when the connection drops (db.retry). The first try may have committed
        before the connection went: the retry then finds the very answer it was storing and
        returns it, as the first try would have, instead of calling it a duplicate.
        """
        return run_retrying(
            self._engine, "record_answer",
            lambda retried: self._record_answer(draft, retried, review),
        )

    def _record_answer(self, draft: AnswerDraft, retried: bool,
                       review: Review | None) -> AnswerRecord | None:
        if retried and (stored := self.stored_as(draft)) is not None:
            log.info(
                "answer was recorded before the connection dropped: round=%s user=%s attempt=%s",
                draft.round_id, draft.user_id, draft.attempt,
            )
            return stored
        try:
            # A Core connection, not a Session: the ORM's bookkeeping cost a third of an
            # answer's time on SQLite (measured), and nothing here needs it.
            with self._engine.begin() as connection:
                return self._record(connection, draft, review)
        except IntegrityError:
            # A replica still on the code before totals raced this one, or a bug (an unknown
            # round or member), which must surface.
            if not any(
                a.attempt == draft.attempt for a in self.answers_for(draft.round_id, draft.user_id)
            ):
                raise
            self._log_duplicate(draft)
            return None

    def record_speed_answer(self, verdict: SpeedVerdictRecord,
                            draft: AnswerDraft) -> AnswerRecord | None:
        """Store a daily speed round's try: its verdict and its answer, in one transaction.

        None when that try was stored already (a retried request, a second replica): the
        answer's unique (round, member, attempt) and the verdict's decide, so a try is kept
        once with its totals, or not at all.
        """
        try:
            with self._engine.begin() as connection:
                stored = self._record(connection, draft)
                if stored is not None:
                    connection.execute(insert(SpeedVerdictRow).values(**verdict_values(verdict)))
                return stored
        except IntegrityError:
            if not any(a.attempt == draft.attempt
                       for a in self.answers_for(draft.round_id, draft.user_id)):
                raise
            self._log_duplicate(draft)
            return None

    def _count_in_round(self, connection: Connection, record: SpeedVerdictRecord,
                        counted: RoundCount) -> None:
        """Record the answer a released speed verdict adds to its round, on ``connection``.

        The member's answers there are read in the same transaction; a clash of attempts (a try
        of theirs stored meanwhile) raises and rolls the release back, for the admin to retry.
        """
        rows = connection.execute(_ANSWERS_FOR, {"round_id": record.round_id,
                                                 "user_id": record.user_id}).all()
        draft = counted(record, [_answer(row) for row in rows])
        if self._record(connection, draft) is None:
            raise LookupError(f"attempt {draft.attempt} of round {draft.round_id} taken")

    def _record(self, connection: Connection, draft: AnswerDraft,
                review: Review | None = None) -> AnswerRecord | None:
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
            Answer(draft.round_id, draft.user_id, *row[2:6])
            for row in place
            if row[2] is not None
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
        added = added_by(new, earlier)
        params = {
            **answer,
            "channel_id": channel_id,
            "week_start": week,
            **_values("s", added),
            **_values("w", added_by(new, same_week)),
            "i_item_id": place[0][6],
            **self._streak_values(connection, draft, channel_id, place[0][7:], added.solved > 0),
        }
        writes = sql.writes
        if review is not None:
            writes = sql.carded
            params.update({"r_item_id": review.item_id,
                           **{f"r_{name}": getattr(review, name) for name in _CARD}})
        # The first write inserts the answer and returns it; an unknown member fails there.
        stored = connection.execute(writes[0], params).one()
        for write in writes[1:]:
            connection.execute(write, params)
        return _answer(stored)

    def _streak_values(self, connection: Connection, draft: AnswerDraft, channel_id: int,
                       read: Any, solves: bool) -> dict[str, Any]:
        """Return the bound ``k_*`` values: the member's streak after this answer.

        ``read`` is what the answer's read found: the round's date, the stored streak's
        columns (NULLs without a row) and the channel's rounds dated up to the round and up to
        the stored streak's round. A solve of a round after the stored one walks only the
        rounds between (all missed); anything else (a first solve needs nothing, a late solve
        of an earlier round, a stale streak) walks the member's solved rounds again.
        """
        day, was_on, was_through, current, best, freezes, toward, upto_day, upto_was = read
        values: dict[str, Any] = {"k_set": solves, "k_was_on": was_on,
                                  "k_was_through": was_through}
        if not solves:
            return {**values, **dict.fromkeys((f"k_{n}" for n in _STREAK), 0), "k_streak_on": None}
        if was_on is None:
            state, through = streak_step(StreakState(), True), upto_day
        elif day > was_on and upto_was == was_through:
            state = streak_misses(StreakState(current, best, freezes, toward),
                                  upto_day - 1 - upto_was)
            state, through = streak_step(state, True), upto_day
        else:
            day, state, through = self._walk_streak(connection, draft, channel_id, day)
        return {**values, "k_streak_on": day, "k_streak_through": through,
                "k_streak": state.current, "k_best_streak": state.best,
                "k_freezes": state.freezes, "k_toward_freeze": state.toward_freeze}

    def _walk_streak(self, connection: Connection, draft: AnswerDraft, channel_id: int,
                     day: dt.date) -> tuple[dt.date, StreakState, int]:
        """Walk the channel's rounds up to the member's latest solve; return its streak."""
        sql = self._answer_statements
        params = {"channel_id": channel_id, "a_user_id": draft.user_id}
        solved = {d for (d,) in connection.execute(sql.solved_dates, params)} | {day}
        latest = max(solved)
        state, through = StreakState(), 0
        for (on,) in connection.execute(sql.round_dates, params):
            if on > latest:
                break
            state, through = streak_step(state, on in solved), through + 1
        return latest, state, through

    @staticmethod
    def _log_duplicate(draft: AnswerDraft) -> None:
        log.info(
            "answer already recorded: round=%s user=%s attempt=%s",
            draft.round_id,
            draft.user_id,
            draft.attempt,
        )

    def stored_as(self, draft: AnswerDraft) -> AnswerRecord | None:
        """Return the stored answer that is exactly ``draft``, or None.

        Only a retry asks: an earlier answer to the same attempt that differs in anything
        (another click, another time) is someone else's try, not this one's.
        """
        for stored in self.answers_for(draft.round_id, draft.user_id):
            if stored.attempt == draft.attempt and _same(stored, draft):
                return stored
        return None

    def answers_for(self, round_id: int, user_id: int) -> list[AnswerRecord]:
        """Return a member's answers to a round, by attempt."""
        rows = self._fetch(_ANSWERS_FOR, {"round_id": round_id, "user_id": user_id})
        return [_answer(row) for row in rows]


# Built once, like the statements above.
_ANSWERS = Table("answers", AnswerRow.metadata)
_ANSWERS_FOR = (
    select(_ANSWERS)
    .where(_ANSWERS.c.round_id == bindparam("round_id"), _ANSWERS.c.user_id == bindparam("user_id"))
    .order_by(_ANSWERS.c.attempt)
)
