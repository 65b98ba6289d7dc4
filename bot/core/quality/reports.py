"""Members report faulty questions; admins list and close the reports; answers teach back.

A report names an item *version*: the round's version for a daily question, the bank's for a
practice one, so a fixed question (its version bumped) starts with no reports. One report per
member per version (the store's unique key). The member's note is their own words: it is
capped here and travels in ``Message.quotes``, which every front end shows only through
``safetext.inert``.

The same first-try counts feed two views: the answer distribution at the reveal (bot/core/
posts.py) and the weekly post's misconception and hardest question (``week_extras``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.core.kernel.i18n import t
from bot.core.kernel.matching import fold
from bot.core.kernel.messages import Form, Message, Tone, practice_report_action, report_action
from bot.core.kernel.models import REPORT_REASONS, FirstTries, Member, Report, ReportDraft
from bot.core.kernel.ports import Clock
from bot.core.packs import library_of, workspace_scope
from bot.core.quality.store import ReportStore
from content.loader import Bank
from content.schema import ChoiceItem, Question, TextItem

log = logging.getLogger(__name__)

NOTE_CHARS = 500  # a report's note: a sentence or two, never a paste
CLOSE_REASON_CHARS = 300
LIST_ROWS = 10  # reports one chat listing shows; `torchquiz content reports` shows all
# The weekly extras need this many first tries in the week's closed rounds, a hardest question
# this many answerers, and a misconception this many members who chose the same wrong option.
WEEK_MIN_ANSWERS = 3
HARDEST_MIN_ANSWERERS = 3
MISCONCEPTION_MIN_MEMBERS = 2
PROMPT_CHARS = 120
WRONG_ANSWERS_SHOWN = 3
# The reveal is public: a wrong text answer is quoted only when this many members typed it
# (after folding), so it is the team's slip, never one member's words (rude ones included).
WRONG_ANSWER_MIN_MEMBERS = 3


def storable(text: str, limit: int) -> str:
    """Return a member's text as storage can keep it: capped, lone surrogates and NUL visible.

    Chat payloads are JSON, which can carry a lone surrogate; neither database stores one, and
    PostgreSQL stores no NUL. Everything else is kept as typed and made inert when shown.
    """
    kept = text.strip()[:limit].encode("utf-8", "backslashreplace").decode("utf-8")
    return kept.replace("\x00", "\\x00")[:limit]


def _short(text: str, limit: int = PROMPT_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def reason_label(locale: str, reason: str) -> str:
    """Return a report reason as members read it."""
    return t(locale, f"report.reason.{reason}")


def report_form(action_id: str, locale: str) -> Form:
    """Return the report form: a reason to pick and an optional note."""
    return Form(
        action_id=action_id, label=t(locale, "report.button"), title=t(locale, "report.title"),
        field_label=t(locale, "report.note", limit=NOTE_CHARS), max_chars=NOTE_CHARS,
        choices=tuple((r, reason_label(locale, r)) for r in REPORT_REASONS),
        choice_label=t(locale, "report.reason"), optional=True,
    )


@dataclass(frozen=True)
class Where:
    """Where a report is filed or listed: the platform and its workspace (server, team)."""

    platform: str
    workspace: str


class ReportService:
    """File, list and close reports of question versions."""

    def __init__(self, store: ReportStore, bank: Bank, clock: Clock) -> None:
        self.store = store
        self.bank = library_of(bank)
        self.clock = clock

    # ------------------------------------------------------------ members
    def form_for_round(self, round_id: int, locale: str) -> Form | None:
        """Return the report form of a round's question, None when there is no such round."""
        if self.store.get_round(round_id) is None:
            return None
        return report_form(report_action(round_id), locale)

    def form_for_item(self, item_id: str, locale: str, scope: str | None = None) -> Form | None:
        """Return the report form of a practice question, None when ``scope`` has no such item."""
        if item_id not in self.bank.questions or not self.bank.visible(item_id, scope):
            return None
        return report_form(practice_report_action(item_id), locale)

    def file_for_round(self, member: Member, where: Where, round_id: int, reason: str,
                       note: str, locale: str) -> Message:
        """Store a member's report of the question version a round showed, and thank them."""
        rnd = self.store.get_round(round_id)
        if rnd is None:
            return Message(body=t(locale, "report.gone"), tone=Tone.WARNING)
        return self._file(member, where, rnd.item_id, rnd.item_version, reason, note, locale,
                          round_id)

    def file_for_item(self, member: Member, where: Where, item_id: str, reason: str, note: str,
                      locale: str) -> Message:
        """Store a member's report of a practice question (the bank's current version)."""
        item = self.bank.questions.get(item_id)
        if item is None or not self.bank.visible(item_id, workspace_scope(where.platform,
                                                                          where.workspace)):
            return Message(body=t(locale, "report.gone"), tone=Tone.WARNING)
        return self._file(member, where, item.id, item.version, reason, note, locale, None)

    def _file(self, member: Member, where: Where, item_id: str, version: int, reason: str,
              note: str, locale: str, round_id: int | None) -> Message:
        reason = reason.strip().lower().replace("-", "_")
        if reason not in REPORT_REASONS:
            return Message(body=t(locale, "report.bad_reason", reasons=", ".join(REPORT_REASONS)),
                           tone=Tone.WARNING)
        draft = ReportDraft(
            user_id=member.id, item_id=item_id, item_version=version, reason=reason,
            note=storable(note, NOTE_CHARS), platform=where.platform, workspace=where.workspace,
            created_at=self.clock.now(), round_id=round_id,
        )
        stored = self.store.add_report(draft)
        if stored is None:
            return Message(body=t(locale, "report.already"), tone=Tone.INFO)
        log.info("report filed id=%s item=%s version=%s reason=%s user=%s", stored.id, item_id,
                 version, reason, member.id)
        return Message(body=t(locale, "report.thanks"), tone=Tone.SUCCESS)

    # ------------------------------------------------------------ admins
    def listing(self, where: Where | None, locale: str, limit: int | None = LIST_ROWS) -> Message:
        """Return the open reports (of one workspace; None: all) for an admin, notes inert."""
        platform, workspace = (where.platform, where.workspace) if where else (None, None)
        rows = self.store.reports(platform=platform, workspace=workspace, limit=limit)
        title = t(locale, "report.list.title")
        if not rows:
            return Message(title=title, body=t(locale, "report.list.empty"))
        total = self.store.count_reports(platform=platform, workspace=workspace)
        lines = [self.line(r, locale) for r in rows]
        if total > len(rows):
            lines.append(t(locale, "report.list.more", more=total - len(rows)))
        lines.append(t(locale, "report.list.how"))
        quotes = tuple((f"#{r.id}", r.note) for r in rows if r.note)
        return Message(title=title, body="\n".join(lines), quotes=quotes)

    def every_report(self, *, closed_too: bool = False) -> list[Report]:
        """Return every workspace's open reports (and the closed ones with ``closed_too``)."""
        return self.store.reports(status=None if closed_too else "open")

    def close_report(self, report_id: int, reason: str,
                     where: Where | None = None) -> Report | None:
        """Close an open report (of ``where``'s workspace; None: any) with a one-line reason."""
        reason = storable(" ".join(reason.split()), CLOSE_REASON_CHARS)
        platform, workspace = (where.platform, where.workspace) if where else (None, None)
        return self.store.close_report(report_id, reason, self.clock.now(), platform=platform,
                                       workspace=workspace)

    @staticmethod
    def line(report: Report, locale: str) -> str:
        """Return one report as a listing line (without its note)."""
        return t(locale, "report.list.line", id=report.id, item=report.item_id,
                 version=report.item_version, reason=reason_label(locale, report.reason),
                 date=report.created_at.date().isoformat())

    @staticmethod
    def closing_reason(reason: str) -> str:
        """Return a close reason as it is stored: one line, capped; "" when none was given."""
        return storable(" ".join(reason.split()), CLOSE_REASON_CHARS)

    def close(self, where: Where | None, report_id: int, reason: str, locale: str) -> Message:
        """Close an open report with a reason (of the admin's workspace; None: any)."""
        if not self.closing_reason(reason):
            return Message(body=t(locale, "report.close.usage"), tone=Tone.WARNING)
        closed = self.close_report(report_id, reason, where)
        if closed is None:
            return Message(body=t(locale, "report.close.none", id=report_id), tone=Tone.WARNING)
        log.info("report closed id=%s item=%s", closed.id, closed.item_id)
        return Message(body=t(locale, "report.close.done", id=report_id), tone=Tone.SUCCESS)


