"""Read everything stored about one member, and forget them, totals kept equal to a recount.

A member's data is a list of sections, one per table that holds rows about them. Each section
is one entry of ``SECTIONS``: its table (every one has a ``user_id``) and one function that
reads its rows as plain values. ``forget_member`` deletes each section's rows by ``user_id``,
then the member's own row, in one transaction; a table added later that references the member
and is not a section makes that last delete fail on its foreign key, so nothing is forgotten
by halves.

The member row is deleted, not anonymised: every row that points at it belongs to a section and
goes first. One exception keeps a round fair: the member's tries at a round that is still open
stay as anonymous facts (``anonymise_open_tries``), so the round's first-try figures hold and
the same person, back under a new member row, goes on from their next try instead of starting
over. The totals a board reads (``score_totals``, ``week_totals``) are per member, so
deleting the member's rows of them leaves every other member's totals exactly what a recount
of the remaining answers gives; a round's tally is counted from the answers themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, select, union
from sqlalchemy.orm import Session

from bot.core.kernel.models import DataSection, ForgetReport, Member, MemberData, RoundStatus, Row
from db.forgotten import anonymise_open_tries
from db.retry import retry_on_disconnect
from db.store_answers import lock_channel_answers, recount_items
from db.store_base import StoreBase, rowcount
from db.store_channels import _member
from db.store_live import live_answer_rows, live_player_rows
from db.store_web import end_member_sessions
from db.tables import (
    AnswerRow,
    Base,
    ChannelRow,
    LiveAnswerRow,
    LivePlayerRow,
    PendingAnswerRow,
    PracticeResultRow,
    PracticeSessionRow,
    ReminderRow,
    ReportRow,
    ReviewRow,
    RoundRow,
    ScoreTotalRow,
    SpeedOpenRow,
    SpeedVerdictRow,
    TopicTotalRow,
    UserRow,
    WeekTotalRow,
    WorkspaceRow,
)

# A section's reader: (session, member id, workspace id or None for all) -> rows, oldest first.
Reader = Callable[[Session, int, int | None], list[Row]]


@dataclass(frozen=True)
class Section:
    """One table's rows about a member: how to read them; they are deleted by ``user_id``."""

    name: str
    table: type[Base]
    read: Reader
    by_workspace: bool = False  # rows tied to a channel: an export can narrow them


def _in_workspace(stmt: Any, channel_id: Any, workspace_id: int | None) -> Any:
    """Return ``stmt`` narrowed to the channels of ``workspace_id`` (all when None)."""
    if workspace_id is None:
        return stmt
    return stmt.where(channel_id.in_(
        select(ChannelRow.id).where(ChannelRow.workspace_id == workspace_id)))


def _place() -> tuple[Any, ...]:
    """Return the columns that say where a round was: channel, its workspace, date and item."""
    return (ChannelRow.external_id.label("channel"), ChannelRow.name.label("channel_name"),
            WorkspaceRow.external_id.label("workspace"), RoundRow.local_date.label("round_date"),
            RoundRow.item_id, RoundRow.item_version)


def _rows(session: Session, stmt: Any) -> list[Row]:
    return [dict(row._mapping) for row in session.execute(stmt)]


def _answers(session: Session, user_id: int, workspace_id: int | None) -> list[Row]:
    stmt = (
        select(AnswerRow.round_id, *_place(), AnswerRow.attempt, AnswerRow.mode,
               AnswerRow.response, AnswerRow.correct, AnswerRow.points, AnswerRow.verdict_status,
               AnswerRow.submitted_at)
        .join(RoundRow, RoundRow.id == AnswerRow.round_id)
        .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
        .join(WorkspaceRow, WorkspaceRow.id == ChannelRow.workspace_id)
        .where(AnswerRow.user_id == user_id)
        .order_by(AnswerRow.submitted_at, AnswerRow.id)
    )
    return _rows(session, _in_workspace(stmt, RoundRow.channel_id, workspace_id))


def _pending_answers(session: Session, user_id: int, workspace_id: int | None) -> list[Row]:
    stmt = (
        select(PendingAnswerRow.round_id, *_place(), PendingAnswerRow.mode,
               PendingAnswerRow.response, PendingAnswerRow.locale, PendingAnswerRow.submitted_at,
               PendingAnswerRow.claimed_at.label("grading_since"))
        .join(RoundRow, RoundRow.id == PendingAnswerRow.round_id)
        .join(ChannelRow, ChannelRow.id == RoundRow.channel_id)
        .join(WorkspaceRow, WorkspaceRow.id == ChannelRow.workspace_id)
        .where(PendingAnswerRow.user_id == user_id)
        .order_by(PendingAnswerRow.id)
    )
    return _rows(session, _in_workspace(stmt, RoundRow.channel_id, workspace_id))


