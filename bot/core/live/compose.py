"""What a live session shows: the lobby, each question, its reveal, the final board, the state.

Pure functions from stored values to neutral messages; the service decides when each is due.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from zoneinfo import ZoneInfo

from bot.core.kernel.i18n import t
from bot.core.kernel.messages import (
    Audience,
    Button,
    Message,
    Tone,
    live_answer_action,
    live_form_action,
    live_join_action,
    live_rank_action,
)
from bot.core.kernel.models import (
    ChannelSettings,
    LiveAnswer,
    LivePlayer,
    LiveQuestion,
    LiveSession,
)
from bot.core.live.rules import PODIUM, TOP_REVEAL
from bot.core.questions import hidden_test_seed, posts
from content.loader import Bank
from content.options import display_order
from content.schema import ChoiceItem, CodeItem, Question
from content.topics import topic_label, topic_labels


def question_seed(session_id: int, question: LiveQuestion) -> int:
    """Return the seed of a live question: its options' order, the same on every replica."""
    return hidden_test_seed("live", session_id, question.position, question.item_id)


def clock_time(at: dt.datetime, channel: ChannelSettings) -> str:
    """Return ``at`` as a clock time in the channel's zone (chat clients show no countdown)."""
    local = at.astimezone(ZoneInfo(channel.timezone))
    return f"{local:%H:%M:%S} {channel.timezone}"


def standings(answers: Sequence[LiveAnswer], players: Sequence[LivePlayer]
              ) -> list[tuple[int, str, int, int]]:
    """Return (user id, name, points, right) per player, best first (ties: who joined first)."""
    names = {p.user_id: p.display_name for p in players}
    order = {p.user_id: i for i, p in enumerate(players)}
    points: dict[int, int] = defaultdict(int)
    right: dict[int, int] = defaultdict(int)
    for a in answers:
        names.setdefault(a.user_id, a.display_name)
        order.setdefault(a.user_id, len(order))
        points[a.user_id] += a.points
        right[a.user_id] += int(a.correct)
    rows = [(uid, names[uid], points[uid], right[uid]) for uid in names]
    return sorted(rows, key=lambda r: (-r[2], -r[3], order[r[0]]))


def _table(rows: Sequence[tuple[int, str, int, int]], limit: int, locale: str,
           hidden: Collection[int] = ()) -> list[str]:
    """Return the public table: members who keep off the boards are left out, and counted."""
    shown = [r for r in rows if r[0] not in hidden]
    lines = [t(locale, "live.row", rank=i, name=name, points=points, right=right)
             for i, (_, name, points, right) in enumerate(shown[:limit], start=1)]
    left_out = len(rows) - len(shown)
    if lines and left_out:
        lines.append(t(locale, "live.hidden", count=left_out))
    return lines


def _hidden(players: Sequence[LivePlayer], answers: Sequence[LiveAnswer]) -> set[int]:
    return {p.user_id for p in players if p.hidden} | {a.user_id for a in answers if a.hidden}


def lobby(session: LiveSession, channel: ChannelSettings, players: Sequence[LivePlayer],
          locale: str) -> Message:
    """Return the lobby post: what the session is, who joined, when it starts, the Join button."""
    host = next((p.display_name for p in players if p.host), "")
    topics = (topic_labels(session.topics, locale) if session.topics
              else t(locale, "live.topics.channel"))
    body = [t(locale, "live.lobby.body", host=host, questions=session.question_count,
              topics=topics),
            t(locale, "live.lobby.starts", at=clock_time(session.lobby_ends_at, channel)),
            t(locale, "live.lobby.players", count=len(players),
              names=", ".join(p.display_name for p in players))]
    return Message(title=t(locale, "live.lobby.title"), body="\n".join(body),
                   buttons=(Button(live_join_action(session.id), t(locale, "live.join.button")),),
                   audience=Audience.CHANNEL)


