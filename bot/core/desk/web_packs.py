"""The admin's desk on the web: the workspace's team packs, through chat's /quiz-pack.

Every call turns the session's grant into an Identity and asks the desk's own pack methods
(bot/core/desk/packs.py), so an upload is bounded, validated in the sandbox, stored and
audited exactly as `/quiz-pack add` does it. The admin right is checked at every call
(``AdminOnly``: a 403); a pack the workspace does not see is None (a 404), whoever owns it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.core.desk.packs import SHARED_SCOPE, PackReply, pack_scope
from bot.core.desk.requests import Desk
from bot.core.desk.web import AdminOnly, identity
from bot.core.kernel.messages import Message
from bot.core.kernel.models import Identity, WebGrant
from bot.core.kernel.ports import ShelvedPack


@dataclass(frozen=True)
class PackLine:
    """One pack on the packs page: its newest version, and whether it is the workspace's own."""

    pack: ShelvedPack
    own: bool  # False: shared with every workspace by the operator (read-only here)


@dataclass(frozen=True)
class PackHistory:
    """A pack's version history as its page shows it."""

    pack_id: str
    own: bool
    removed: bool  # the workspace removed it: history only, nothing to export or remove
    versions: tuple[ShelvedPack, ...]  # newest first


class WebPacks:
    """What the packs page reads and changes, for a workspace's admins."""

    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    @property
    def available(self) -> bool:
        """Return whether this process can check and store packs (None tools: packs are off)."""
        return self.desk.pack_tools is not None

    @staticmethod
    def _admin(grant: WebGrant, locale: str | None = None) -> Identity:
        """Return the Identity the page acts as (AdminOnly for a member).

        No channel: the desk's replies speak the page's language, not a channel's.
        """
        if not grant.is_admin:
            raise AdminOnly(0)
        return replace(identity(grant), channel="", locale=locale or grant.locale)

    def listing(self, grant: WebGrant) -> list[PackLine]:
        """Return the workspace's packs, its own first, then the shared ones (admins only)."""
        who = self._admin(grant)
        found = self.desk.packs.pack_shelf(who) or []
        lines = [PackLine(p, p.scope == pack_scope(who)) for p in found
                 if p.scope in (pack_scope(who), SHARED_SCOPE)]
        return sorted(lines, key=lambda line: (not line.own, line.pack.pack_id))

    def versions(self, grant: WebGrant, pack_id: str) -> PackHistory | None:
        """Return every version of a pack the workspace sees, newest first (None: not here)."""
        who = self._admin(grant)
        found = self.desk.packs.pack_history(who, pack_id)
        if found is None:
            return None
        newest = found[-1]
        return PackHistory(pack_id, newest.scope == pack_scope(who), newest.removed,
                           tuple(found[::-1]))

    def upload_refusal(self, grant: WebGrant, filename: str, size: int,
                       locale: str | None = None) -> Message | None:
        """Refuse an upload as chat does before it reads a byte: the name, the size."""
        refused = self.desk.pack_upload_refusal(self._admin(grant, locale), filename, size)
        return None if refused is None else refused.message

    def add(self, grant: WebGrant, filename: str, data: bytes,
            locale: str | None = None) -> Message:
        """Validate the file in the sandbox and store it, as /quiz-pack add (slow: a thread)."""
        reply = self.desk.pack_add(self._admin(grant, locale), filename, data)
        return reply.message or Message(body="")  # pack_add always says what happened

    def _own(self, grant: WebGrant, pack_id: str, locale: str | None = None) -> Identity | None:
        who = self._admin(grant, locale)
        versions = self.desk.packs.pack_history(who, pack_id)
        if versions is None or versions[-1].removed or versions[-1].scope != pack_scope(who):
            return None
        return who

    def remove(self, grant: WebGrant, pack_id: str, locale: str | None = None) -> Message | None:
        """Remove the workspace's own pack as /quiz-pack remove does (None: not its own)."""
        who = self._own(grant, pack_id, locale)
        if who is None:
            return None
        return self.desk.pack_command(who, f"remove {pack_id}").reply.message

    def export(self, grant: WebGrant, pack_id: str) -> PackReply | None:
        """Return the newest version's file as /quiz-pack export does (None: not its own)."""
        who = self._own(grant, pack_id)
        if who is None:
            return None
        answer = self.desk.pack_command(who, f"export {pack_id}")
        return answer if answer.file_name else None
