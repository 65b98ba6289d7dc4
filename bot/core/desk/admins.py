"""The admins' requests at the desk, and the reports members file: question quality.

Every admin request is checked here against what the platform's server said of the member
(``Identity.is_admin``), never against a client's claim.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.channels import WEEKDAYS
from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Action, Command, Option
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Message, Tone, round_id_of
from bot.core.kernel.models import Identity
from bot.core.kernel.replies import Reply
from bot.core.quality import Where


def reports(desk: DeskBase, who: Identity, argument: str, _whom: Identity | None) -> Reply:
    """List the workspace's open reports, or close one (admins: the registry checked)."""
    locale = desk.locale_without_member(who)
    where = Where(who.platform, who.workspace)
    words = argument.split(maxsplit=2)
    if not words:
        return Reply(locale, desk.reports.listing(where, locale))
    if words[0].lower() != "close" or len(words) < 3 or not words[1].lstrip("#").isdigit():
        return desk.warning(locale, "report.close.usage")
    report_id = int(words[1].lstrip("#")[:10])
    return Reply(locale, close_reports(desk, who, (report_id,), words[2], locale))


MAX_CLOSED_AT_ONCE = 100  # reports one close (the web page's queue) closes at most


def close_reports(desk: DeskBase, who: Identity, report_ids: Sequence[int], reason: str,
                  locale: str) -> Message:
    """Close the workspace's open reports ``report_ids`` with one reason; log each closed one.

    Chat's ``/quiz-reports close ID REASON`` closes one, the web page's queue several; both
    come here, so each closed report is in the audit log (who, which report, before, after).
    """
    where = Where(who.platform, who.workspace)
    if not desk.reports.closing_reason(reason):
        return Message(body=t(locale, "report.close.usage"), tone=Tone.WARNING)
    ids = list(dict.fromkeys(report_ids))[:MAX_CLOSED_AT_ONCE]
    closed, missing = [], []
    for report_id in ids:
        report = desk.reports.close_report(report_id, reason, where)
        if report is None:
            missing.append(report_id)
            continue
        closed.append(report_id)
        desk.quiz.audit.record(platform=who.platform, workspace=who.workspace, actor=who.user,
                               actor_name=who.display_name, action="close_report",
                               target=f"#{report.id} {report.item_id} v{report.item_version}",
                               before="open", after=f"closed: {report.close_reason}")
    if len(ids) == 1:
        key = "report.close.done" if closed else "report.close.none"
        return Message(body=t(locale, key, id=ids[0]),
                       tone=Tone.SUCCESS if closed else Tone.WARNING)
    lines = []
    if closed:
        lines.append(t(locale, "report.close.many", ids=_ids(closed, locale)))
    if missing:
        lines.append(t(locale, "report.close.none", id=_ids(missing, locale)))
    return Message(body="\n".join(lines), tone=Tone.WARNING if missing else Tone.SUCCESS)


def _ids(ids: Sequence[int], locale: str) -> str:
    return ("、#" if locale.startswith("zh") else ", #").join(str(n) for n in ids)


MAX_ITEM_ID = 128  # an item id, as the bank and the packs bound it


def insights(desk: DeskBase, who: Identity, argument: str, _whom: Identity | None) -> Reply:
    """Show question quality, or pause / unpause an item by hand (admins: the registry checked).

    ``pause ID`` keeps the item's current version out of every daily pick until an admin
    unpauses it; ``unpause ID`` is the unpause button's click typed out.
    """
    # Private; nothing about the member is stored to answer it.
    locale = desk.locale_without_member(who)
    words = argument.split()
    if not words:
        return Reply(locale, desk.insights.message(locale, desk.scope(who)))
    verb = words[0].lower()
    if verb not in ("pause", "unpause") or len(words) != 2 or len(words[1]) > MAX_ITEM_ID:
        return desk.warning(locale, "insights.usage")
    if verb == "pause":
        return pause_item(desk, who, words[1])
    if not desk.insights.bank.visible(words[1], desk.scope(who)):
        return desk.warning(locale, "insights.unknown", item=words[1])
    return unpause_clicked(desk, who, "unpause", words[1], "item")


# Members see a channel's settings; only admins change them (Desk.settings checks).
SETTINGS = Command(
    "settings", help_key="help.settings", admin_only=True, denied_key="settings.denied",
    describe={"discord": "Show or change this channel's daily quiz (Manage Server)",
              "slack": "This channel's daily quiz (admins change it)"},
    options=(
        Option("channel", "channel", "the channel to set up (this one by default)"),
        Option("time", "text", "daily post time, HH:MM"),
        Option("timezone", "text", "IANA time zone, e.g. Asia/Shanghai", autocomplete="zones"),
        Option("language", "choice", "language of the posts",
               choices=(("English", "en"), ("简体中文", "zh-CN"))),
        Option("topics", "text", "comma-separated topics, or all"),
        Option("difficulty", "text", "e.g. 1,2 or all"),
        Option("leaderboard_day", "choice", "weekday of the weekly leaderboard",
               choices=tuple((day, day) for day in WEEKDAYS)),
        Option("leaderboard_hour", "integer", "hour of the weekly leaderboard",
               min_value=0, max_value=23),
        Option("enabled", "boolean", "post daily questions"),
        Option("packs", "text", "packs to draw from, comma-separated; bank is the shipped bank"),
        Option("live_hosts", "choice", "who may host a live quiz here",
               choices=(("admins", "admins"), ("anyone", "anyone"))),
        Option("live_on_board", "boolean", "count live quiz points on the weekly board"),
        Option("kinds", "text", "kinds of daily question: choice,text,code,speed, or all"),
    ),
    usage={"home": "", "console": "[key=value ...]"})
