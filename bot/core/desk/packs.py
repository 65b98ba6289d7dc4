"""The admins' team packs at the desk: add a pack file from chat, list, remove and export packs.

Every request is checked here against what the platform's server said of the member
(``Identity.is_admin``), never against a client's claim, and every reply is private. A pack
belongs to the workspace that stored it (scope ``PLATFORM:WORKSPACE``, the string `torchquiz
pack add --workspace` stores); a workspace sees its own packs and the deployment's shared ones
(scope ``*``, managed on the command line), and nothing of another workspace's, not even whose
a taken id is. A pack's texts (its title, the validation errors that quote it) travel in
``Message.quotes``, which every front end shows through ``safetext.inert`` once; pack ids are
held to ``content.packs.PACK_ID`` (lower-case letters, digits, dashes) before they are shown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Command, Option
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone
from bot.core.kernel.models import Identity
from bot.core.kernel.ports import PackCheck, PackConflict, PackTools, ShelvedPack
from bot.core.kernel.replies import Reply
from content.packs import MAX_PACK_BYTES, PACK_ID, parse_pack

log = logging.getLogger(__name__)

SHARED_SCOPE = "*"
PACK_SUFFIXES = (".yaml", ".yml")
SHOWN_ERRORS = 15  # the rest are counted: a platform's message holds about 3000 characters
ERROR_CHARS = 150
SHOWN_PACKS = 25
NAME_CHARS = 100


@dataclass(frozen=True)
class PackReply:
    """A /quiz-pack reply: the private message, and a file to attach (an export) if any."""

    reply: Reply
    file_name: str = ""
    file_data: bytes = b""
    pack_id: str = ""  # the exported pack and version (a platform may word its reply anew)
    version: int = 0


# Its entries are the desk's pack_* methods: an upload carries a file, an export returns one.
PACK = Command(
    "pack", help_key="help.packs", admin_only=True, denied_key="pack.denied",
    describe={"discord": "Team question packs: add, list, remove, export (Manage Server)",
              "slack": "Team question packs, add a file, list, remove, export (admins)"},
    options=(Option("add", "file", "the pack file, one YAML file of at most 1 MiB"),
             Option("remove", "text", "the pack's id, as the pack list shows it", max_value=40),
             Option("export", "text", "the pack's id, as the pack list shows it", max_value=40)),
    usage={"slack": "add | list | remove ID | export ID", "home": "add|list|remove|export",
           "console": "add PATH | list | remove ID | export ID"})


def pack_scope(who: Identity) -> str:
    """Return the scope a workspace's packs are stored under: ``PLATFORM:WORKSPACE``."""
    return f"{who.platform}:{who.workspace}"


def _pack_id(text: str) -> str | None:
    word = text.strip().lower()[:40]
    return word if PACK_ID.fullmatch(word) else None