def _totals(table: type[ScoreTotalRow] | type[WeekTotalRow]) -> Reader:
    def read(session: Session, user_id: int, workspace_id: int | None) -> list[Row]:
        week = [WeekTotalRow.week_start] if table is WeekTotalRow else []
        stmt = (
            select(ChannelRow.external_id.label("channel"), ChannelRow.name.label("channel_name"),
                   WorkspaceRow.external_id.label("workspace"), *week, table.points,
                   table.solved, table.first_try, table.attempted, table.last_solved_at)
            .join(ChannelRow, ChannelRow.id == table.channel_id)
            .join(WorkspaceRow, WorkspaceRow.id == ChannelRow.workspace_id)
            .where(table.user_id == user_id)
            .order_by(table.channel_id, *week)
        )
        return _rows(session, _in_workspace(stmt, table.channel_id, workspace_id))

    return read


def _topic_totals(session: Session, user_id: int, workspace_id: int | None) -> list[Row]:
    stmt = (
        select(ChannelRow.external_id.label("channel"), ChannelRow.name.label("channel_name"),
               WorkspaceRow.external_id.label("workspace"), TopicTotalRow.topic,
               TopicTotalRow.points, TopicTotalRow.solved, TopicTotalRow.first_try,
               TopicTotalRow.attempted, TopicTotalRow.last_solved_at)
        .join(ChannelRow, ChannelRow.id == TopicTotalRow.channel_id)
        .join(WorkspaceRow, WorkspaceRow.id == ChannelRow.workspace_id)
        .where(TopicTotalRow.user_id == user_id)
        .order_by(TopicTotalRow.channel_id, TopicTotalRow.topic)
    )
    return _rows(session, _in_workspace(stmt, TopicTotalRow.channel_id, workspace_id))


