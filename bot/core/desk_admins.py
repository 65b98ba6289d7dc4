"""The admins' requests at the desk, and the reports members file: question quality.

Every admin request is checked here against what the platform's server said of the member
(``Identity.is_admin``), never against a client's claim.
"""

from __future__ import annotations

from bot.core.desk_base import DeskBase, Reply
from bot.core.kernel.messages import round_id_of
from bot.core.kernel.models import Identity
from bot.core.quality import Where


class AdminRequests(DeskBase):
    """Reports of faulty questions (filed by members, listed and closed by admins), insights."""

    def _report_form(self, who: Identity, kind: str, target: str) -> Reply:
        round_id = round_id_of(target) if kind == "report" else None
        _, actor = self._resolve(who, round_id)
        locale = actor.locale or "en"
        form = (self.reports.form_for_round(round_id, locale) if round_id is not None
                else self.reports.form_for_item(target, locale, self._scope(who)))
        if form is None:
            return self._warning(locale, "report.gone")
        return Reply(locale, form=form)

    def _file_report(self, who: Identity, kind: str, target: str, reason: str,
                     note: str) -> Reply:
        round_id = round_id_of(target) if kind == "reported" else None
        found, actor = self._resolve(who, round_id)
        locale = actor.locale or "en"
        where = Where(who.platform, who.workspace)
        if round_id is not None:
            message = self.reports.file_for_round(found.member, where, round_id, reason, note,
                                                  locale)
        else:
            message = self.reports.file_for_item(found.member, where, target, reason, note,
                                                 locale)
        return Reply(locale, message)

    def _reports(self, who: Identity, argument: str, _whom: Identity | None) -> Reply:
        """List the workspace's open reports, or close one: admins only, checked here."""
        locale = self._locale_without_member(who)
        if not who.is_admin:
            return self._warning(locale, "report.denied")
        where = Where(who.platform, who.workspace)
        words = argument.split(maxsplit=2)
        if not words:
            return Reply(locale, self.reports.listing(where, locale))
        if words[0].lower() != "close" or len(words) < 3 or not words[1].lstrip("#").isdigit():
            return self._warning(locale, "report.close.usage")
        report_id = int(words[1].lstrip("#")[:10])
        return Reply(locale, self.reports.close(where, report_id, words[2], locale))

    def _insights(self, who: Identity, _argument: str, _whom: Identity | None) -> Reply:
        # Private, admins only: the platform's server said so (Identity.is_admin), never the
        # client. Nothing about the member is stored to answer it.
        locale = self._locale_without_member(who)
        if not who.is_admin:
            return self._warning(locale, "insights.denied")
        return Reply(locale, self.insights.message(locale, self._scope(who)))

    def _unpause_click(self, who: Identity, item_id: str) -> Reply:
        locale = self._locale_without_member(who)
        if not who.is_admin:
            return self._warning(locale, "insights.denied")
        if not self.insights.bank.visible(item_id, self._scope(who)):
            return self._warning(locale, "action.unknown")  # another workspace's pack item
        return Reply(locale, self.insights.unpause_message(item_id, locale))
