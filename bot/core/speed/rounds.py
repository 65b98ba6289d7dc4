"""A speed challenge as a daily round: its post, its points, its reveal.

A channel whose ``kinds`` setting names ``speed`` may draw a shipped speed challenge as its
daily round (bot/core/rounds). The post shows the task, the signature and the slow reference
with the round's code form; each try is timed like ``/quiz speed`` (service.py) and counts for
the round by its score band, once per member: a later try adds only what it beats the
member's best by. The reveal shows the item's own fast solution and why it is fast.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import Audience, Form, Message, Tone
from bot.core.kernel.speed_records import SpeedBoardEntry
from bot.core.questions import BASE_POINTS
from bot.core.speed.report import times
from content.schema import SpeedItem
from content.topics import topic_label

# A member's tries at one daily speed round: each is seconds of a sandboxed timer.
SPEED_TRIES = 5
# Score bands (the geometric mean of the shapes' speedups) and their share of the item's
# base points: a faster verdict earns the base, 5x half again, 20x double.
SPEED_BANDS = ((20.0, 2.0), (5.0, 1.5), (0.0, 1.0))
ROUND_BOARD_ROWS = 10


def speed_points(difficulty: int, score: float) -> int:
    """Return what a released faster verdict of ``score`` earns on a daily round."""
    base = BASE_POINTS[difficulty]
    share = next(share for floor, share in SPEED_BANDS if score >= floor)
    return int(base * share)


def round_form(item: SpeedItem, locale: str, action_id: str) -> Form:
    """Return the round's code form: the daily code rounds' form, prefilled with the reference."""
    return Form(action_id=action_id, label=t(locale, "form.open"),
                title=t(locale, "speed.form.title"), field_label=t(locale, "speed.form.field"),
                code=True, prefill=item.speed.reference.rstrip("\n"))


def round_post(item: SpeedItem, locale: str, *, title: str, closes: str, tally: str,
               round_id: int, form: Form | None, closed: bool = False) -> Message:
    """Return the channel post of a daily speed round (``closed``: edited in at the reveal)."""
    spec = item.speed
    how = (t(locale, "round.closed") if closed
           else t(locale, "speed.round.how", entrypoint=spec.entrypoint, tries=SPEED_TRIES))
    body = "\n\n".join((
        item.prompt.get(locale),
        t(locale, "speed.serve.signature", signature=spec.signature),
        t(locale, "speed.serve.rules", target=times(spec.target_speedup),
          shapes=len(spec.shapes)),
        how,
    ))
    meta = t(locale, "speed.round.meta.closed" if closed else "speed.round.meta",
             topic=topic_label(item.topic, locale), difficulty=item.difficulty,
             points=speed_points(item.difficulty, 0.0),
             most=speed_points(item.difficulty, SPEED_BANDS[0][0]), closes=closes)
    return Message(title=title, body=body, code=spec.reference.rstrip("\n"),
                   footer=f"{tally} · {meta}", audience=Audience.CHANNEL, round_id=round_id,
                   form=form)


def points_line(locale: str, points: int, best: int, counted: bool) -> str:
    """Return what a try did to the member's points in the round."""
    if not counted:
        return t(locale, "speed.round.no_points", best=best)
    if points:
        return t(locale, "speed.round.points", points=points, best=best + points)
    return t(locale, "speed.round.kept", best=best)


def reveal(item: SpeedItem, locale: str, *, title: str, tally: str, round_id: int,
           board: Sequence[SpeedBoardEntry]) -> Message:
    """Return the reveal of a daily speed round: the fast solution, why, the round's best.

    Members' names are member text: they travel as quotes, for the one sanitiser.
    """
    lines = [t(locale, "speed.round.reveal"), "", item.explanation.get(locale)]
    quotes = tuple((t(locale, "speed.round.rank", rank=row.rank, score=times(row.score)),
                    row.display_name) for row in board)
    lines += ["", t(locale, "speed.round.best") if board else t(locale, "speed.round.nobody")]
    return Message(title=title, body="\n".join(lines), code=item.speed.solution.rstrip("\n"),
                   fields=((tally, ""),), quotes=quotes, tone=Tone.INFO,
                   audience=Audience.THREAD, round_id=round_id)