# ---------------------------------------------------------------- what the answers teach


Pairs = tuple[tuple[str, str], ...]


def distribution(item: Question, tries: Sequence[FirstTries], letters: Mapping[str, str],
                 locale: str) -> tuple[Pairs, str, Pairs]:
    """Return the reveal's first-try distribution: (fields, heading line, quotes).

    A choice question counts every option under the letter the round showed it as
    (``letters``: stored key -> shown letter, in display order); a text question quotes the
    three most common wrong answers, folded, each only when at least
    ``WRONG_ANSWER_MIN_MEMBERS`` members typed it (one member's words are never shown).
    Code: nothing.
    """
    if not tries:
        return (), "", ()
    if isinstance(item, ChoiceItem):
        counts: dict[str, int] = defaultdict(int)
        for row in tries:
            counts[row.response] += row.count
        shown = " · ".join(f"{letter} {counts.get(key, 0)}" for key, letter in letters.items())
        return ((t(locale, "reveal.distribution"), shown),), "", ()
    if not isinstance(item, TextItem):
        return (), "", ()
    wrong: dict[str, int] = defaultdict(int)
    for row in tries:
        if not row.correct and fold(row.response):
            wrong[fold(row.response)] += row.count
    # A first try is one per member, so a count is a number of distinct members.
    shared = [(text, n) for text, n in wrong.items() if n >= WRONG_ANSWER_MIN_MEMBERS]
    top = sorted(shared, key=lambda pair: (-pair[1], pair[0]))[:WRONG_ANSWERS_SHOWN]
    if not top:
        return (), "", ()
    heading = t(locale, "reveal.wrong_answers", n=WRONG_ANSWER_MIN_MEMBERS)
    return (), heading, tuple((f"{n}×", text) for text, n in top)