def question_post(session: LiveSession, question: LiveQuestion, item: Question,
                  channel: ChannelSettings, locale: str) -> Message:
    """Return a question's channel post with its answer buttons (or its answer form)."""
    seed = question_seed(session.id, question)
    body, code = posts.question_body(item, locale, seed=seed)
    closes = question.closes_at or question.opened_at or session.created_at  # set once posted
    how = t(locale, "live.how.choice" if isinstance(item, ChoiceItem)
            else "live.how.code" if isinstance(item, CodeItem) else "live.how.text",
            seconds=question.seconds, at=clock_time(closes, channel))
    form = posts.answer_form(item, locale, live_form_action(session.id, question.position))
    return Message(
        title=t(locale, "live.question.title", number=question.position + 1,
                count=session.question_count, topic=topic_label(item.topic, locale)),
        body=f"{body}\n\n{how}", code=code,
        buttons=posts.choice_buttons(
            item, live_answer_action(session.id, question.position, "{key}"), seed=seed),
        form=form, audience=Audience.CHANNEL)


def reveal(session: LiveSession, question: LiveQuestion, item: Question,
           answers: Sequence[LiveAnswer], players: Sequence[LivePlayer], locale: str) -> Message:
    """Return a question's reveal: the answer, how the players split, why, the top 5 so far."""
    seed = question_seed(session.id, question)
    these = [a for a in answers if a.position == question.position]
    lines = [t(locale, "reveal.answer", answer=posts.answer_text(item, locale, seed=seed))]
    if isinstance(item, ChoiceItem):
        counts = Counter(a.response for a in these)
        lines.append("")
        for shown, choice in display_order(item, seed).labelled():
            share = round(100 * counts[choice.key] / len(these)) if these else 0
            mark = " ✓" if choice.correct else ""
            lines.append(t(locale, "live.reveal.option", option=shown, count=counts[choice.key],
                           share=share, mark=mark))
        wrong = [(counts[c.key], shown, c) for shown, c in display_order(item, seed).labelled()
                 if not c.correct and counts[c.key]]
        if wrong:
            _, shown, choice = max(wrong, key=lambda w: w[0])
            why = choice.why.get(locale) if choice.why is not None else ""
            lines += ["", t(locale, "live.reveal.why", option=shown, why=why)]
    else:
        right = sum(a.correct for a in these)
        said = "live.reveal.passed" if isinstance(item, CodeItem) else "live.reveal.right"
        lines.append(t(locale, said, right=right, answered=len(these)))
    lines += ["", item.explanation.get(locale), "", t(locale, "live.reveal.top")]
    lines += (_table(standings(answers, players), TOP_REVEAL, locale, _hidden(players, answers))
              or [t(locale, "live.none_yet")])
    return Message(
        title=t(locale, "live.reveal.title", number=question.position + 1,
                count=session.question_count),
        body="\n".join(lines), tone=Tone.INFO, audience=Audience.CHANNEL,
        buttons=(_rank_button(session, locale),))


def _rank_button(session: LiveSession, locale: str) -> Button:
    return Button(live_rank_action(session.id), t(locale, "live.rank.button"))


def own_rank(answers: Sequence[LiveAnswer], players: Sequence[LivePlayer], member_id: int,
             locale: str) -> Message:
    """Return the member's place so far, for them alone (a hidden member's too: it is theirs)."""
    rows = standings(answers, players)
    mine = next((i for i, r in enumerate(rows, start=1) if r[0] == member_id), None)
    if mine is None or not any(a.user_id == member_id for a in answers):
        return Message(body=t(locale, "live.rank.none"), tone=Tone.INFO)
    _, _, points, right = rows[mine - 1]
    answered = sum(a.user_id == member_id for a in answers)
    return Message(body=t(locale, "live.rank.mine", rank=mine, of=len(rows), points=points,
                          right=right, answered=answered), tone=Tone.INFO)


