"""The members' own requests at the desk: privacy on the boards, reminders, forgetting."""

from __future__ import annotations

from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Action, Command, Option
from bot.core.kernel.models import Identity
from bot.core.kernel.replies import Reply


def privacy(desk: DeskBase, who: Identity, choice: str, _whom: Identity | None) -> Reply:
    """Say whether the member shows on the boards, or hide or show them."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.board.privacy(found.member, choice.lower(), locale))


def remind(desk: DeskBase, who: Identity, argument: str, _whom: Identity | None) -> Reply:
    """Turn the member's review reminders on (at an hour), off, or skip tomorrow's."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.reminders.command(found.member, found.channel, argument,
                                                     locale))


def forget(desk: DeskBase, who: Identity, _argument: str, _whom: Identity | None) -> Reply:
    """Show what forgetting the member deletes, with the button that confirms it."""
    # Only the button confirms in chat: a typed "yes" still shows what would go first.
    return forget_me(desk, who, confirmed=False)


PRIVACY = Command(
    "privacy", help_key="help.privacy", handler=privacy,
    describe={"discord": "Hide yourself from the boards, or show again",
              "slack": "Hide yourself from the boards, or show again"},
    options=(Option("mode", "choice", "hidden or visible (empty: say which you are)",
                    choices=(("hidden from the boards", "hidden"),
                             ("visible on the boards", "visible"))),),
    usage={"slack": "[hidden | visible]", "console": "[hidden|visible]"})
FORGET_ME = Command(
    "forget-me", help_key="help.forget", handler=forget,
    describe={"discord": "See and delete everything the quiz keeps about you",
              "slack": "See and delete everything the quiz keeps about you"},
    usage={"home": "", "console": "[yes]"})
REMIND = Command(
    "remind", help_key="help.remind", handler=remind, notice=True,
    describe={"discord": "A private reminder when reviews are due",
              "slack": "A private reminder when reviews are due"},
    options=(Option("state", "choice", "on, off, or skip tomorrow",
                    choices=(("on", "on"), ("off", "off"), ("snooze a day", "snooze"))),
             Option("hour", "integer", "local hour, 0-23 (the channel's post time by default)",
                    min_value=0, max_value=23)),
    usage={"slack": "on [hour 0-23] | off | snooze", "home": "on|off [HOUR]",
           "console": "on [HOUR]|off|snooze"})


def reminder_clicked(desk: DeskBase, who: Identity, _kind: str, _target: str,
                     key: str) -> Reply:
    """Answer a review reminder's button: practise now, snooze a day, or stop reminders."""
    if key == "start":
        return desk.start_practice(who, "")  # the most overdue review, as /quiz gives
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    if key == "snooze":
        return Reply(locale, desk.quiz.reminders.snooze(found.member, locale))
    if key == "stop":
        return Reply(locale, desk.quiz.reminders.stop(found.member, locale))
    return desk.warning(locale, "action.unknown")


def forget_me(desk: DeskBase, who: Identity, confirmed: bool) -> Reply:
    """Say what forgetting the member deletes (with a confirm button), or delete it.

    Whatever is deleted is the data of ``who``, the member who asked or clicked. Asking
    creates nothing: a member the bot never stored hears that nothing is kept.
    """
    locale = desk.locale_without_member(who)
    if not confirmed:
        return Reply(locale, desk.people.preview(who, locale))
    message, report = desk.people.forget(who, locale)
    redraw = report.open_rounds[0] if report is not None and report.open_rounds else None
    return Reply(locale, message, redraw_round=redraw)


def forget_clicked(desk: DeskBase, who: Identity, _kind: str, tag: str, key: str) -> Reply:
    """Confirm or cancel forgetting, from the button only the member it was shown to owns."""
    if not desk.people.is_owner(who, tag):
        # Someone else's confirmation: it deletes nothing, theirs or the clicker's.
        return desk.warning(desk.locale_without_member(who), "forget.not_yours")
    if key != "yes":
        locale = desk.locale_without_member(who)
        return Reply(locale, desk.people.cancelled(locale))
    return forget_me(desk, who, confirmed=True)


REMINDER_BUTTONS = Action(("remind",), reminder_clicked)
FORGET_BUTTONS = Action(("forget",), forget_clicked)
