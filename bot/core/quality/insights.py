"""Item analytics: how each question version performs, which ones look broken, and pausing them.

From the first tries at daily rounds, per item version: p, the share of answerers right on
their first try, and the discrimination, the point-biserial correlation between being right on
this item and the answerer's accuracy on their *other* items (their rest score). The store sums
what the correlation needs in one aggregate statement
(bot.core.quality.store.InsightStore.item_tallies);
this module turns the sums into numbers and flags, pauses a ``suspect_key`` version (no
channel's daily pick chooses it until an admin unpauses it) and renders /quiz-insights.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Button, Message, Tone, unpause_action
from bot.core.kernel.models import ItemTally
from bot.core.kernel.ports import Clock
from bot.core.packs import library_of
from bot.core.quality.store import InsightStore

if TYPE_CHECKING:
    from content.loader import Bank

log = logging.getLogger(__name__)

# Below this many answerers (with a rest score) a correlation is noise: no discrimination, and
# no flag drawn from p or discrimination either.
MIN_ANSWERERS = 20
TOO_EASY = 0.95  # p above it
TOO_HARD = 0.20  # p below it
WEAK = 0.20  # discrimination below it
SUSPECT_REPORTS = 3  # open "incorrect" reports that make a key suspect on their own
INCORRECT = "incorrect"  # the report reason that says the key is wrong
MANUAL = "admin"  # the reason of a version an admin paused by hand
FLAGS = ("suspect_key", "weak", "too_hard", "too_easy")  # worst first
SHOWN = 10  # items /quiz-insights lists
UNPAUSE_BUTTONS = 5
_SPREAD = 1e-12  # a variance below this is no spread at all (every value the same)

ItemKey = tuple[str, int]


@dataclass(frozen=True)
class ItemStats:
    """One item version's numbers and flags, as `content stats` and /quiz-insights show them."""

    item_id: str
    version: int
    answered: int
    p_correct: float | None
    discrimination: float | None
    reports: int
    flags: tuple[str, ...]
    paused: bool
    incorrect_reports: int = 0

    def as_json(self) -> dict[str, Any]:
        """Return the `content stats --json` object (a documented contract)."""
        return {
            "id": self.item_id, "version": self.version, "answered": self.answered,
            "p_correct": None if self.p_correct is None else round(self.p_correct, 4),
            "discrimination": (None if self.discrimination is None
                               else round(self.discrimination, 4)),
            "reports": self.reports, "flags": list(self.flags), "paused": self.paused,
        }


def point_biserial(tally: ItemTally, min_answerers: int = MIN_ANSWERERS) -> float | None:
    """Return the correlation of right-on-this-item with the rest score, or None.

    None when fewer than ``min_answerers`` answerers have a rest score, or when either side
    has no spread (everyone right, or every rest score equal): the correlation is undefined.
    With a 0/1 ``x`` Pearson's r is the point-biserial (M1 - M0) / s * sqrt(p q).
    """
    n = tally.rested
    if n < max(min_answerers, 2):
        return None
    var_x = n * tally.rest_sum_xx - tally.rest_sum_x ** 2
    var_y = n * tally.sum_yy - tally.sum_y ** 2
    if var_x <= _SPREAD * n * n or var_y <= _SPREAD * n * n:
        return None
    r = (n * tally.sum_xy - tally.rest_sum_x * tally.sum_y) / math.sqrt(var_x * var_y)
    return max(-1.0, min(1.0, r))


def flags_for(answered: int, p: float | None, discrimination: float | None,
              incorrect_reports: int, min_answerers: int = MIN_ANSWERERS) -> tuple[str, ...]:
    """Return the flags of an item version, worst first."""
    found = set()
    if incorrect_reports >= SUSPECT_REPORTS:
        found.add("suspect_key")
    if discrimination is not None:
        if discrimination < 0:
            found.add("suspect_key")
        if discrimination < WEAK:
            found.add("weak")
    if p is not None and answered >= min_answerers:
        if p < TOO_HARD:
            found.add("too_hard")
        if p > TOO_EASY:
            found.add("too_easy")
    return tuple(flag for flag in FLAGS if flag in found)


def item_stats(tally: ItemTally, reports: Mapping[str, int], paused: bool,
               min_answerers: int = MIN_ANSWERERS) -> ItemStats:
    """Return the numbers and flags of one item version from its sums and open reports."""
    p = tally.sum_x / tally.answered if tally.answered else None
    discrimination = point_biserial(tally, min_answerers)
    incorrect = reports.get(INCORRECT, 0)
    return ItemStats(
        item_id=tally.item_id, version=tally.version, answered=tally.answered, p_correct=p,
        discrimination=discrimination, reports=sum(reports.values()),
        flags=flags_for(tally.answered, p, discrimination, incorrect, min_answerers),
        paused=paused, incorrect_reports=incorrect,
    )


def worst_first(stats: Sequence[ItemStats]) -> list[ItemStats]:
    """Return the stats ordered for an admin: paused, then by worst flag, then lowest disc."""
    def key(s: ItemStats) -> tuple[int, int, float, int, str, int]:
        worst = min((FLAGS.index(f) for f in s.flags), default=len(FLAGS))
        return (0 if s.paused else 1, worst, s.discrimination if s.discrimination is not None
                else 2.0, -s.reports, s.item_id, s.version)

    return sorted(stats, key=key)


