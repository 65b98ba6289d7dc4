"""The members' own requests at the desk: privacy on the boards, reminders, forgetting."""

from __future__ import annotations

from dataclasses import replace

from bot.core.desk_base import DeskBase, Reply
from bot.core.kernel.models import Identity


class MemberRequests(DeskBase):
    """What a member asks about themselves; whatever it changes is the asker's own."""

    def _privacy(self, who: Identity, choice: str, _whom: Identity | None) -> Reply:
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        return Reply(locale, self.quiz.board.privacy(found.member, choice.lower(), locale))

    def _with_notice(self, who: Identity, reply: Reply) -> Reply:
        # Told once, in the next private reply: a member whose reminders we had to stop.
        if reply.message is None or reply.public:
            return reply
        notice = self.quiz.reminders.notice(who.platform, who.user, reply.locale)
        if notice is None:
            return reply
        body = f"{notice}\n\n{reply.message.body}" if reply.message.body else notice
        return replace(reply, message=replace(reply.message, body=body))

    def _remind(self, who: Identity, argument: str, _whom: Identity | None) -> Reply:
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        return Reply(locale, self.quiz.reminders.command(found.member, found.channel, argument,
                                                         locale))

    def _reminder_button(self, who: Identity, key: str) -> Reply:
        if key == "start":
            return self._practice(who, "", None)  # the most overdue review, as /quiz gives
        found, actor = self._resolve(who)
        locale = actor.locale or "en"
        if key == "snooze":
            return Reply(locale, self.quiz.reminders.snooze(found.member, locale))
        if key == "stop":
            return Reply(locale, self.quiz.reminders.stop(found.member, locale))
        return self._warning(locale, "action.unknown")

    # ------------------------------------------------------------ the member's own data
    def forget_me(self, who: Identity, confirmed: bool) -> Reply:
        """Say what forgetting the member deletes (with a confirm button), or delete it.

        Whatever is deleted is the data of ``who``, the member who asked or clicked. Asking
        creates nothing: a member the bot never stored hears that nothing is kept.
        """
        locale = self._locale_without_member(who)
        if not confirmed:
            return Reply(locale, self.people.preview(who, locale))
        message, report = self.people.forget(who, locale)
        redraw = report.open_rounds[0] if report is not None and report.open_rounds else None
        return Reply(locale, message, redraw_round=redraw)

    def _forget_command(self, who: Identity, _argument: str, _whom: Identity | None) -> Reply:
        # Only the button confirms in chat: a typed "yes" still shows what would go first.
        return self.forget_me(who, confirmed=False)

    def _forget_click(self, who: Identity, tag: str, key: str) -> Reply:
        if not self.people.is_owner(who, tag):
            # Someone else's confirmation: it deletes nothing, theirs or the clicker's.
            return self._warning(self._locale_without_member(who), "forget.not_yours")
        if key != "yes":
            locale = self._locale_without_member(who)
            return Reply(locale, self.people.cancelled(locale))
        return self.forget_me(who, confirmed=True)
