"""Team packs for the bot process: the one validation path, and the shelf the desk stores to.

`torchquiz pack validate|add` (bot/packs_cli.py) and `/quiz-pack add` in chat (the core's desk,
through its PackChecker port) validate a file through :func:`validate_pack_bytes`: the bank's own
checks, and a pack's code (generators, references, card examples) only in a fresh local sandbox.
A deployment that grades on executor services validates there instead: the composition root
passes the remote executor's ``check_pack(data)`` as ``remote`` (the seam; nothing of a pack runs
in the bot process either way). :class:`StorePackShelf` is db/store_packs.py as the core's
PackShelf port.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.ports import PackCheck, PackConflict, ShelvedPack

if TYPE_CHECKING:
    from content.loader import Bank
    from db.store_packs import PackStore, StoredPack

log = logging.getLogger(__name__)

# One pack at a time per process: a validation holds a fresh sandbox for up to a minute.
WAIT_FOR_TURN_S = 60.0


def validate_pack_bytes(data: bytes, bank: Bank) -> Any:
    """Validate a pack's bytes against ``bank`` with a fresh local sandbox; return its PackReport.

    No sandbox is started for a file that does not parse or has no code; a sandbox that cannot
    start makes the pack not valid (its code runs nowhere else).
    """
    from content.packs import parse_pack
    from executors.grading.pack_challenges import PackReport, validate_pack
    from executors.zygote.supervisor import SandboxUnavailable, Zygote

    parsed = parse_pack(data)
    if parsed.pack is not None and parsed.pack.speed:
        return _validate_with_speed(data, bank)
    if parsed.pack is None or not (parsed.pack.code_items() or parsed.pack.cards):
        return validate_pack(data, bank, None)  # no pack code to run: no sandbox to start
    zygote = Zygote()
    try:
        zygote.start()
    except SandboxUnavailable as exc:
        zygote.close()
        report = validate_pack(data, bank, None)
        why = f"the sandbox is unavailable ({exc}): a pack's code runs nowhere else"
        return PackReport(False, (*report.errors, why), report.items, report.cards,
                          report.pack, (*report.problems, {"line": None, "column": None,
                                                           "item": None, "field": None,
                                                           "message": why}))
    try:
        return validate_pack(data, bank, zygote)
    finally:
        zygote.close()


def _validate_with_speed(data: bytes, bank: Bank) -> Any:
    """Validate a pack with speed items: its code in the sandbox, its speed items timed."""
    from executors.grading.pack_challenges import PackReport, validate_pack
    from executors.speed.grader import SpeedGrader
    from executors.speed.supervisor import SpeedTimer
    from executors.speed.validation import speed_checker
    from executors.zygote.supervisor import SandboxUnavailable, Zygote, ZygoteError

    zygote, timer = Zygote(), SpeedTimer()
    try:
        zygote.start()
        timer.start()
        return validate_pack(data, bank, zygote, speed=speed_checker(SpeedGrader(timer)))
    except (SandboxUnavailable, ZygoteError) as exc:
        report = validate_pack(data, bank, None)
        why = f"the sandbox is unavailable ({exc}): a pack's code runs nowhere else"
        return PackReport(False, (*report.errors, why), report.items, report.cards, report.pack,
                          (*report.problems, {"line": None, "column": None, "item": None,
                                              "field": None, "message": why}))
    finally:
        timer.close()
        zygote.close()


def store_refusal(versions: list[ShelvedPack], pack_id: str, version: int, scope: str) -> str:
    """Return why a shelf holding ``versions`` of ``pack_id`` would refuse this one, or "".

    Read from the file's header before its code is checked (a check holds a sandbox for up
    to a minute): the same rules as db/store_packs.py's ``add``, which still decides.
    """
    if not versions:
        return ""
    if versions[0].scope != scope:
        return f"pack id {pack_id!r} belongs to another workspace; choose another id"
    newest = versions[-1]
    if version <= newest.version:
        removed = " (removed; a higher version brings it back)" if newest.removed else ""
        return (f"pack {pack_id!r} already has version {newest.version}{removed}; "
                "raise 'version' above it")
    return ""


def as_check(report: Any, data: bytes = b"") -> PackCheck:
    """Return a pack report as the core's PackCheck.

    ``report`` is a PackReport (executors/grading/pack_challenges.py), or the contract's JSON
    object ``{"ok", "errors", "items", "cards"}`` a remote validator may answer with; then what
    is stored (header, text, data) is read from ``data`` here, by parsing only: no code runs.
    """
    if isinstance(report, Mapping):
        ok, errors = report.get("ok") is True, tuple(str(e) for e in report.get("errors") or ())
        items, cards, pack = int(report.get("items") or 0), int(report.get("cards") or 0), None
    else:
        ok, errors, items, cards = bool(report.ok), tuple(report.errors), report.items, report.cards
        pack = getattr(report, "pack", None)
    if pack is None and ok:
        from content.packs import parse_pack

        pack = parse_pack(data).pack
    if pack is None:
        return PackCheck(False, errors or ("the pack could not be read",), items, cards)
    header = pack.header
    return PackCheck(ok, errors, items, cards, pack_id=pack.id, version=int(header.version),
                     title=str(header.title), locales=tuple(header.locales), text=pack.text,
                     document=pack.document)


class SandboxPackChecker:
    """The core's PackChecker: the shipped bank's checks, pack code in a sandbox only."""

    def __init__(self, bank: Bank, remote: Callable[[bytes], Any] | None = None) -> None:
        self.bank = bank  # the shipped bank: a pack's links resolve to it or to the pack
        self.remote = remote  # a remote executor's check_pack(data) -> PackReport, if any
        self._turn = threading.Lock()

    def check(self, data: bytes) -> PackCheck:
        """Return the report of one pack file (one validation at a time in this process)."""
        if not self._turn.acquire(timeout=WAIT_FOR_TURN_S):
            return PackCheck(False, ("another pack is being checked; try again in a minute",))
        try:
            report = self.remote(data) if self.remote is not None else validate_pack_bytes(
                data, self.bank)
        except GradingUnavailable as exc:
            # The replicas are down or busy: the pack is not checked, so it is not stored.
            return PackCheck(False, (f"no executor replica could validate the pack ({exc}); "
                                     "try again later: a pack's code runs nowhere else",))
        except ImportError as exc:
            # A bot process without the executor extra cannot check pack code anywhere.
            return PackCheck(False, (f"the sandbox is unavailable (the executor extra is not "
                                     f"installed: {exc.name}): a pack's code runs nowhere else",))
        finally:
            self._turn.release()
        return as_check(report, data)


def _shelved(stored: StoredPack) -> ShelvedPack:
    return ShelvedPack(stored.pack_id, stored.version, stored.scope, stored.title,
                       tuple(stored.locales), stored.text, stored.removed, stored.created_at)


class StorePackShelf:
    """The core's PackShelf over db/store_packs.py (the database every replica shares)."""

    def __init__(self, store: PackStore) -> None:
        self.store = store

    def add(self, check: PackCheck, scope: str) -> ShelvedPack:
        """Store a valid pack's new version for ``scope``; raise PackConflict when taken."""
        from db.store_packs import PackRefused

        try:
            stored = self.store.add(check.pack_id, check.version, scope, check.title,
                                    check.locales, check.text, check.document)
        except PackRefused as exc:
            raise PackConflict(str(exc)) from exc
        return _shelved(stored)

    def latest(self, workspace: str | None) -> list[ShelvedPack]:
        """Return the newest version of each pack ``workspace`` sees (its own and shared).

        ``workspace`` None: every workspace's, the operator's view (`torchquiz pack list`).
        """
        return [_shelved(p) for p in self.store.latest(workspace)]

    def versions(self, pack_id: str) -> list[ShelvedPack]:
        """Return every stored version of ``pack_id`` whatever its scope, oldest first."""
        return [_shelved(p) for p in self.store.versions(pack_id)]

    def remove(self, pack_id: str, workspace: str | None) -> bool:
        """Hide ``workspace``'s own pack from lists and draws (history stays).

        ``workspace`` None: whoever's it is (the operator's `torchquiz pack remove`).
        """
        return self.store.remove(pack_id, workspace)
