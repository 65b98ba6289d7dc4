"""Speed challenges in chat: serve one, time an answer, keep the verdict, rank, review.

``/quiz speed`` serves a challenge (its prompt in the channel's language, the slow reference
as the starting code, the signature); the member's code goes to the ``SpeedExecutor`` port
(the sandboxed timer), whose verdict is read once (report.py) and kept. ``/quiz-speed ID``
ranks each member's best faster verdict in the channel; held verdicts wait for an admin, who
releases or rejects them (written to the audit log).
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.audit import AuditService
from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import (
    Button,
    Form,
    Message,
    Tone,
    speed_form_action,
    speed_review_action,
)
from bot.core.kernel.models import AnswerDraft, AnswerMode, AnswerRecord, Member
from bot.core.kernel.ports import Clock, SpeedExecutor, SpeedVerdictView
from bot.core.kernel.speed_records import (
    PENDING,
    REJECTED,
    RELEASED,
    SpeedShapeFigure,
    SpeedVerdictRecord,
)
from bot.core.questions import diagnostics
from bot.core.speed.report import read_report, times
from bot.core.speed.rounds import speed_points
from bot.core.speed.store import SpeedStore
from content.loader import Bank
from content.schema import SpeedItem

log = logging.getLogger(__name__)

MAX_CODE_CHARS = 16_000  # a speed answer is one function or a few: longer is a paste gone wrong
BOARD_ROWS = 15
HELD_ROWS = 10  # two buttons each: within a message's limits on both platforms
_NAME_WIDTH = 18
_DECISIONS = {"release": RELEASED, "reject": REJECTED}
# The timer takes one verdict at a time, seconds each: one timing and one waiting per process
# at most, so speed answers never hold every worker thread of a chat process.
IN_FLIGHT = 2


@dataclass(frozen=True)
class Where:
    """Where a speed request comes from: the workspace's scope and the quiz channel, if any."""

    platform: str
    workspace: str  # the platform's id of the workspace
    scope: str  # PLATFORM:WORKSPACE
    channel_id: int | None