def podium(session: LiveSession, questions: Sequence[LiveQuestion], bank: Bank,
           answers: Sequence[LiveAnswer], players: Sequence[LivePlayer], counted: bool,
           locale: str, *, idle: bool = False, on_board: bool = False) -> Message:
    """Return the final board: top 10, the fastest right answer, the team's weak topics.

    Its last line says where the points count: this session's board, the weekly board too
    (``on_board``: the channel's live_on_board), or nowhere (a warm-up).
    """
    lines = [t(locale, "live.end.idle")] if idle else []
    rows = standings(answers, players)
    hidden = _hidden(players, answers)
    lines += _table(rows, PODIUM, locale, hidden) or [t(locale, "live.none_yet")]
    fastest = min((a for a in answers if a.correct and a.user_id not in hidden),
                  key=lambda a: a.elapsed_ms, default=None)
    if fastest is not None:
        lines += ["", t(locale, "live.end.fastest", name=fastest.display_name,
                        seconds=f"{fastest.elapsed_ms / 1000:.1f}",
                        number=fastest.position + 1)]
    items = {q.position: bank.question(q.item_id) for q in questions if q.item_id in bank.questions}
    accuracy = _accuracy(answers, items)
    if accuracy:
        lines += ["", t(locale, "live.end.topics")]
        lines += [t(locale, "live.end.topic", topic=topic_label(topic, locale),
                    share=round(100 * right / total), right=right, total=total)
                  for topic, (right, total) in accuracy]
        for topic, _ in accuracy[:2]:
            card = _card_for(topic, items, bank)
            if card is not None:
                lines.append(t(locale, "live.end.card", topic=topic_label(topic, locale),
                               card=card, title=bank.cards[card].title.get(locale)))
    ending = "live.end.weekly" if on_board else "live.end.counted" if counted else "live.end.warmup"
    lines += ["", t(locale, ending)]
    return Message(title=t(locale, "live.end.title"), body="\n".join(lines),
                   audience=Audience.CHANNEL, buttons=(_rank_button(session, locale),))


def _accuracy(answers: Sequence[LiveAnswer], items: Mapping[int, Question]
              ) -> list[tuple[str, tuple[int, int]]]:
    """Return (topic, (right, answered)) for every topic answered, weakest first."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for a in answers:
        item = items.get(a.position)
        if item is None:
            continue
        tally[item.topic][0] += int(a.correct)
        tally[item.topic][1] += 1
    return sorted(((topic, (r, n)) for topic, (r, n) in tally.items()),
                  key=lambda e: (e[1][0] / e[1][1], e[0]))


def _card_for(topic: str, items: Mapping[int, Question], bank: Bank) -> str | None:
    """Return the concept card to read on a weak topic: one its questions link, or its own."""
    for item in items.values():
        if item.topic == topic:
            linked = next((c for c in item.explain_links if c in bank.cards), None)
            if linked is not None:
                return linked
    return next((cid for cid, card in sorted(bank.cards.items()) if card.topic == topic), None)


def state(session: LiveSession, questions: Sequence[LiveQuestion],
          answers: Sequence[LiveAnswer], players: Sequence[LivePlayer], member_id: int,
          channel: ChannelSettings, locale: str) -> Message:
    """Return where the session stands, privately: its question, players, the member's rank."""
    lines: list[str] = []
    if session.paused_at is not None:
        lines.append(t(locale, "live.state.paused", number=session.current + 1,
                       count=session.question_count))
    elif session.current < 0:
        lines.append(t(locale, "live.state.lobby", at=clock_time(session.lobby_ends_at, channel)))
    else:
        question = questions[session.current]
        answered = sum(a.position == question.position for a in answers)
        if question.closed_at is None and question.closes_at is not None:
            lines.append(t(locale, "live.state.question", number=question.position + 1,
                           count=session.question_count,
                           at=clock_time(question.closes_at, channel),
                           answered=answered, players=len(players)))
        else:
            lines.append(t(locale, "live.state.between", number=question.position + 1,
                           count=session.question_count))
    lines.append(t(locale, "live.lobby.players", count=len(players),
                   names=", ".join(p.display_name for p in players)))
    rows = standings(answers, players)
    mine = next((i for i, r in enumerate(rows, start=1) if r[0] == member_id), None)
    if answers:
        lines += ["", t(locale, "live.reveal.top"),
                  *_table(rows, TOP_REVEAL, locale, _hidden(players, answers))]
    if mine is not None and answers:
        lines.append(t(locale, "live.state.rank", rank=mine, of=len(rows),
                       points=rows[mine - 1][2]))
    return Message(title=t(locale, "live.state.title"), body="\n".join(lines))
