"""Speed challenges at the desk: /quiz speed, the code form, /quiz-speed, held verdicts.

``/quiz speed [ID]`` (learning.py hands it here) serves a challenge; its code form comes back
as ``tq:ssubmit:<item>:code``, a console's typed code through ``Desk.practice_answer``.
``/quiz-speed`` lists the challenges, ``/quiz-speed ID`` shows one's board in the channel,
``/quiz-speed held`` the workspace's held verdicts (admins), whose buttons
(``tq:sheld:<verdict>:release|reject``) or the console's ``release ID`` / ``reject ID``
review them; the admin right is checked in the service, whatever the button claimed.
"""

from __future__ import annotations

from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Action, Command, Option
from bot.core.kernel.messages import round_id_of
from bot.core.kernel.models import Identity
from bot.core.kernel.replies import Reply
from bot.core.speed import Where

SPEED_WORD = "speed"  # /quiz speed [ID]


def where_of(desk: DeskBase, who: Identity, channel_id: int | None) -> Where:
    """Return where a speed request comes from (the workspace's scope, the quiz channel)."""
    return Where(who.platform, who.workspace, desk.scope(who), channel_id)


def serve(desk: DeskBase, who: Identity, item_id: str) -> Reply:
    """Serve a speed challenge (``/quiz speed [ID]``), privately, in the channel's language."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.speed.serve(found.member, item_id, locale))


def submit(desk: DeskBase, who: Identity, item_id: str | None, code: str) -> Reply:
    """Time code against ``item_id`` (None: the member's open challenge); keep the verdict."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    speed = desk.quiz.speed
    if item_id is None:
        item = speed.open_item(found.member)
        if item is None:
            return desk.warning(locale, "speed.nothing_open")
        item_id = item.id
    channel_id = found.channel.id if found.channel is not None else None
    return Reply(locale, speed.submit(found.member, where_of(desk, who, channel_id), item_id,
                                      code, locale))


def speed_command(desk: DeskBase, who: Identity, argument: str, _whom: Identity | None) -> Reply:
    """``/quiz-speed``: the list; ``ID``: its board; ``held``, ``release ID``, ``reject ID``."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    speed = desk.quiz.speed
    word, _, rest = argument.strip().partition(" ")
    word = word.lower()
    channel_id = found.channel.id if found.channel is not None else None
    where = where_of(desk, who, channel_id)
    if not word:
        return Reply(locale, speed.listing(locale))
    if word == "held":
        if not who.is_admin:
            return desk.warning(locale, "speed.held.denied")
        return Reply(locale, speed.held(where, locale))
    if word in ("release", "reject"):
        verdict_id = round_id_of(rest.strip().lstrip("#"))
        if verdict_id is None:
            return desk.warning(locale, "speed.held.usage")
        return Reply(locale, speed.review(where, found.member, who.is_admin, verdict_id, word,
                                          locale))
    if found.channel is None:
        return desk.warning(locale, "channel.no_quiz")
    return Reply(locale, speed.board(word, found.channel.id, locale))


def form_clicked(desk: DeskBase, who: Identity, _kind: str, item_id: str, _key: str) -> Reply:
    """Open the code form of the speed challenge the button names."""
    _, actor = desk.resolve(who)
    locale = actor.locale or "en"
    form = desk.quiz.speed.open_form(item_id, locale)
    if form is None:
        return Reply(locale, desk.quiz.speed.unknown(locale, item_id))
    return Reply(locale, form=form)


def review_clicked(desk: DeskBase, who: Identity, _kind: str, target: str, key: str) -> Reply:
    """Release or reject a held verdict (the id is the button's; the right is the server's)."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    verdict_id = round_id_of(target)
    if verdict_id is None:
        return desk.warning(locale, "action.unknown")
    channel_id = found.channel.id if found.channel is not None else None
    return Reply(locale, desk.quiz.speed.review(where_of(desk, who, channel_id), found.member,
                                                who.is_admin, verdict_id, key, locale))


SPEED_FORM = Action(("sform",), form_clicked)
SPEED_REVIEW = Action(("sheld",), review_clicked)
SPEED = Command(
    "speed", help_key="help.speed", handler=speed_command,
    describe={"discord": "A speed challenge's board; alone, the list of challenges",
              "slack": "A speed challenge's board; alone, the list; held: verdicts to review"},
    options=(Option("challenge", "text", "a challenge id, or held (admins)", max_value=120),),
    usage={"slack": "[challenge | held]", "home": "[CHALLENGE]",
           "console": "[CHALLENGE|held|release ID|reject ID]"})