REPORTS = Command(
    "reports", help_key="help.reports", handler=reports, admin_only=True,
    denied_key="report.denied",
    describe={"discord": "Open reports of faulty questions; close one (Manage Server)",
              "slack": "Open reports of faulty questions (admins)"},
    options=(Option("close", "integer", "the number of a report to close",
                    min_value=1, max_value=2**31 - 1),
             Option("reason", "text", "why it is closed (needed to close one)")),
    usage={"slack": "[close ID REASON]", "home": "", "console": "[close ID REASON]"})
INSIGHTS = Command(
    "insights", help_key="help.insights", handler=insights, admin_only=True,
    denied_key="insights.denied",
    describe={"discord": "Question quality: flagged and paused questions (Manage Server)",
              "slack": "Question quality, flagged and paused questions (admins)"},
    options=(Option("action", "choice", "pause or unpause a question by hand",
                    choices=(("pause", "pause"), ("unpause", "unpause"))),
             Option("item", "text", "the question's id (with action)", max_value=MAX_ITEM_ID)),
    usage={"slack": "[pause|unpause ID]", "home": "", "console": "[pause|unpause ID]"})


def report_clicked(desk: DeskBase, who: Identity, kind: str, target: str, _key: str) -> Reply:
    """Open the report form of a round's question (``report``) or a practice one's."""
    round_id = round_id_of(target) if kind == "report" else None
    _, actor = desk.resolve(who, round_id)
    locale = actor.locale or "en"
    form = (desk.reports.form_for_round(round_id, locale) if round_id is not None
            else desk.reports.form_for_item(target, locale, desk.scope(who)))
    if form is None:
        return desk.warning(locale, "report.gone")
    return Reply(locale, form=form)


def file_report(desk: DeskBase, who: Identity, kind: str, target: str, reason: str,
                note: str) -> Reply:
    """File the report a member submitted (``reported``: on a round's question)."""
    round_id = round_id_of(target) if kind == "reported" else None
    found, actor = desk.resolve(who, round_id)
    locale = actor.locale or "en"
    where = Where(who.platform, who.workspace)
    if round_id is not None:
        message = desk.reports.file_for_round(found.member, where, round_id, reason, note,
                                              locale)
    else:
        message = desk.reports.file_for_item(found.member, where, target, reason, note,
                                             locale)
    return Reply(locale, message)


def unpause_clicked(desk: DeskBase, who: Identity, _kind: str, item_id: str, _key: str) -> Reply:
    """Let a paused question be posted again (admins only, checked here)."""
    locale = desk.locale_without_member(who)
    if not who.is_admin:
        return desk.warning(locale, "insights.denied")
    if not desk.insights.bank.visible(item_id, desk.scope(who)):
        return desk.warning(locale, "action.unknown")  # another workspace's pack item
    message = desk.insights.unpause_message(item_id, locale)
    if message.tone is Tone.SUCCESS:  # something was paused: the audit log keeps who let it go
        desk.quiz.audit.record(platform=who.platform, workspace=who.workspace, actor=who.user,
                               actor_name=who.display_name, action="unpause", target=item_id,
                               before="paused", after="unpaused")
    return Reply(locale, message)


def pause_item(desk: DeskBase, who: Identity, item_id: str) -> Reply:
    """Pause an item's current version by hand (admins only, checked here); log who did it.

    Chat's ``/quiz-insights pause ID`` and the web page's pause button both come here.
    """
    locale = desk.locale_without_member(who)
    if not who.is_admin:
        return desk.warning(locale, "insights.denied")
    if (item_id not in desk.insights.bank.questions
            or not desk.insights.bank.visible(item_id, desk.scope(who))):
        return desk.warning(locale, "insights.unknown", item=item_id)
    message = desk.insights.pause_message(item_id, locale)
    if message.tone is Tone.SUCCESS:  # something was paused now: the audit log keeps who
        desk.quiz.audit.record(platform=who.platform, workspace=who.workspace, actor=who.user,
                               actor_name=who.display_name, action="pause", target=item_id,
                               before="active", after="paused")
    return Reply(locale, message)


REPORT_BUTTONS = Action(("report", "preport"), report_clicked)
UNPAUSE_BUTTON = Action(("unpause",), unpause_clicked)