class InsightsService:
    """Compute item statistics, pause suspect keys, unpause on an admin's word."""

    def __init__(self, store: InsightStore, bank: Bank, clock: Clock,
                 min_answerers: int = MIN_ANSWERERS) -> None:
        self.store = store
        self.bank = library_of(bank)
        self.clock = clock
        self.min_answerers = min_answerers

    def stats(self, since: dt.date | None = None) -> list[ItemStats]:
        """Return every item version's stats (answered ones, and the bank's current ones).

        Three reads whatever the number of answers (the sums, the open reports, the paused
        set) and, when a version is newly flagged ``suspect_key``, one write that pauses it.
        ``since``: only rounds dated that day or later.
        """
        tallies = {(tl.item_id, tl.version): tl for tl in self.store.item_tallies(since)}
        reports = {(c.item_id, c.item_version): dict(c.by_reason)
                   for c in self.store.open_reports()}
        keys = set(tallies) | set(reports) | {(q.id, q.version)
                                              for q in self.bank.questions.values()}
        paused = self.store.paused_items()
        computed = [
            item_stats(tallies.get(key) or ItemTally(key[0], key[1], 0, 0.0),
                       reports.get(key, {}), key in paused, self.min_answerers)
            for key in sorted(keys)
        ]
        suspects = [(s.item_id, s.version) for s in computed
                    if "suspect_key" in s.flags and not s.paused]
        if suspects:
            newly = set(self.store.pause_items(suspects, "suspect_key", self.clock.now()))
            for item_id, version in sorted(newly):
                log.warning("item paused (suspect_key) item=%s version=%s", item_id, version)
            computed = [s if (s.item_id, s.version) not in newly else
                        ItemStats(s.item_id, s.version, s.answered, s.p_correct,
                                  s.discrimination, s.reports, s.flags, True,
                                  s.incorrect_reports)
                        for s in computed]
        return computed

    def unpause(self, item_id: str) -> list[int]:
        """Let every paused version of ``item_id`` be picked again; return those versions."""
        versions = self.store.unpause_item(item_id, self.clock.now())
        if versions:
            log.info("item unpaused item=%s versions=%s", item_id, versions)
        return versions

    def pause(self, item_id: str) -> int | None:
        """Pause the current version of ``item_id`` by an admin's word; return that version.

        None when the item is not in the bank or that version is paused already. The row is
        the one the statistics write (reason ``admin``), so the daily pick and an unpause
        treat both alike.
        """
        item = self.bank.questions.get(item_id)
        if item is None:
            return None
        if not self.store.pause_item(item_id, item.version, MANUAL, self.clock.now()):
            return None
        log.info("item paused (admin) item=%s version=%s", item_id, item.version)
        return item.version

    # ------------------------------------------------------------ chat (/quiz-insights)
    def message(self, locale: str, scope: str | None = None) -> Message:
        """Return /quiz-insights: the worst item versions first, with unpause buttons.

        Only items the workspace ``scope`` sees are listed: the shipped bank's and its packs'.
        """
        stats = [s for s in self.stats() if self.bank.visible(s.item_id, scope)]
        shown = [s for s in worst_first(stats) if s.flags or s.paused or s.reports][:SHOWN]
        enough = sum(1 for s in stats if s.discrimination is not None)
        answered = sum(1 for s in stats if s.answered)
        summary = t(locale, "insights.summary", answered=answered, enough=enough,
                    minimum=self.min_answerers)
        if not shown:
            return Message(title=t(locale, "insights.title"),
                           body=summary + "\n" + t(locale, "insights.none"), tone=Tone.SUCCESS)
        lines = [summary, ""] + [self._line(s, locale) for s in shown]
        paused_ids = list(dict.fromkeys(s.item_id for s in shown if s.paused))
        buttons = tuple(Button(unpause_action(item_id), t(locale, "insights.unpause",
                                                          item=item_id))
                        for item_id in paused_ids[:UNPAUSE_BUTTONS])
        return Message(title=t(locale, "insights.title"), body="\n".join(lines),
                       buttons=buttons, footer=t(locale, "insights.footer"), tone=Tone.WARNING)

    def _line(self, s: ItemStats, locale: str) -> str:
        p = "–" if s.p_correct is None else f"{s.p_correct:.2f}"
        disc = (t(locale, "insights.no_data") if s.discrimination is None
                else f"{s.discrimination:+.2f}")
        flags = ", ".join(t(locale, f"insights.flag.{f}") for f in s.flags)
        line = t(locale, "insights.line", item=s.item_id, version=s.version,
                 answered=s.answered, p=p, disc=disc, reports=s.reports)
        if flags:
            line += f" · {flags}"
        if s.paused:
            line = "⏸ " + line + " · " + t(locale, "insights.paused")
        return line

    def pause_message(self, item_id: str, locale: str) -> Message:
        """Pause ``item_id``'s current version by hand and say what changed."""
        version = self.pause(item_id)
        if version is None:
            return Message(body=t(locale, "insights.already_paused", item=item_id),
                           tone=Tone.INFO)
        return Message(body=t(locale, "insights.paused_now", item=item_id, version=version),
                       tone=Tone.SUCCESS)

    def unpause_message(self, item_id: str, locale: str) -> Message:
        """Unpause ``item_id`` and say what changed."""
        versions = self.unpause(item_id)
        if not versions:
            return Message(body=t(locale, "insights.not_paused", item=item_id), tone=Tone.INFO)
        return Message(body=t(locale, "insights.unpaused", item=item_id,
                              versions=", ".join(str(v) for v in versions)),
                       tone=Tone.SUCCESS)