def week_extras(tries: Sequence[FirstTries], bank: Bank, locale: str) -> Pairs:
    """Return the weekly post's fields: the team's misconception and the hardest question.

    From first tries at the week's closed rounds; nothing when there were too few answers.
    """
    if sum(row.count for row in tries) < WEEK_MIN_ANSWERS:
        return ()
    fields = []
    misconception = _misconception(tries, bank, locale)
    if misconception:
        fields.append((t(locale, "weekly.misconception"), misconception))
    hardest = _hardest(tries, bank, locale)
    if hardest:
        fields.append((t(locale, "weekly.hardest"), hardest))
    return tuple(fields)


def _misconception(tries: Sequence[FirstTries], bank: Bank, locale: str) -> str:
    chosen: dict[tuple[str, str], int] = defaultdict(int)
    for row in tries:
        if not row.correct:
            chosen[(row.item_id, row.response)] += row.count
    for (item_id, key), n in sorted(chosen.items(), key=lambda kv: (-kv[1], kv[0])):
        item = bank.questions.get(item_id)
        if n < MISCONCEPTION_MIN_MEMBERS:
            break
        if not isinstance(item, ChoiceItem):
            continue  # text and code misses are not one named option
        option = next((c for c in item.choices if c.key == key and not c.correct), None)
        if option is None:
            continue  # the bank changed since: that option is gone or is right now
        text = t(locale, "weekly.misconception.text", option=_short(option.text.get(locale)),
                 prompt=_short(item.prompt.get(locale)), n=n)
        if option.why is not None:
            text += "\n" + t(locale, "weekly.misconception.why", why=option.why.get(locale))
        return text
    return ""


def _hardest(tries: Sequence[FirstTries], bank: Bank, locale: str) -> str:
    answered: dict[int, int] = defaultdict(int)
    right: dict[int, int] = defaultdict(int)
    items: dict[int, str] = {}
    for row in tries:
        answered[row.round_id] += row.count
        right[row.round_id] += row.count if row.correct else 0
        items[row.round_id] = row.item_id
    candidates = [rid for rid, n in answered.items()
                  if n >= HARDEST_MIN_ANSWERERS and right[rid] < n and items[rid] in bank.questions]
    if not candidates:
        return ""
    rid = min(candidates, key=lambda r: (right[r] / answered[r], -answered[r], r))
    item = bank.questions[items[rid]]
    text = t(locale, "weekly.hardest.text", prompt=_short(item.prompt.get(locale)),
             share=round(100 * right[rid] / answered[rid]), n=answered[rid])
    if item.explain_links:
        text += "\n" + t(locale, "weekly.hardest.more", card=item.explain_links[0])
    return text
