"""Live sessions at the desk: /quiz-live (console /live) and the session's buttons and form."""

from __future__ import annotations

from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Action, Command, Option
from bot.core.kernel.messages import Message, Tone, live_target_of, round_id_of
from bot.core.kernel.models import AnswerMode, Identity
from bot.core.kernel.replies import Reply
from bot.core.live import OptionError, parse_options


def live(desk: DeskBase, who: Identity, argument: str, _whom: Identity | None) -> Reply:
    """Start, join, answer, skip or end the channel's live session; alone: its state."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    channel = found.channel
    if channel is None:
        return desk.warning(locale, "channel.no_quiz")
    verb, _, rest = argument.strip().partition(" ")
    verb = verb.lower()
    service = desk.quiz.live
    if verb in ("", "status"):
        return Reply(locale, service.state(channel, actor.member, locale))
    if verb == "start":
        try:
            options = parse_options(rest.split())
        except OptionError as exc:
            return Reply(locale, Message(body=exc.text(locale), tone=Tone.WARNING))
        return Reply(locale, service.start(channel, actor, options))
    if verb == "join":
        return Reply(locale, service.join(channel, actor.member, locale))
    if verb == "answer":
        return Reply(locale, service.answer(channel, actor.member, rest, AnswerMode.TEXT,
                                            locale))
    if verb == "code":
        return Reply(locale, service.answer(channel, actor.member, rest, AnswerMode.CODE,
                                            locale))
    if verb == "skip":
        return Reply(locale, service.skip(channel, actor))
    if verb == "pause":
        return Reply(locale, service.pause(channel, actor))
    if verb == "resume":
        return Reply(locale, service.resume(channel, actor))
    if verb == "end":
        return Reply(locale, service.end(channel, actor))
    return desk.warning(locale, "live.usage")


def answer_live_code(desk: DeskBase, who: Identity, code: str) -> Reply:
    """Answer the open question of the channel's session with code (typed, not a form)."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.live.answer(found.channel, actor.member, code,
                                               AnswerMode.CODE, locale))


def join_clicked(desk: DeskBase, who: Identity, _kind: str, target: str, _key: str) -> Reply:
    """Join the session the lobby's Join button names."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.live.join(found.channel, actor.member, locale,
                                             session_id=round_id_of(target)))


def rank_clicked(desk: DeskBase, who: Identity, _kind: str, target: str, _key: str) -> Reply:
    """Tell the member, privately, their rank in the session a reveal's button names."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    return Reply(locale, desk.quiz.live.rank(found.channel, actor.member, locale,
                                             session_id=round_id_of(target)))


def option_clicked(desk: DeskBase, who: Identity, _kind: str, target: str, key: str) -> Reply:
    """Lock in the option a live question's button names (its session and question)."""
    return answer_live(desk, who, target, key, AnswerMode.BUTTON)


def answer_live(desk: DeskBase, who: Identity, target: str, response: str,
                mode: AnswerMode) -> Reply:
    """Answer the live question ``target`` names (``SESSION-POSITION``): a button or a form."""
    found, actor = desk.resolve(who)
    locale = actor.locale or "en"
    named = live_target_of(target)
    if named is None:
        return desk.warning(locale, "action.unknown")
    session_id, position = named
    return Reply(locale, desk.quiz.live.answer(found.channel, actor.member, response, mode,
                                               locale, session_id=session_id,
                                               position=position))


def form_clicked(desk: DeskBase, who: Identity, _kind: str, target: str, _key: str) -> Reply:
    """Open the answer form of a live text question while it is open."""
    _, actor = desk.resolve(who)
    locale = actor.locale or "en"
    named = live_target_of(target)
    form = desk.quiz.live.answer_form(*named, locale) if named is not None else None
    if form is None:
        return desk.warning(locale, "live.closed")
    return Reply(locale, form=form)


LIVE = Command(
    "live", help_key="help.live", handler=live,
    describe={"discord": "A live quiz for the team meeting: start, join, skip, pause, end",
              "slack": "A live quiz for the team meeting (start, join, skip, pause, end)"},
    options=(Option("action", "choice", "what to do (nothing: the session's state)",
                    choices=(("start", "start"), ("join", "join"), ("skip", "skip"),
                             ("pause", "pause"), ("resume", "resume"), ("end", "end"),
                             ("status", "status"))),
             Option("options", "text",
                    "for start: questions=N seconds=S lobby=S topics=a,b code=yes",
                    max_value=200)),
    usage={"slack": "start [questions=N seconds=S lobby=S topics=a,b code=yes] | join | skip "
                    "| pause | resume | end",
           "home": "start|join|skip|pause|resume|end",
           "console": "[start [questions=N] [seconds=S] [lobby=S] [topics=...] [code=yes]|join|"
                      "answer TEXT|code|skip|pause|resume|end]"})
LIVE_BUTTONS = Action(("live",), option_clicked)
LIVE_JOIN = Action(("ljoin",), join_clicked)
LIVE_FORM = Action(("lform",), form_clicked)
LIVE_RANK = Action(("lrank",), rank_clicked)