def _cell(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class SpeedService:
    """Serve speed challenges, time answers, keep verdicts, rank them, review held ones."""

    def __init__(self, store: SpeedStore, bank: Bank, clock: Clock,
                 executor: SpeedExecutor | None, audit: AuditService) -> None:
        self.store = store
        self.bank = bank
        self.clock = clock
        self.executor = executor
        self.audit = audit
        self._slots = threading.BoundedSemaphore(IN_FLIGHT)

    # ------------------------------------------------------------ the challenges
    def items(self) -> list[SpeedItem]:
        """Return the shipped speed challenges, in id order."""
        return [s for _, s in sorted(self.bank.speed.items()) if s.id.startswith("speed.")]

    def item(self, item_id: str) -> SpeedItem | None:
        """Return the shipped challenge ``item_id`` (bounded, folded), or None."""
        wanted = item_id.strip().lower()[:120]
        if wanted and not wanted.startswith("speed."):
            wanted = f"speed.{wanted}"
        found = self.bank.speed.get(wanted)
        return found if found is not None and found.id.startswith("speed.") else None

    def listing(self, locale: str) -> Message:
        """Return the challenges, one line each: id, target and the start of the task."""
        lines = []
        for item in self.items():
            prompt = " ".join(item.prompt.get(locale).split())
            short = prompt if len(prompt) <= 90 else prompt[:89] + "…"
            lines.append(t(locale, "speed.list.line", id=item.id,
                           target=times(item.speed.target_speedup), task=short))
        body = "\n".join(lines) if lines else t(locale, "speed.list.empty")
        return Message(title=t(locale, "speed.list.title"), body=body,
                       footer=t(locale, "speed.list.footer"))

    def unknown(self, locale: str, item_id: str) -> Message:
        """Return the refusal of a challenge id the bank does not have."""
        shown = item_id.strip()[:40]
        return Message(body=t(locale, "speed.unknown"), quotes=((t(locale, "speed.asked"),
                                                                shown),), tone=Tone.WARNING)

    def serve(self, member: Member, item_id: str, locale: str) -> Message:
        """Serve ``item_id`` (or, without one, the open challenge, else one drawn for today)."""
        if item_id:
            item = self.item(item_id)
            if item is None:
                return self.unknown(locale, item_id)
        else:
            items = self.items()
            if not items:
                return Message(body=t(locale, "speed.list.empty"), tone=Tone.WARNING)
            current = self.store.current_speed(member.id)
            item = self.item(current.item_id) if current is not None else None
            if item is None:
                day = self.clock.now().date().isoformat()
                item = items[zlib.crc32(f"{member.id}:{day}".encode()) % len(items)]
        self.store.open_speed(member.id, item.id, item.version, self.clock.now())
        spec = item.speed
        body = "\n\n".join((
            item.prompt.get(locale),
            t(locale, "speed.serve.signature", signature=spec.signature),
            t(locale, "speed.serve.rules", target=times(spec.target_speedup),
              shapes=len(spec.shapes)),
        ))
        return Message(title=t(locale, "speed.serve.title", id=item.id), body=body,
                       code=spec.reference.rstrip("\n"), form=self.form(item, locale),
                       footer=t(locale, "speed.serve.footer", id=item.id))

    @staticmethod
    def form(item: SpeedItem, locale: str) -> Form:
        """Return the code form of ``item``: prefilled with the reference, to make faster."""
        return Form(speed_form_action(item.id), t(locale, "speed.form.button"),
                    t(locale, "speed.form.title"), t(locale, "speed.form.field"), code=True,
                    prefill=item.speed.reference.rstrip("\n"))

    def open_form(self, item_id: str, locale: str) -> Form | None:
        """Return the code form of the challenge a button names (None: no such challenge)."""
        item = self.item(item_id)
        return self.form(item, locale) if item is not None else None

    def open_item(self, member: Member) -> SpeedItem | None:
        """Return the member's open challenge, if it is still in the bank."""
        current = self.store.current_speed(member.id)
        return self.item(current.item_id) if current is not None else None

    # ------------------------------------------------------------ an answer
    def submit(self, member: Member, where: Where, item_id: str, code: str,
               locale: str) -> Message:
        """Time ``code`` against ``item_id``'s reference; keep and word the verdict."""
        item = self.item(item_id)
        if item is None:
            return self.unknown(locale, item_id)
        timed = self.time(member, item, code, locale)
        if isinstance(timed, Message):
            return timed
        record, message = self.assess(member, where, item, timed, locale)
        if record is not None:
            self.store.add_speed_verdict(record)
        return message

    def time(self, member: Member, item: SpeedItem, code: str,
             locale: str) -> SpeedVerdictView | Message:
        """Time ``code`` on the SpeedExecutor port; a Message when refused or nothing timed it.

        Code too long or empty is refused before anything runs; at most IN_FLIGHT verdicts
        are timed at once per process (the others are told the timer is busy).
        """
        if len(code) > MAX_CODE_CHARS:
            return Message(body=t(locale, "speed.too_long", size=len(code),
                                  limit=MAX_CODE_CHARS), tone=Tone.WARNING)
        if not code.strip():
            return Message(body=t(locale, "speed.empty"), tone=Tone.WARNING)
        if self.executor is None:
            return Message(body=t(locale, "speed.unavailable"), tone=Tone.WARNING)
        if not self._slots.acquire(blocking=False):
            return Message(body=t(locale, "speed.busy"), tone=Tone.WARNING)
        try:
            verdict = self.executor.speed(item.id, code)
        except GradingUnavailable:
            return Message(body=t(locale, "speed.busy"), tone=Tone.WARNING)
        except Exception:
            log.exception("speed timing failed user=%s item=%s", member.id, item.id)
            return Message(body=t(locale, "error.internal"), tone=Tone.ERROR)
        finally:
            self._slots.release()
        return verdict

    def assess(self, member: Member, where: Where, item: SpeedItem, verdict: SpeedVerdictView,
               locale: str, *, round_id: int | None = None,
               attempt: int | None = None) -> tuple[SpeedVerdictRecord | None, Message]:
        """Return the verdict to keep (None: a fault or a refusal, not kept) and its wording.

        ``round_id`` and ``attempt``: the verdict answers a daily speed round (its own board
        line is the round's: the caller adds it).
        """
        title = t(locale, "speed.verdict.title", id=item.id)
        if verdict.fault:
            log.warning("speed fault item=%s user=%s", item.id, member.id)
            return None, Message(title=title, body=t(locale, "speed.verdict.fault"),
                                 tone=Tone.WARNING)
        status = verdict.status
        reading = read_report(verdict.speed) if verdict.speed is not None else None
        if verdict.speed is not None and reading is None:
            log.error("speed report unreadable item=%s", item.id)
            return None, Message(title=title, body=t(locale, "speed.verdict.fault"),
                                 tone=Tone.WARNING)
        explained = diagnostics.explain(locale, verdict.reason)
        detail = (verdict.reason.quote if explained is not None and verdict.reason
                  else verdict.message)  # fmt: skip
        if status == "rejected" or status not in ("passed", "failed", "error", "timeout",
                                                  "memory_limit", "output_limit"):
            lines = [t(locale, "speed.verdict.rejected"), *([explained] if explained else [])]
            return None, Message(title=title, body="\n".join(lines), detail=detail,
                                 tone=Tone.WARNING)
        now = self.clock.now()
        if reading is None:
            record = SpeedVerdictRecord(
                member.id, where.channel_id, where.scope, item.id, item.version, RELEASED,
                faster=False, held=False, score=0.0, shapes=(), reason="", created_at=now,
                round_id=round_id, attempt=attempt)
            key = "speed.verdict.wrong" if status == "failed" else f"speed.verdict.{status}"
            if status in ("output_limit",):
                key = "speed.verdict.error"
            return record, Message(title=title, body=t(locale, key), detail=detail,
                                   output=verdict.stdout or None, tone=Tone.ERROR)
        faster = reading.faster and status == "passed"
        held = reading.held and faster
        record = SpeedVerdictRecord(
            member.id, where.channel_id, where.scope, item.id, item.version,
            PENDING if held else RELEASED, faster=faster, held=held,
            score=reading.score if faster else 0.0, shapes=reading.shapes, reason=reading.reason,
            created_at=now, round_id=round_id, attempt=attempt)
        lines = [t(locale, "speed.verdict.faster", score=times(reading.score)) if faster else
                 t(locale, "speed.verdict.slower", at="1.1")]
        lines.extend(self._shape_line(s, locale) for s in reading.shapes)
        tol = item.speed.tolerance
        lines.append(t(locale, "speed.verdict.checked", calls=verdict.passed_tests,
                       rtol=f"{tol.rtol:g}", atol=f"{tol.atol:g}"))
        if held:
            lines.append(t(locale, "speed.verdict.held"))
        elif faster and round_id is None:
            lines.append(t(locale, "speed.verdict.board", id=item.id))
        return record, Message(title=title, body="\n".join(lines), output=verdict.stdout or None,
                               tone=Tone.SUCCESS if faster else Tone.INFO)

    @staticmethod
    def _shape_line(shape: SpeedShapeFigure, locale: str) -> str:
        return t(locale, "speed.verdict.shape", shape=shape.shape, speedup=times(shape.speedup),
                 low=times(shape.low), high=times(shape.high))

    # ------------------------------------------------------------ the board
    def board(self, item_id: str, channel_id: int, locale: str) -> Message:
        """Return the channel's board of ``item_id``: each visible member's best score."""
        item = self.item(item_id)
        if item is None:
            return self.unknown(locale, item_id)
        rows = self.store.speed_board(item.id, item.version, channel_id, BOARD_ROWS)
        title = t(locale, "speed.board.title", id=item.id)
        if not rows:
            return Message(title=title, body=t(locale, "speed.board.empty", id=item.id))
        lines = [t(locale, "speed.board.header")]
        for row in rows:
            lines.append(f"{row.rank:<3} {_cell(row.display_name, _NAME_WIDTH):<{_NAME_WIDTH}} "
                         f"{times(row.score) + '×':>8}  {row.at:%Y-%m-%d %H:%M}")
        return Message(title=title, code="\n".join(lines),
                       footer=t(locale, "speed.board.footer"))

    # ------------------------------------------------------------ held verdicts (admins)
    def _round_answer(self, verdict: SpeedVerdictRecord,
                      earlier: Sequence[AnswerRecord]) -> AnswerDraft:
        """Return the answer a released verdict adds to its round: the points above the best.

        At the time the verdict was sent (it counts after the round closed too), as the
        member's next attempt; the round counts the member's best once.
        """
        item = self.bank.speed.get(verdict.item_id)
        band = speed_points(item.difficulty, verdict.score) if item is not None else 0
        return AnswerDraft(
            round_id=verdict.round_id or 0, user_id=verdict.user_id,
            attempt=max((a.attempt for a in earlier), default=0) + 1, mode=AnswerMode.CODE,
            response=f"speed verdict {verdict.id} released", correct=True,
            points=max(0, band - sum(a.points for a in earlier)),
            submitted_at=verdict.created_at, verdict_status="passed")

    def held(self, where: Where, locale: str) -> Message:
        """Return the workspace's held verdicts, each with Release and Reject buttons."""
        rows = self.store.held_speed(where.scope, HELD_ROWS)
        title = t(locale, "speed.held.title")
        if not rows:
            return Message(title=title, body=t(locale, "speed.held.empty"))
        lines, buttons, quotes = [], [], []
        for row in rows:
            figures = ", ".join(f"{s.shape} {times(s.speedup)}×" for s in row.shapes)
            lines.append(t(locale, "speed.held.line", id=row.id, item=row.item_id,
                           score=times(row.score), shapes=figures,
                           at=f"{row.created_at:%Y-%m-%d %H:%M}"))
            quotes.append((t(locale, "speed.held.who", id=row.id), row.display_name))
            buttons.append(Button(speed_review_action(row.id, "release"),
                                  t(locale, "speed.held.release", id=row.id)))
            buttons.append(Button(speed_review_action(row.id, "reject"),
                                  t(locale, "speed.held.reject", id=row.id)))
        return Message(title=title, body="\n".join(lines), buttons=tuple(buttons),
                       quotes=tuple(quotes), footer=t(locale, "speed.held.footer"))

    def review(self, where: Where, actor: Member, is_admin: bool, verdict_id: int,
               decision: str, locale: str) -> Message:
        """Release or reject a held verdict of the workspace (admins only, checked here)."""
        if not is_admin:
            return Message(body=t(locale, "speed.held.denied"), tone=Tone.WARNING)
        status = _DECISIONS.get(decision)
        if status is None:
            return Message(body=t(locale, "speed.held.usage"), tone=Tone.WARNING)
        # Released, a daily speed round's verdict counts for its round in the same transaction.
        record = self.store.review_speed(verdict_id, where.scope, status,
                                         self._round_answer if status == RELEASED else None)
        if record is None:
            return Message(body=t(locale, "speed.held.gone", id=verdict_id), tone=Tone.WARNING)
        self.audit.record(platform=where.platform, workspace=where.workspace,
                          actor=actor.external_id, actor_name=actor.display_name,
                          action=f"speed.{decision}",
                          target=f"speed verdict {verdict_id} ({record.item_id})",
                          before=f"status={PENDING}", after=f"status={status}")
        return Message(body=t(locale, f"speed.held.done.{decision}", id=verdict_id,
                              item=record.item_id), tone=Tone.SUCCESS)
