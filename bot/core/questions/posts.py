"""Turn bank items into neutral messages in a locale: question posts, reveals and concept cards.

A choice question's options are shown in the order its round's (or practice session's) seed
draws, lettered A, B, ... in that order; every function that shows a letter takes that ``seed``
(None: the stored order, for admin views only), so the post, the buttons and the reveal agree.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.kernel.i18n import t, typed_list
from bot.core.kernel.messages import Audience, Button, Form, Message, Tone, report_action
from bot.core.kernel.models import FirstTries
from bot.core.quality import distribution
from bot.core.questions.answers import MAX_CODE_CHARS, MAX_TEXT_CHARS
from bot.core.questions.scoring import BASE_POINTS
from content.options import display_order
from content.schema import ChoiceItem, CodeItem, ExplainCard, Question, TextItem
from content.topics import topic_label


def how_to_answer(item: Question, locale: str) -> str:
    """Return the one-line instruction for answering this kind of question."""
    if isinstance(item, CodeItem):
        return t(locale, "round.how.code", entrypoint=item.code.entrypoint)
    if isinstance(item, ChoiceItem):
        return t(locale, "round.how.choice")
    return t(locale, "round.how.text")


def question_body(item: Question, locale: str, *, seed: int | None) -> tuple[str, str | None]:
    """Return the prompt with its options or examples, and the code block to show, if any."""
    lines = [item.prompt.get(locale)]
    code: str | None = None
    if isinstance(item, ChoiceItem):
        lines.append("")
        lines.extend(f"{shown}. {c.text.get(locale)}"
                     for shown, c in display_order(item, seed).labelled())
    elif isinstance(item, CodeItem):
        spec = item.code
        lines.append("")
        lines.append(t(locale, "label.colon", label=t(locale, "round.signature"),
                       value=f"`{spec.signature}`"))
        if spec.examples:
            lines.append(t(locale, "label.colon", label=t(locale, "round.examples"),
                           value="").rstrip())
            # Calls and results are code: shown as code, in a Chinese sentence too.
            lines.extend(f"  `{ex.call}`  →  `{ex.result}`" for ex in spec.examples)
        code = spec.starter
    return "\n".join(lines), code


def choice_buttons(item: Question, action: str, *, seed: int | None) -> tuple[Button, ...]:
    """Return one button per option in display order; ``action`` has a {key} field.

    The label is the letter shown; the action carries the option's stored key, so a click
    names the option itself and is judged the same on every replica.
    """
    if not isinstance(item, ChoiceItem):
        return ()
    return tuple(Button(action.format(key=c.key), shown)
                 for shown, c in display_order(item, seed).labelled())


def answer_form(item: Question, locale: str, action_id: str) -> Form | None:
    """Return the free-form answer box for a text or code question (None for choices)."""
    if isinstance(item, ChoiceItem):
        return None
    is_code = isinstance(item, CodeItem)
    return Form(
        action_id=action_id,
        label=t(locale, "form.open"),
        title=t(locale, "form.title.code" if is_code else "form.title.text"),
        field_label=t(locale, "form.field.code" if is_code else "form.field.text"),
        code=is_code,
        prefill=item.code.starter if isinstance(item, CodeItem) else "",
        max_chars=MAX_CODE_CHARS if is_code else MAX_TEXT_CHARS,
    )


def round_post(
    item: Question, locale: str, *, title: str, closes: str, tally: str, round_id: int,
    buttons: tuple[Button, ...], seed: int | None, form: Form | None = None,
    closed: bool = False,
) -> Message:
    """Return the channel post of a daily question, its options in the order ``seed`` draws.

    A ``closed`` round's post (edited in place at the reveal, shown again by the console's
    ``/today``) points to the reveal instead of asking for an answer, and says when it closed.
    """
    body, code = question_body(item, locale, seed=seed)
    how = t(locale, "round.closed") if closed else how_to_answer(item, locale)
    meta = t(locale, "round.meta.closed" if closed else "round.meta",
             **_meta_values(item, closes, locale))
    return Message(
        title=title,
        body=f"{body}\n\n{how}",
        code=code,
        buttons=buttons,
        # The tally leads the footer: chat front ends edit it in place as answers come in.
        footer=f"{tally} · {meta}",
        audience=Audience.CHANNEL,
        round_id=round_id,
        form=form,
    )


def _meta_values(item: Question, closes: str, locale: str) -> dict[str, object]:
    return {
        "topic": topic_label(item.topic, locale),
        "difficulty": item.difficulty,
        "points": BASE_POINTS[item.difficulty],
        "closes": closes,
    }


def answer_text(item: Question, locale: str, *, seed: int | None) -> str:
    """Return the correct answer as a member should read it (with the letter it was shown as)."""
    if isinstance(item, ChoiceItem):
        shown, choice = next((s, c) for s, c in display_order(item, seed).labelled() if c.correct)
        return f"{shown}. {choice.text.get(locale)}"
    if isinstance(item, TextItem):
        return f"`{item.accepted[0]}`"  # a value or a call, as typed: code in any language
    return f"`{item.code.entrypoint}`"


def reveal(
    item: Question, locale: str, *, title: str, tally: str, round_id: int, seed: int | None,
    tries: Sequence[FirstTries] = (), solution: bool = True,
) -> Message:
    """Return the thread reply that reveals the answer, lettered as the round showed it.

    ``solution`` False leaves a code challenge's reference solution out (its pack's choice).

    ``tries`` (the round's first tries) add how the members answered: every option's count
    under its shown letter, or the most common wrong texts as quotes; and a Report button.
    """
    lines = [t(locale, "reveal.answer", answer=answer_text(item, locale, seed=seed)), "",
             item.explanation.get(locale)]
    if isinstance(item, ChoiceItem):
        lines.append("")
        lines.extend(
            t(locale, "answer.why", option=shown, why=c.why.get(locale))
            for shown, c in display_order(item, seed).labelled()
            if c.why is not None and not c.correct
        )
    code = None
    if isinstance(item, CodeItem) and solution:
        lines += ["", t(locale, "reveal.solution")]
        code = item.code.solution
    if item.explain_links:
        lines += ["", t(locale, "reveal.more", topics=typed_list(item.explain_links))]
    letters = ({c.key: shown for shown, c in display_order(item, seed).labelled()}
               if isinstance(item, ChoiceItem) else {})
    fields, heading, quotes = distribution(item, tries, letters, locale)
    if heading:
        lines += ["", heading]
    return Message(
        title=title, body="\n".join(lines), code=code, fields=((tally, ""), *fields),
        tone=Tone.INFO, audience=Audience.THREAD, round_id=round_id, quotes=quotes,
        buttons=(Button(report_action(round_id), t(locale, "report.button")),),
    )


def card(card: ExplainCard, locale: str) -> Message:
    """Return a concept card with its runnable example."""
    see_also = typed_list(card.see_also)
    footer = t(locale, "explain.see_also", topics=see_also) if card.see_also else ""
    return Message(
        title=card.title.get(locale),
        body=card.body.get(locale),
        code=card.example.rstrip("\n"),
        footer=footer,
        audience=Audience.PRIVATE,
    )
