"""A member's own data: what is stored about them, and forgetting it on their word.

Storage reads a member's data as a list of named sections (answers, review cards, ...), so a
table added later joins the export and the deletion as one more section. A member is one person
on one platform (Discord user ids are global; a Slack Enterprise Grid user keeps one id across
the organisation's workspaces): forgetting deletes all of them, in every workspace, because
that is who asked. Only the sections tied to channels can be narrowed to one workspace, for an
operator's export on a workspace's behalf.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Button, Message, Tone, forget_action
from bot.core.kernel.models import ForgetReport, Identity, MemberData

if TYPE_CHECKING:
    from bot.core.people.store import PeopleStore

# The sections storage reports, in the order a member reads them; a section storage adds later
# is shown by its name until it gets words here.
SECTION_ORDER = ("answers", "pending_answers", "score_totals", "week_totals", "topic_totals",
                 "practice_session", "practice_results", "review_cards", "reminders", "reports",
                 "speed_verdicts", "speed_challenge")


def owner_tag(platform: str, user: str) -> str:
    """Return the tag a confirmation button carries: whose data it was offered to delete.

    Not a secret: the click's own identity is what gets deleted; the tag only makes a button
    shown to one member do nothing when someone else clicks it.
    """
    return hashlib.sha256(f"{platform}\0{user}".encode()).hexdigest()[:16]


def _phrase(locale: str, counts: Mapping[str, int]) -> str:
    """Return "42 answers, 3 review cards" for the non-empty sections, in a stable order."""
    names = [n for n in SECTION_ORDER if counts.get(n)]
    names += sorted(n for n in counts if counts[n] and n not in SECTION_ORDER)
    parts = []
    for name in names:
        n = counts[name]
        if name in SECTION_ORDER:
            parts.append(t(locale, f"data.{name}.{'one' if n == 1 else 'other'}", n=n))
        else:
            parts.append(f"{n} {name.replace('_', ' ')}")
    return t(locale, "data.separator").join(parts)


def _plain(value: object) -> object:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    return value


def export_object(data: MemberData, platform: str) -> dict[str, Any]:
    """Return a member's data as the export's JSON object (ISO 8601 times, a documented shape).

    The operator's `torchquiz member export --json` and the member's own download on the web
    page both write this object.
    """
    return {
        "platform": platform,
        "workspace": data.workspace,
        "member": {"external_id": data.member.external_id,
                   "display_name": data.member.display_name},
        "sections": [
            {"name": s.name, "scope": "workspace" if s.by_workspace else "member",
             "rows": [{k: _plain(v) for k, v in row.items()} for row in s.rows]}
            for s in data.sections
        ],
    }


def _then(locale: str, first: str, second: str) -> str:
    """Return two sentences as one text: Chinese sets no space between them."""
    return f"{first}{'' if locale.startswith('zh') else ' '}{second}"


class PeopleService:
    """Describe what is stored about a member and forget it when they confirm."""

    def __init__(self, store: PeopleStore) -> None:
        self.store = store

    def preview(self, who: Identity, locale: str) -> Message:
        """Return what forgetting the member would delete, with the buttons that confirm it."""
        found = self.store.member_data(who.platform, who.user)
        if found is None:
            return Message(body=t(locale, "forget.nothing"), tone=Tone.INFO)
        # A bare member row (from a look at a board) is still theirs: it can be deleted too.
        counts = found.counts()
        what = _phrase(locale, counts) or t(locale, "forget.only_name")
        tag = owner_tag(who.platform, who.user)
        body = t(locale, "forget.preview", what=what)
        if counts.get("answers"):
            body = _then(locale, body, t(locale, "forget.open_rounds"))
        return Message(
            title=t(locale, "forget.title"),
            body=body,
            buttons=(Button(forget_action(tag, "yes"), t(locale, "forget.confirm")),
                     Button(forget_action(tag, "no"), t(locale, "ui.cancel"))),
            tone=Tone.WARNING,
        )

    def member_data(self, platform: str, user: str, workspace: str) -> MemberData | None:
        """Return everything stored about a member, channel sections of ``workspace`` only."""
        return self.store.member_data(platform, user, workspace)

    def export(self, who: Identity) -> dict[str, Any] | None:
        """Return everything stored about the member, every workspace (what forget-me deletes).

        None when nothing is stored about them.
        """
        found = self.store.member_data(who.platform, who.user)
        return None if found is None else export_object(found, who.platform)

    def forget_member(self, platform: str, user: str) -> ForgetReport | None:
        """Delete a member on ``platform`` in every workspace; None when there is none."""
        return self.store.forget_member(platform, user)

    def forget(self, who: Identity, locale: str) -> tuple[Message, ForgetReport | None]:
        """Delete everything stored about the member; say what went (or that nothing was left)."""
        report = self.forget_member(who.platform, who.user)
        if report is None:
            return Message(body=t(locale, "forget.nothing"), tone=Tone.INFO), None
        what = _phrase(locale, dict(report.deleted))
        body = t(locale, "forget.done", what=what) if what else t(locale, "forget.done_name_only")
        if report.kept_anonymous:
            body = _then(locale, body, t(locale, "forget.open_rounds"))
        return Message(title=t(locale, "forget.done_title"), body=body, tone=Tone.SUCCESS), report

    @staticmethod
    def cancelled(locale: str) -> Message:
        """Return the answer to "Cancel": nothing was deleted."""
        return Message(body=t(locale, "forget.cancelled"), tone=Tone.INFO)

    @staticmethod
    def is_owner(who: Identity, tag: str) -> bool:
        """Return whether a confirmation button with ``tag`` was offered to this member."""
        return tag == owner_tag(who.platform, who.user)
