"""Browse the questions a workspace draws from, with answers only for who has earned them.

Admins see every answer (chat already lets them preview any item). A member sees an item's
answer and explanation only once they answered it themselves, and never while it is still in
play: today's open round in one of the workspace's channels (answered wrong with tries left,
or answered in practice before it came up) or their own open practice question. So the page
never leaks an open or a future round; an item nobody answered yet reads as a question only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from bot.core.browser.store import BrowserStore
from bot.core.packs import Library
from content.schema import ChoiceItem, CodeItem, TextItem
from content.topics import topic_label

BROWSER_PAGE_ROWS = 50
SUMMARY_CHARS = 120
Question = ChoiceItem | TextItem | CodeItem


@dataclass(frozen=True)
class QuestionLine:
    """One row of the list: the item, its kind, its first words, its topics and difficulty."""

    id: str
    kind: str
    summary: str
    topics: tuple[str, ...]
    difficulty: int
    pack: str  # the team pack's title; "" for the shipped bank


@dataclass(frozen=True)
class QuestionList:
    """One page of the workspace's questions, filtered by kind and topic."""

    lines: tuple[QuestionLine, ...]
    page: int
    pages: int
    total: int
    kind: str
    topic: str
    topics: tuple[tuple[str, str], ...]  # (id, label) of every topic the list can filter by


@dataclass(frozen=True)
class QuestionView:
    """One question as the page shows it; the answer part is empty unless it was earned."""

    id: str
    kind: str
    prompt: str
    options: tuple[tuple[str, str], ...]  # (letter, text) of a choice question
    topics: tuple[str, ...]
    difficulty: int
    pack: str
    answer_shown: bool
    hidden_because: str  # "in_play", "unanswered" or "" when shown
    answer: str = ""  # the correct letter and text, or the accepted answer(s)
    explanation: str = ""
    solution: str = ""  # a code item's reference, for admins, when its pack shows solutions
    why_wrong: tuple[tuple[str, str], ...] = ()  # (letter, why) of each wrong option
    explain_links: tuple[str, ...] = ()


def _summary(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1].rstrip() + "…"


class QuestionBrowser:
    """List a workspace's questions and show one, deciding what of it the viewer may read."""

    def __init__(self, store: BrowserStore, library: Library) -> None:
        self.store = store
        self.library = library

    def _packs(self, scope: str) -> dict[str, str]:
        view = self.library.view(scope)
        titles = {p.pack_id: p.title for p in view.packs}
        return {item_id: titles.get(pack, "") for item_id, pack in self._pack_of(scope).items()}

    def _pack_of(self, scope: str) -> dict[str, str]:
        # Team items are named p.PACK.ITEM: the pack is the part between the dots.
        return {q.id: q.id.split(".")[1] for q in self.library.view(scope).questions
                if q.id.startswith("p.") and q.id.count(".") >= 2}

    def listing(self, scope: str, locale: str, kind: str = "", topic: str = "",
                page: int = 1) -> QuestionList:
        """Return one page of the questions ``scope`` draws from, in ``locale``."""
        questions = self.library.view(scope).questions
        topics = sorted({t for q in questions for t in q.topics})
        kind = kind if kind in ("choice", "text", "code") else ""
        topic = topic if topic in topics else ""
        chosen = [q for q in questions if (not kind or q.kind == kind)
                  and (not topic or topic in q.topics)]
        chosen.sort(key=lambda q: (q.topic, q.difficulty, q.id))
        pages = max(1, math.ceil(len(chosen) / BROWSER_PAGE_ROWS))
        page = min(max(page, 1), pages)
        packs = self._packs(scope)
        lines = tuple(
            QuestionLine(q.id, q.kind, _summary(q.prompt.get(locale)),
                         tuple(topic_label(t, locale) for t in q.topics), q.difficulty,
                         packs.get(q.id, ""))
            for q in chosen[(page - 1) * BROWSER_PAGE_ROWS: page * BROWSER_PAGE_ROWS])
        return QuestionList(lines, page, pages, len(chosen), kind, topic,
                            tuple((t, topic_label(t, locale)) for t in topics))

    def question(self, scope: str, platform: str, workspace: str, user_id: int | None,
                 is_admin: bool, item_id: str, locale: str) -> QuestionView | None:
        """Return one question of ``scope`` (None: the workspace does not draw it)."""
        found = next((q for q in self.library.view(scope).questions if q.id == item_id), None)
        if found is None:
            return None
        options: tuple[tuple[str, str], ...] = ()
        if isinstance(found, ChoiceItem):
            options = tuple((c.key, c.text.get(locale)) for c in found.choices)
        hidden = ""
        if not is_admin:
            if item_id in self.store.unsettled_items(platform, workspace, user_id or 0):
                hidden = "in_play"
            elif user_id is None or item_id not in self.store.answered_items(user_id):
                hidden = "unanswered"
        view = QuestionView(
            found.id, found.kind, found.prompt.get(locale), options,
            tuple(topic_label(t, locale) for t in found.topics), found.difficulty,
            self._packs(scope).get(found.id, ""), not hidden, hidden)
        if hidden:
            return view
        return _with_answer(view, found, locale, is_admin,
                            solution_shown=self.library.shows_solution(found.id))


def _with_answer(view: QuestionView, item: Question, locale: str, is_admin: bool, *,
                 solution_shown: bool) -> QuestionView:
    answer, solution = "", ""
    why: tuple[tuple[str, str], ...] = ()
    if isinstance(item, ChoiceItem):
        right = next(c for c in item.choices if c.correct)
        answer = f"{right.key}. {right.text.get(locale)}"
        why = tuple((c.key, c.why.get(locale)) for c in item.choices
                    if not c.correct and c.why is not None)
    elif isinstance(item, TextItem):
        answer = " / ".join(item.accepted[:3])
    elif is_admin and solution_shown:
        solution = item.code.solution
    return replace(view, answer=answer, explanation=item.explanation.get(locale),
                   solution=solution, why_wrong=why, explain_links=tuple(item.explain_links))
