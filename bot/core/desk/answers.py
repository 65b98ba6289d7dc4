"""Answers at the desk: a daily round's and a practice question's, by button, form or text.

The buttons a question shows (its options, "Answer" opening a form) are declared here beside
their handlers; Desk.submit and the typed answers of a console or a message come here too.
"""

from __future__ import annotations

from dataclasses import replace

from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Action
from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Button, Message, report_action, round_id_of
from bot.core.kernel.models import AnswerMode, Identity
from bot.core.kernel.replies import Reply


def answer_round(desk: DeskBase, who: Identity, target: str, response: str,
                 mode: AnswerMode) -> Reply:
    """Answer the round the button or form names (``target``: its round id)."""
    round_id = round_id_of(target)
    found, actor = desk.resolve(who, round_id)
    locale = actor.locale or "en"
    if found.round is None or found.channel is None:
        return desk.warning(locale, "answer.no_round")
    outcome = desk.quiz.rounds.answer(found.round, found.channel, actor, response, mode)
    return Reply(locale, reportable(outcome.reply, outcome.round_id, outcome.recorded, locale),
                 redraw_round=outcome.round_id if outcome.tally_changed else None)


def answer_today(desk: DeskBase, who: Identity, response: str, mode: AnswerMode) -> Reply:
    """Answer the latest round of the member's channel (a typed answer: no button names it)."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    if found.channel is None:
        return desk.warning(locale, "channel.no_quiz")
    outcome = desk.quiz.rounds.submit_answer(found.channel.id, actor, response, mode)
    return Reply(locale, reportable(outcome.reply, outcome.round_id, outcome.recorded, locale),
                 redraw_round=outcome.round_id if outcome.tally_changed else None)


def reportable(reply: Message, round_id: int | None, recorded: bool, locale: str) -> Message:
    """Add the Report button to the private feedback on a recorded daily answer."""
    if not recorded or round_id is None:
        return reply
    button = Button(report_action(round_id), t(locale, "report.button"))
    return replace(reply, buttons=(*reply.buttons, button))


def answer_practice(desk: DeskBase, who: Identity, item_id: str | None, response: str,
                    mode: AnswerMode) -> Reply:
    """Answer the member's practice question (``item_id``: the one the button was shown with)."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.practice.answer(found.member, response, locale, mode,
                                                   item_id=item_id, workspace=who.workspace))


def open_form(desk: DeskBase, who: Identity, kind: str, target: str, _key: str) -> Reply:
    """Open the answer form of a round (``form``) or of a practice question (``pform``)."""
    round_id = round_id_of(target) if kind == "form" else None
    found, actor = desk.resolve(who, round_id)
    locale = actor.locale or "en"
    if kind == "form":
        form = desk.quiz.rounds.answer_form(round_id, locale) if round_id else None
        if form is None:
            return desk.warning(locale, "answer.closed")
        return Reply(locale, form=form)
    form = desk.quiz.practice.answer_form(found.member, target, locale)
    if form is None:
        return desk.warning(locale, "practice.nothing_pending")
    return Reply(locale, form=form)


def _option_clicked(desk: DeskBase, who: Identity, _kind: str, round_id: str,
                    key: str) -> Reply:
    return answer_round(desk, who, round_id, key, AnswerMode.BUTTON)


def _practice_option_clicked(desk: DeskBase, who: Identity, _kind: str, item_id: str,
                             key: str) -> Reply:
    return answer_practice(desk, who, item_id, key, AnswerMode.BUTTON)


ANSWER = Action(("answer",), _option_clicked)
PRACTICE = Action(("practice",), _practice_option_clicked)
FORMS = Action(("form", "pform"), open_form)