def _practice_session(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    stmt = select(PracticeSessionRow.item_id, PracticeSessionRow.item_version,
                  PracticeSessionRow.started_at, PracticeSessionRow.attempts).where(
        PracticeSessionRow.user_id == user_id)
    return _rows(session, stmt)


def _practice_results(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    stmt = (
        select(PracticeResultRow.item_id, PracticeResultRow.item_version,
               PracticeResultRow.correct, PracticeResultRow.first_try,
               PracticeResultRow.answered_at)
        .where(PracticeResultRow.user_id == user_id)
        .order_by(PracticeResultRow.answered_at, PracticeResultRow.id)
    )
    return _rows(session, stmt)


def _review_cards(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    stmt = (
        select(ReviewRow.item_id, ReviewRow.state, ReviewRow.step, ReviewRow.stability,
               ReviewRow.difficulty, ReviewRow.due_at, ReviewRow.last_correct,
               ReviewRow.reviewed_at)
        .where(ReviewRow.user_id == user_id)
        .order_by(ReviewRow.due_at, ReviewRow.item_id)
    )
    return _rows(session, stmt)


def _reports(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    stmt = (
        select(ReportRow.item_id, ReportRow.item_version, ReportRow.reason, ReportRow.note,
               ReportRow.platform, ReportRow.workspace, ReportRow.status, ReportRow.created_at,
               ReportRow.closed_at, ReportRow.close_reason)
        .where(ReportRow.user_id == user_id)
        .order_by(ReportRow.created_at, ReportRow.id)
    )
    return _rows(session, stmt)


def _reminders(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    stmt = select(ReminderRow.local_time, ReminderRow.timezone, ReminderRow.enabled,
                  ReminderRow.next_at, ReminderRow.last_sent, ReminderRow.snoozed_until,
                  ReminderRow.stopped).where(ReminderRow.user_id == user_id)
    return [{**row, "local_time": str(row["local_time"])} for row in _rows(session, stmt)]


def _speed_verdicts(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    stmt = (
        select(SpeedVerdictRow.item_id, SpeedVerdictRow.item_version, SpeedVerdictRow.workspace,
               SpeedVerdictRow.status, SpeedVerdictRow.faster, SpeedVerdictRow.held,
               SpeedVerdictRow.score, SpeedVerdictRow.shapes, SpeedVerdictRow.created_at)
        .where(SpeedVerdictRow.user_id == user_id)
        .order_by(SpeedVerdictRow.created_at, SpeedVerdictRow.id)
    )
    return _rows(session, stmt)


def _speed_challenge(session: Session, user_id: int, _workspace_id: int | None) -> list[Row]:
    stmt = select(SpeedOpenRow.item_id, SpeedOpenRow.item_version,
                  SpeedOpenRow.started_at).where(SpeedOpenRow.user_id == user_id)
    return _rows(session, stmt)


# Every table that holds rows about a member, in the order an export lists them. A table added
# later (reports, reminders, privacy settings) joins with one reader and one line here.
SECTIONS: tuple[Section, ...] = (
    Section("answers", AnswerRow, _answers, by_workspace=True),
    Section("pending_answers", PendingAnswerRow, _pending_answers, by_workspace=True),
    Section("score_totals", ScoreTotalRow, _totals(ScoreTotalRow), by_workspace=True),
    Section("week_totals", WeekTotalRow, _totals(WeekTotalRow), by_workspace=True),
    # The per-topic board's totals (migration 0030), kept with answers like the two above.
    Section("topic_totals", TopicTotalRow, _topic_totals, by_workspace=True),
    Section("practice_session", PracticeSessionRow, _practice_session),
    Section("practice_results", PracticeResultRow, _practice_results),
    Section("review_cards", ReviewRow, _review_cards),
    # A report's workspace is the platform's id, not a channel: it belongs to the member.
    Section("reports", ReportRow, _reports),
    Section("reminders", ReminderRow, _reminders),
    # Live sessions' answers and joins (db/store_live.py); the session itself names nobody.
    Section("live_answers", LiveAnswerRow, live_answer_rows),
    Section("live_players", LivePlayerRow, live_player_rows),
    # Speed challenges in chat (db/store_speed.py): every verdict, and the one open challenge.
    Section("speed_verdicts", SpeedVerdictRow, _speed_verdicts),
    Section("speed_challenge", SpeedOpenRow, _speed_challenge),
)


def _user_id_of(table: type[Base]) -> Any:
    return table.__table__.c.user_id


def _channels_of(session: Session, user_id: int) -> list[int]:
    """Return the ids of the channels the member has answers, pending answers or totals in."""
    answered = (select(RoundRow.channel_id)
                .join(AnswerRow, AnswerRow.round_id == RoundRow.id)
                .where(AnswerRow.user_id == user_id))
    waiting = (select(RoundRow.channel_id)
               .join(PendingAnswerRow, PendingAnswerRow.round_id == RoundRow.id)
               .where(PendingAnswerRow.user_id == user_id))
    totals = select(ScoreTotalRow.channel_id).where(ScoreTotalRow.user_id == user_id)
    weeks = select(WeekTotalRow.channel_id).where(WeekTotalRow.user_id == user_id)
    return sorted(session.scalars(union(answered, waiting, totals, weeks)))


def _open_rounds_of(session: Session, user_id: int) -> list[int]:
    """Return the open rounds the member answered: their posted tally changes."""
    stmt = (select(RoundRow.id).join(AnswerRow, AnswerRow.round_id == RoundRow.id)
            .where(AnswerRow.user_id == user_id, RoundRow.status == RoundStatus.OPEN.value)
            .distinct().order_by(RoundRow.id))
    return list(session.scalars(stmt))


class MemberStore(StoreBase):
    """A member's own data of the QuizStore port: export and forget."""

    sections: Sequence[Section] = SECTIONS

    @staticmethod
    def _find(session: Session, *where: ColumnElement[bool]) -> Member | None:
        row = session.scalars(select(UserRow).where(*where)).one_or_none()
        return _member(row) if row is not None else None

    @retry_on_disconnect
    def member_data(
        self, platform: str, external_id: str, workspace: str | None = None
    ) -> MemberData | None:
        """Return everything stored about the member, section by section; None if unknown.

        ``workspace`` narrows the sections tied to channels to that workspace's channels; a
        workspace the platform does not know makes the member unknown there (None).
        """
        with self._read() as session:
            member = self._find(session, UserRow.platform == platform,
                                UserRow.external_id == external_id)
            if member is None:
                return None
            workspace_id = None
            if workspace is not None:
                workspace_id = session.scalars(select(WorkspaceRow.id).where(
                    WorkspaceRow.platform == platform, WorkspaceRow.external_id == workspace,
                )).one_or_none()
                if workspace_id is None:
                    return None
            sections = tuple(
                DataSection(s.name, tuple(s.read(session, member.id, workspace_id)),
                            s.by_workspace)
                for s in self.sections
            )
        return MemberData(member, sections, workspace)

    def forget_member(self, platform: str, external_id: str) -> ForgetReport | None:
        """Delete the member and every row about them in one transaction; None if unknown.

        Not retried on a dropped connection: the caller tells the member it failed, and a
        second click finds either everything or nothing left.
        """
        who = (UserRow.platform == platform, UserRow.external_id == external_id)
        with self._transaction() as session:
            member = self._find(session, *who)
            if member is None:
                return None
            # A change of zone recounting a channel's week would write the member's rows back:
            # take those channels first, in id order as every taker does, then the member row,
            # which holds off answers in flight (PostgreSQL: their foreign key waits on it).
            channels = _channels_of(session, member.id)
            for channel_id in channels:
                lock_channel_answers(session, channel_id)
            session.execute(select(UserRow.id).where(*who).with_for_update())
            open_rounds = _open_rounds_of(session, member.id)
            kept = anonymise_open_tries(session, member, open_rounds)
            deleted = tuple(
                (s.name, rowcount(session, delete(s.table).where(
                    _user_id_of(s.table) == member.id)))
                for s in self.sections
            )
            session.execute(delete(UserRow).where(UserRow.id == member.id))
            end_member_sessions(session, platform, external_id)  # the web page signs them out
            # /stats team counts by member-round: count the member's channels from what is left.
            recount_items(session, channels)
        return ForgetReport(member, deleted, tuple(open_rounds), kept_anonymous=kept)

