"""Turn bank items into neutral messages in a locale: question posts, reveals and concept cards."""

from __future__ import annotations

from bot.core.answers import MAX_CODE_CHARS, MAX_TEXT_CHARS
from bot.core.i18n import t
from bot.core.messages import Audience, Button, Form, Message, Tone
from bot.core.scoring import BASE_POINTS
from content.schema import ChoiceItem, CodeItem, ExplainCard, Question, TextItem


def how_to_answer(item: Question, locale: str) -> str:
    """Return the one-line instruction for answering this kind of question."""
    if isinstance(item, CodeItem):
        return t(locale, "round.how.code", entrypoint=item.code.entrypoint)
    if isinstance(item, ChoiceItem):
        return t(locale, "round.how.choice")
    return t(locale, "round.how.text")


def question_body(item: Question, locale: str) -> tuple[str, str | None]:
    """Return the prompt with its options or examples, and the code block to show, if any."""
    lines = [item.prompt.get(locale)]
    code: str | None = None
    if isinstance(item, ChoiceItem):
        lines.append("")
        lines.extend(f"{c.key}. {c.text.get(locale)}" for c in item.choices)
    elif isinstance(item, CodeItem):
        spec = item.code
        lines.append("")
        lines.append(f"{t(locale, 'round.signature')}: `{spec.signature}`")
        if spec.examples:
            lines.append(f"{t(locale, 'round.examples')}:")
            lines.extend(f"  {ex.call}  →  {ex.result}" for ex in spec.examples)
        code = spec.starter
    return "\n".join(lines), code


def choice_buttons(item: Question, action: str) -> tuple[Button, ...]:
    """Return one button per option; ``action`` is a format string with a {key} field."""
    if not isinstance(item, ChoiceItem):
        return ()
    return tuple(Button(action.format(key=c.key), c.key) for c in item.choices)


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
    buttons: tuple[Button, ...], form: Form | None = None,
) -> Message:
    """Return the channel post of a daily question."""
    body, code = question_body(item, locale)
    return Message(
        title=title,
        body=f"{body}\n\n{how_to_answer(item, locale)}",
        code=code,
        buttons=buttons,
        # The tally leads the footer: chat front ends edit it in place as answers come in.
        footer=f"{tally} · {t(locale, 'round.meta', **_meta_values(item, closes))}",
        audience=Audience.CHANNEL,
        round_id=round_id,
        form=form,
    )


def _meta_values(item: Question, closes: str) -> dict[str, object]:
    return {
        "topic": item.topic,
        "difficulty": item.difficulty,
        "points": BASE_POINTS[item.difficulty],
        "closes": closes,
    }


def answer_text(item: Question, locale: str) -> str:
    """Return the correct answer as a member should read it."""
    if isinstance(item, ChoiceItem):
        choice = next(c for c in item.choices if c.correct)
        return f"{choice.key}. {choice.text.get(locale)}"
    if isinstance(item, TextItem):
        return item.accepted[0]
    return f"`{item.code.entrypoint}`"


def reveal(item: Question, locale: str, *, title: str, tally: str, round_id: int) -> Message:
    """Return the thread reply that reveals the answer and explains it."""
    lines = [t(locale, "reveal.answer", answer=answer_text(item, locale)), "",
             item.explanation.get(locale)]
    if isinstance(item, ChoiceItem):
        lines.append("")
        lines.extend(
            t(locale, "answer.why", option=c.key, why=c.why.get(locale))
            for c in item.choices if c.why is not None and not c.correct
        )
    code = None
    if isinstance(item, CodeItem):
        lines += ["", t(locale, "reveal.solution")]
        code = item.code.solution
    if item.explain_links:
        lines += ["", t(locale, "reveal.more", topics=", ".join(item.explain_links))]
    return Message(
        title=title, body="\n".join(lines), code=code, fields=((tally, ""),),
        tone=Tone.INFO, audience=Audience.THREAD, round_id=round_id,
    )


def card(card: ExplainCard, locale: str) -> Message:
    """Return a concept card with its runnable example."""
    footer = t(locale, "explain.see_also", topics=", ".join(card.see_also)) if card.see_also else ""
    return Message(
        title=card.title.get(locale),
        body=card.body.get(locale),
        code=card.example.rstrip("\n"),
        footer=footer,
        audience=Audience.PRIVATE,
    )