class PackDesk:
    """/quiz-pack add, list, remove and export, for a workspace's admins (the desk's part)."""

    def __init__(self, desk: DeskBase) -> None:
        self.desk = desk

    # ------------------------------------------------------------ refusals
    def _tools(self) -> PackTools:
        if self.desk.pack_tools is None:  # every request is refused before (pack.off)
            raise RuntimeError("team packs are not wired in this process")
        return self.desk.pack_tools

    def _pack_refusal(self, who: Identity) -> tuple[str, Reply | None]:
        locale = self.desk.locale_without_member(who)
        if not who.is_admin:
            return locale, self.desk.warning(locale, "pack.denied")
        if self.desk.pack_tools is None:
            return locale, self.desk.warning(locale, "pack.off")
        if not who.workspace:
            return locale, self.desk.warning(locale, "pack.no_workspace")
        return locale, None

    def pack_upload_refusal(self, who: Identity, filename: str | None = None,
                            declared_size: int = 0) -> Reply | None:
        """Refuse an upload before its bytes are fetched: not an admin, a wrong name, too big.

        The platform said how big the file is; the bytes are bounded again when read.
        ``filename`` None: no file yet (Slack's form for one is about to open).
        """
        return self._upload_refusal(who, filename, declared_size)[1]

    def _upload_refusal(self, who: Identity, filename: str | None,
                        size: int) -> tuple[str, Reply | None]:
        locale, refusal = self._pack_refusal(who)
        if refusal is not None or filename is None:
            return locale, refusal
        if not filename.lower().endswith(PACK_SUFFIXES):
            return locale, self.desk.warning(locale, "pack.bad_name")
        if size > MAX_PACK_BYTES:
            return locale, self.desk.warning(locale, "pack.too_big", size=size,
                                             limit=MAX_PACK_BYTES)
        return locale, None

    # ------------------------------------------------------------ add
    def pack_add(self, who: Identity, filename: str, data: bytes) -> Reply:
        """Validate an uploaded pack file and store it for the admin's workspace only.

        Slow (a pack's code runs in a fresh sandbox, up to about 30 s): call it off the event
        loop. Nothing is stored unless every check passed.
        """
        locale, refusal = self._upload_refusal(who, filename, len(data))
        if refusal is not None:
            return refusal
        scope = pack_scope(who)
        shelf = self._tools().shelf
        # The header alone (parsing runs no pack code) says whether the shelf would take it:
        # a taken id or a version not above the stored one is refused before the check,
        # which holds a sandbox for up to a minute.
        header = parse_pack(data).pack
        if header is not None:
            refusal = self._shelf_refusal(shelf.versions(header.id), header.id,
                                          int(header.header.version), scope, locale)
            if refusal is not None:
                return refusal
        check = self._tools().checker.check(data)
        if not check.ok:
            log.info("pack refused %s user=%s: %d problem(s)", pack_scope(who), who.user,
                     len(check.errors))
            return Reply(locale, self._report(check, locale))
        refusal = self._shelf_refusal(shelf.versions(check.pack_id), check.pack_id,
                                      check.version, scope, locale)
        if refusal is not None:
            return refusal
        try:
            stored = shelf.add(check, scope)
        except PackConflict:
            return self.desk.warning(locale, "pack.conflict", pack=check.pack_id)
        log.info("pack %s v%d stored for %s by user=%s", stored.pack_id, stored.version, scope,
                 who.user)
        before = self._tools().shelf.versions(stored.pack_id)[:-1]
        self._audit(who, "pack_add", stored.pack_id,
                    f"v{before[-1].version}" if before else "none", f"v{stored.version}")
        self.desk.quiz.library.invalidate()  # drawable here at once; other replicas within seconds
        return Reply(locale, Message(
            title=t(locale, "pack.stored.title"),
            body="\n".join((t(locale, "pack.stored", pack=stored.pack_id, version=stored.version,
                              items=check.items, cards=check.cards),
                            t(locale, "pack.stored.how", pack=stored.pack_id))),
            quotes=((t(locale, "pack.title"), stored.title[:NAME_CHARS]),),
            tone=Tone.SUCCESS))

    def _shelf_refusal(self, versions: list[ShelvedPack], pack_id: str, version: int,
                       scope: str, locale: str) -> Reply | None:
        """Return the refusal of a pack the shelf holding ``versions`` would not take."""
        if versions and versions[0].scope != scope:
            # Whose it is stays unsaid: a workspace learns nothing about another one.
            return self.desk.warning(locale, "pack.taken", pack=pack_id)
        if versions and version <= versions[-1].version:
            key = "pack.version_low_removed" if versions[-1].removed else "pack.version_low"
            return self.desk.warning(locale, key, pack=pack_id, version=versions[-1].version)
        return None

    @staticmethod
    def _report(check: PackCheck, locale: str) -> Message:
        shown = check.errors[:SHOWN_ERRORS]
        # Each error may quote the file: a quote, made inert by the front end that shows it.
        quotes = tuple((f"{n}.", error[:ERROR_CHARS]) for n, error in enumerate(shown, 1))
        more = len(check.errors) - len(shown)
        body = t(locale, "pack.invalid", count=len(check.errors), items=check.items,
                 cards=check.cards)
        return Message(title=t(locale, "pack.invalid.title"), body=body, quotes=quotes,
                       footer=t(locale, "pack.invalid.more", more=more) if more else
                       t(locale, "pack.invalid.how"),
                       tone=Tone.WARNING)

    # ------------------------------------------------------------ list, remove, export
    def pack_command(self, who: Identity, argument: str) -> PackReply:
        """Handle ``/quiz-pack list``, ``remove ID`` and ``export ID`` (admins only)."""
        refusal = self.desk.command_too_long(argument, who.locale or "en")
        if refusal is not None:
            return PackReply(refusal)
        locale, refusal = self._pack_refusal(who)
        if refusal is not None:
            return PackReply(refusal)
        words = argument.split()
        verb = words[0].lower() if words else "list"
        if verb == "list" and len(words) <= 1:
            return PackReply(self._pack_list(who, locale))
        if verb in ("remove", "export") and len(words) == 2:
            pack_id = _pack_id(words[1])
            if pack_id is None:
                return PackReply(self.desk.warning(locale, "pack.bad_id"))
            own = self._own_pack(who, pack_id, locale)
            if isinstance(own, Reply):
                return PackReply(own)
            return self._pack_remove(who, own, locale) if verb == "remove" else (
                self._pack_export(own, locale))
        return PackReply(self.desk.warning(locale, "pack.usage"))

    def _pack_list(self, who: Identity, locale: str) -> Reply:
        packs = self._tools().shelf.latest(pack_scope(who))
        if not packs:
            return Reply(locale, Message(title=t(locale, "pack.list.title"),
                                         body=t(locale, "pack.list.empty")))
        shown = packs[:SHOWN_PACKS]
        quotes = tuple((t(locale, "pack.list.own" if p.scope != SHARED_SCOPE
                          else "pack.list.shared", pack=p.pack_id, version=p.version),
                        p.title[:NAME_CHARS]) for p in shown)
        more = len(packs) - len(shown)
        footer = t(locale, "pack.list.how")
        if more:
            footer = f"{t(locale, 'pack.list.more', more=more)} {footer}"
        return Reply(locale, Message(title=t(locale, "pack.list.title"), quotes=quotes,
                                     footer=footer))

    def _own_pack(self, who: Identity, pack_id: str, locale: str) -> ShelvedPack | Reply:
        """Return the newest version of the workspace's own pack, or the refusal to show."""
        versions = [v for v in self._tools().shelf.versions(pack_id) if not v.removed]
        if not versions:
            return self.desk.warning(locale, "pack.none", pack=pack_id)
        if versions[-1].scope == SHARED_SCOPE:
            return self.desk.warning(locale, "pack.shared", pack=pack_id)
        if versions[-1].scope != pack_scope(who):
            # The same answer whoever owns it: only that it is not this workspace's.
            return self.desk.warning(locale, "pack.not_yours", pack=pack_id)
        return versions[-1]

    def _pack_remove(self, who: Identity, pack: ShelvedPack, locale: str) -> PackReply:
        if not self._tools().shelf.remove(pack.pack_id, pack_scope(who)):
            return PackReply(self.desk.warning(locale, "pack.none", pack=pack.pack_id))
        log.info("pack %s removed from %s by user=%s", pack.pack_id, pack_scope(who), who.user)
        self._audit(who, "pack_remove", pack.pack_id, f"v{pack.version}", "removed")
        self.desk.quiz.library.invalidate()
        return PackReply(Reply(locale, Message(body=t(locale, "pack.removed", pack=pack.pack_id),
                                               tone=Tone.SUCCESS)))

    def _audit(self, who: Identity, action: str, pack_id: str, before: str, after: str) -> None:
        """Write a pack change to the workspace's audit log, whichever front end made it."""
        self.desk.quiz.audit.record(platform=who.platform, workspace=who.workspace,
                                    actor=who.user, actor_name=who.display_name, action=action,
                                    target=pack_id, before=before, after=after)

    # ------------------------------------------------------------ the web page's reads
    def pack_shelf(self, who: Identity) -> list[ShelvedPack] | None:
        """Return the newest version of every pack the workspace sees (its own and shared).

        None when ``who`` may not manage packs here (not an admin, packs off, no workspace).
        """
        if self._pack_refusal(who)[1] is not None:
            return None
        return self._tools().shelf.latest(pack_scope(who))

    def pack_history(self, who: Identity, pack_id: str) -> list[ShelvedPack] | None:
        """Return every version of a pack the workspace sees, oldest first (None: it sees none).

        Its own pack's removed versions too; a shared pack's; never another workspace's.
        """
        if self._pack_refusal(who)[1] is not None or _pack_id(pack_id) != pack_id:
            return None
        versions = self._tools().shelf.versions(pack_id)
        if not versions or versions[-1].scope not in (pack_scope(who), SHARED_SCOPE):
            return None
        if versions[-1].scope == SHARED_SCOPE and versions[-1].removed:
            return None
        return versions

    @staticmethod
    def _pack_export(pack: ShelvedPack, locale: str) -> PackReply:
        name = f"{pack.pack_id}-v{pack.version}.yaml"
        message = Message(body=t(locale, "pack.exported", pack=pack.pack_id,
                                 version=pack.version, file=name))
        return PackReply(Reply(locale, message), name, pack.text.encode("utf-8"), pack.pack_id,
                         pack.version)
