"""The library: the shipped bank plus every stored pack of every workspace, live and scoped.

One object, shared by every service of the core, that keeps its identity while its content is
swapped whole (a reference assignment: a reader sees the old snapshot or the new one, never a
mix). Lookups by id are global: ids are namespaced (``p.<pack>.<local>``) and rounds, answers
and reviews already name them, so an item of a removed pack, or one a newer version of its pack
dropped, still resolves for history. Everything that picks or lists asks for a :class:`View`
of one workspace (``PLATFORM:WORKSPACE``), optionally narrowed to the packs a channel chose:
a workspace never sees another's pack.

Live across replicas: a pack stored by the command line or by another replica shows up without
a restart. At most every ``interval_s`` seconds, a request asks the pack source for its stamp
(one cheap query) and reloads only when the stamp changed; within the interval a request costs
no query at all. ``invalidate()`` makes the next request check at once (the replica that just
stored a pack); ``refresh()`` checks now.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.kernel.models import ChannelSettings
from bot.core.kernel.ports import PackSource, ScopedPack
from content.loader import Bank, Question
from content.packs import SHIPPED_BANK
from content.schema import ExplainCard, SpeedItem

log = logging.getLogger(__name__)

SHIPPED = SHIPPED_BANK  # the name a channel's pack choice gives the shipped bank
EVERY_WORKSPACE = "*"
DEFAULT_PACKS: tuple[str, ...] = (SHIPPED,)
CHECK_INTERVAL_S = 5.0
MAX_VIEWS = 4096


def workspace_scope(platform: str, workspace: str) -> str:
    """Return the scope string of a workspace, as ``torchquiz pack add --workspace`` stores it."""
    return f"{platform}:{workspace}"


def channel_scope(channel: ChannelSettings) -> str:
    """Return the scope of the workspace a channel belongs to."""
    return workspace_scope(channel.platform, channel.workspace_external_id)


def sees(pack_scope: str, scope: str | None) -> bool:
    """Say whether a pack stored for ``pack_scope`` is seen from the workspace ``scope``.

    ``None`` is a request that names no workspace: it sees the packs shared with every one.
    """
    return pack_scope == EVERY_WORKSPACE or (scope is not None and pack_scope == scope)


@dataclass(frozen=True)
class PackInfo:
    """A pack a workspace sees: its id and title, for settings and messages."""

    pack_id: str
    title: str
    scope: str


@dataclass(frozen=True)
class View:
    """What one workspace may draw from and list (optionally, one channel's chosen packs).

    ``questions`` are drawable (no removed pack, no item a newer version dropped); ``cards``
    are the cards it may look up. ``memo`` holds what a service derives from the view (a card
    index): it lives as long as the snapshot, so a reload drops it with the rest.
    """

    scope: str | None
    questions: tuple[Question, ...]
    cards: Mapping[str, ExplainCard]
    packs: tuple[PackInfo, ...]  # every pack the workspace sees, by id (not only chosen ones)
    memo: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def ids(self) -> frozenset[str]:
        """Return the drawable question ids (memoised)."""
        found = self.memo.get("ids")
        if found is None:
            found = self.memo["ids"] = frozenset(q.id for q in self.questions)
        return found

    @property
    def topics(self) -> list[str]:
        """Return every topic a drawable question covers, sorted."""
        found = self.memo.get("topics")
        if found is None:
            found = self.memo["topics"] = sorted({tp for q in self.questions for tp in q.topics})
        return found

    def memoised(self, key: str, build: Callable[[], Any]) -> Any:
        """Return what ``build`` makes of this view, built once per snapshot."""
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = build()
        return found


class _Snapshot:
    """One loaded state: the global bank, each pack item's scope, and views built from it."""

    def __init__(self, shipped: Bank, packs: Iterable[ScopedPack], stamp: object) -> None:
        self.stamp = stamp
        self.packs = tuple(sorted(packs, key=lambda p: p.pack_id))
        questions: dict[str, Question] = dict(shipped.questions)
        cards: dict[str, ExplainCard] = dict(shipped.cards)
        self.shipped_questions = tuple(q for _, q in sorted(shipped.questions.items()))
        self.shipped_cards = dict(shipped.cards)
        for pack in self.packs:
            # History first (items a newer version dropped), so the newest wins where both are.
            questions.update(pack.history)
            questions.update(pack.questions)
            cards.update(pack.cards)
        self.bank = Bank(questions=questions, cards=cards)
        self.scope_of = {item_id: pack.scope for pack in self.packs
                         for item_id in (*pack.history, *pack.questions, *pack.cards)}
        self.solutions_hidden = frozenset(
            item_id for pack in self.packs if not pack.show_solutions
            for item_id in (*pack.history, *pack.questions))
        self.views: dict[tuple[str | None, tuple[str, ...] | None], View] = {}
        self.own_scopes = {p.scope for p in self.packs if not p.removed}
        self.live_ids = {p.pack_id for p in self.packs if not p.removed}
        self.memo: dict[str, Any] = {}

    def view(self, scope: str | None, chosen: tuple[str, ...] | None) -> View:
        # Thousands of workspaces have no pack of their own: they share the one view of the
        # shipped bank and the shared packs, and a choice is keyed by what it can draw.
        if scope not in self.own_scopes:
            scope = None
        if chosen is not None:
            chosen = tuple(p for p in chosen if p == SHIPPED or p in self.live_ids)
        key = (scope, chosen)
        found = self.views.get(key)
        if found is not None:
            return found
        if len(self.views) >= MAX_VIEWS:
            self.views.clear()  # a bound, never reached in practice: views rebuild in a ms
        seen = [p for p in self.packs if not p.removed and sees(p.scope, scope)]
        infos = tuple(PackInfo(p.pack_id, p.title, p.scope) for p in seen)
        drawn = seen if chosen is None else [p for p in seen if p.pack_id in chosen]
        questions: list[Question] = []
        if chosen is None or SHIPPED in chosen:
            questions.extend(self.shipped_questions)
        cards = dict(self.shipped_cards)
        for pack in drawn:
            questions.extend(q for _, q in sorted(pack.questions.items()))
        for pack in seen:
            cards.update(pack.cards)
        made = View(scope, tuple(questions), cards, infos)
        self.views[key] = made  # a race builds it twice, the same: no lock needed
        return made


def _set(library: Library, name: str, value: object) -> None:
    # Bank is a frozen dataclass; the library's own state changes (atomically, by reference).
    object.__setattr__(library, name, value)


class Library(Bank):
    """The bank every service holds: shipped items and every stored pack, swapped whole."""

    # Not dataclass fields (this class is no dataclass): the library's own state.
    _shipped: Bank
    _source: PackSource | None
    _interval_s: float
    _monotonic: Callable[[], float]
    _lock: threading.Lock
    _checked_at: float
    _snapshot: _Snapshot
    _refresher: threading.Thread | None

    def __init__(self, shipped: Bank, source: PackSource | None = None, *,
                 interval_s: float = CHECK_INTERVAL_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        # Bank's fields are read through properties here; its (frozen) __init__ is not called.
        _set(self, "_shipped", shipped)
        _set(self, "_source", source)
        _set(self, "_interval_s", interval_s)
        _set(self, "_monotonic", monotonic)
        _set(self, "_lock", threading.Lock())
        _set(self, "_checked_at", float("-inf"))
        _set(self, "_snapshot", _Snapshot(shipped, (), None))
        _set(self, "_refresher", None)
        if source is not None:
            self.refresh()

    # ------------------------------------------------------------ the Bank interface (global)
    @property
    def questions(self) -> dict[str, Question]:
        """Return every question by id: shipped, every pack's, removed ones too (history)."""
        return self._current().bank.questions

    @property
    def cards(self) -> dict[str, ExplainCard]:
        """Return every card by id, of every pack."""
        return self._current().bank.cards

    @property
    def speed(self) -> dict[str, SpeedItem]:
        """Return the shipped bank's speed challenges by id (chat serves no pack's yet)."""
        return self._shipped.speed

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        snapshot = self._snapshot
        return (f"Library({len(snapshot.bank.questions)} questions, "
                f"{len(snapshot.packs)} packs)")

    # ------------------------------------------------------------ scoped views
    def view(self, scope: str | None, packs: Collection[str] | None = None, *,
             check: bool = True) -> View:
        """Return what workspace ``scope`` may draw and list; ``packs``: a channel's choice.

        ``check`` False uses the content as it is, without a query (an autocomplete, run on
        the platform's event loop, must never wait for the database).
        """
        if check:
            snapshot = self._current()
        else:
            snapshot = self._snapshot
            if self._stale():
                self._refresh_behind()  # for the next call; this one answers at once
        return snapshot.view(scope, None if packs is None else tuple(sorted(set(packs))))

    @property
    def pack_versions(self) -> dict[str, int]:
        """Return each loaded pack's newest version by id (the remote executor logs it)."""
        return {p.pack_id: p.version for p in self._snapshot.packs}

    def topics_of(self) -> Mapping[str, tuple[str, ...]]:
        """Return every question's topics by id (global, built once per snapshot)."""
        snapshot = self._current()
        found = snapshot.memo.get("topics_of")
        if found is None:
            found = snapshot.memo["topics_of"] = {
                q.id: tuple(q.topics) for q in snapshot.bank.questions.values()}
        return found

    def withdrawn(self) -> frozenset[str]:
        """Return the question ids no longer served anywhere: removed packs', dropped ones."""
        snapshot = self._current()
        found = snapshot.memo.get("withdrawn")
        if found is None:
            found = snapshot.memo["withdrawn"] = frozenset(
                item_id for pack in snapshot.packs
                for item_id in (*pack.history, *(pack.questions if pack.removed else ())))
        return found

    def drawable(self, item_id: str, scope: str | None) -> bool:
        """Say whether ``scope`` may be served ``item_id``: shipped, or in a pack it still sees."""
        return item_id in self.view(scope).ids

    def scope_of(self, item_id: str) -> str | None:
        """Return the scope of a pack's item, or None for a shipped one."""
        return self._snapshot.scope_of.get(item_id)

    def shows_solution(self, item_id: str) -> bool:
        """Say whether chat may show ``item_id``'s reference solution once nobody can score.

        Always for the shipped bank; for a pack's item, unless its pack says
        ``show_solutions: false`` (its newest version's header).
        """
        return item_id not in self._current().solutions_hidden

    def visible(self, item_id: str, scope: str | None) -> bool:
        """Say whether ``scope`` may be shown ``item_id`` in a list (shipped, or its pack's)."""
        owner = self._current().scope_of.get(item_id)
        return owner is None or sees(owner, scope)

    # ------------------------------------------------------------ live content
    def invalidate(self) -> None:
        """Make the next request check the pack source (a replica that just stored a pack)."""
        _set(self, "_checked_at", float("-inf"))

    def refresh(self) -> bool:
        """Check the pack source now; reload when its stamp changed. Return whether it did."""
        if self._source is None:
            return False
        with self._lock:
            return self._check()

    def _check(self) -> bool:
        # Called with the lock held: one thread checks, the others keep reading the snapshot.
        source = self._source
        if source is None:
            return False
        _set(self, "_checked_at", self._monotonic())
        try:
            stamp = source.stamp()
            if stamp == self._snapshot.stamp:
                return False
            packs = source.load()
        except Exception:
            # The database may be away for a moment: keep serving what was loaded.
            log.exception("packs could not be checked; keeping the loaded ones")
            return False
        _set(self, "_snapshot", _Snapshot(self._shipped, packs, stamp))
        log.info("packs loaded: %d (stamp %s)", len(packs), stamp)
        return True

    def _stale(self) -> bool:
        return (self._source is not None
                and self._monotonic() - self._checked_at >= self._interval_s)

    def _refresh_behind(self) -> None:
        """Check the pack source on a thread of its own (from the event loop: never wait)."""
        running = self._refresher
        if running is not None and running.is_alive():
            return
        thread = threading.Thread(target=self._current, name="library-refresh", daemon=True)
        _set(self, "_refresher", thread)
        thread.start()

    def _current(self) -> _Snapshot:
        if (self._stale()
                and self._lock.acquire(blocking=False)):
            try:
                # Another thread may have checked between the test and the lock.
                if self._monotonic() - self._checked_at >= self._interval_s:
                    self._check()
            finally:
                self._lock.release()
        return self._snapshot


def library_of(bank: Bank) -> Library:
    """Return ``bank`` as a library (a plain bank becomes one without packs, for tests)."""
    return bank if isinstance(bank, Library) else Library(bank)
