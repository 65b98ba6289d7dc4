"""Learning at the desk: concept cards (/explain) and private practice (/quiz)."""

from __future__ import annotations

from bot.core.desk import speed
from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Action, Command, Option
from bot.core.kernel.models import Identity
from bot.core.kernel.replies import Reply


def explain(desk: DeskBase, who: Identity, topic: str, _whom: Identity | None) -> Reply:
    """Return the concept card on ``topic`` (the workspace's packs' cards too)."""
    _, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.explain.explain(topic, locale, desk.scope(who)))


def practice(desk: DeskBase, who: Identity, topic: str, _whom: Identity | None) -> Reply:
    """Serve a private practice question (of ``topic``, if named); ``speed [ID]``: a speed one."""
    word, _, rest = topic.strip().partition(" ")
    if word.lower() == speed.SPEED_WORD:
        return speed.serve(desk, who, rest.strip())
    return desk.start_practice(who, topic)


def skip_clicked(desk: DeskBase, who: Identity, _kind: str, item_id: str, _key: str) -> Reply:
    """Skip the practice question the Skip button was shown with (a miss), serve the next."""
    return desk.practice_skip(who, item_id)


def share_clicked(desk: DeskBase, who: Identity, _kind: str, card_id: str, _key: str) -> Reply:
    """Post a concept card for the whole channel, in the language of where it is shared."""
    _, actor = desk.resolve(who)
    locale = actor.locale or "en"
    card = desk.quiz.explain.share(card_id, locale, desk.scope(who))
    if card is None:
        return desk.warning(locale, "explain.gone")
    return Reply(locale, card, public=True)


SKIP = Action(("pskip",), skip_clicked)
SHARE = Action(("share",), share_clicked)
EXPLAIN = Command(
    "explain", help_key="help.explain", handler=explain, notice=True,
    describe={"discord": "Explain a PyTorch concept, with an example",
              "slack": "Explain a PyTorch concept, with an example"},
    options=(Option("topic", "text", "e.g. detach, view-vs-reshape, no_grad", required=True,
                    autocomplete="explain"),),
    usage={"slack": "detach | view vs reshape | no_grad", "home": "TOPIC", "console": "TOPIC"})
QUIZ = Command(
    "quiz", help_key="help.quiz", handler=practice, notice=True,
    describe={"discord": "A private practice question, from what you missed",
              "slack": "A private practice question, from what you missed"},
    options=(Option("topic", "text", "only questions on this topic", autocomplete="topics"),),
    usage={"slack": "[topic | speed]", "home": "[TOPIC|speed]",
           "console": "[TOPIC|skip|speed [ID]]"})
