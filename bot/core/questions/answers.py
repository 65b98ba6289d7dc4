"""Judge one answer to one item, for daily rounds and practice alike.

Nothing here touches storage: it returns what happened, and the service decides what to record.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import unicodedata
from dataclasses import dataclass

from bot.core.kernel.i18n import t
from bot.core.kernel.matching import match_choice, match_text
from bot.core.kernel.models import AnswerMode, Round
from bot.core.kernel.ports import Executor, VerdictView
from bot.core.questions.diagnostics import explain
from content.options import display_order
from content.schema import ChoiceItem, CodeItem, Question

log = logging.getLogger(__name__)

# The one length rule for answers, on every front end: each platform's form is capped at these
# numbers (Slack's text inputs take at most 3,000 characters, Discord's 4,000).
MAX_TEXT_CHARS = 200
MAX_CODE_CHARS = 3000
_ALLOWED_CONTROLS = {"\n", "\t", "\r"}
# The verdict statuses with a name in each language (code.status.*); others show as they are.
_STATUSES = frozenset({"failed", "error", "timeout", "memory_limit", "output_limit"})


@dataclass(frozen=True)
class Judgement:
    """What an answer amounted to.

    ``counts`` is False when the answer could not be judged (unreadable, too long, not run): then
    no try is used and nothing is recorded.
    """

    counts: bool
    correct: bool
    lines: tuple[str, ...]
    # What is recorded: a choice option's stored key (never the letter shown), or folded text.
    chosen: str = ""
    verdict: VerdictView | None = None
    # Text the member's code produced (untrusted): the verdict's explanation and its prints.
    detail: str = ""
    output: str = ""


def gradable(item: Question, executor: Executor | None) -> bool:
    """Return whether answers to ``item`` can be graded here (code needs a fitting executor)."""
    if not isinstance(item, CodeItem):
        return True
    return executor is not None and executor.supports(item.id)[0]


def refusal(*lines: str, detail: str = "") -> Judgement:
    """Return a judgement that uses no try and records nothing."""
    return Judgement(counts=False, correct=False, lines=lines, detail=detail)


def hidden_test_seed(*parts: object) -> int:
    """Return the seed that draws a round's or a practice session's hidden tests.

    Derived from what the database already stores about the round or session (its id and the
    microsecond it opened), so every try in it meets the same tests, a verdict can be
    reproduced, and no two rounds share their hidden inputs.
    """
    text = "|".join(
        str(int(p.timestamp() * 1_000_000)) if isinstance(p, dt.datetime) else str(p)
        for p in parts
    )
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def round_seed(rnd: Round) -> int:
    """Return a round's seed: its hidden tests and its option order, shared by its members."""
    return hidden_test_seed("round", rnd.id, rnd.item_id, rnd.opened_at)


def check_input(response: str, mode: AnswerMode, locale: str) -> str | None:
    """Return why a raw chat input cannot be an answer, or None when it can."""
    limit = MAX_CODE_CHARS if mode is AnswerMode.CODE else MAX_TEXT_CHARS
    if not response.strip():
        return t(locale, "answer.empty")
    if len(response) > limit:
        return t(locale, "answer.too_long", size=len(response), limit=limit)
    if any(unicodedata.category(ch) == "Cc" and ch not in _ALLOWED_CONTROLS for ch in response):
        return t(locale, "answer.control")
    return None


def syntax_problem(code: str, locale: str) -> Judgement | None:
    """Return the refusal of code that does not compile (no try used), or None when it does.

    Only ``compile``: it parses, it never runs anything, so it is safe on the trusted side, the
    same call the sandbox's harness makes. The caller has already capped the size
    (``check_input``: MAX_CODE_CHARS), which bounds the parser's time and memory; nesting deep
    enough to exhaust the parser raises RecursionError or MemoryError, refused the same way.
    The compiler's words quote the member's code, so they go in ``detail`` (shown inert).
    """
    try:
        compile(code, "<submission>", "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError too
        line, column = exc.lineno or 1, exc.offset or 1
        shown = (exc.text or "").rstrip("\n")
        detail = f"{exc.msg}\n{shown}\n{' ' * max(column - 1, 0)}^" if shown else exc.msg
        return refusal(t(locale, "code.syntax", line=line, column=column), detail=detail)
    except (RecursionError, MemoryError, ValueError, OverflowError):
        return refusal(t(locale, "code.too_complex"))
    return None


def judge(
    item: Question, response: str, mode: AnswerMode, locale: str, executor: Executor | None,
    seed: int | None = None,
) -> Judgement:
    """Judge ``response`` to ``item``; code goes through the executor, the rest is matched here.

    ``seed`` (one per round or practice session) draws a code challenge's hidden tests and the
    order a choice question's options were shown in: a typed letter is read in that order, and
    ``chosen`` is the option's stored key whichever way it was picked.
    """
    problem = check_input(response, AnswerMode.CODE if isinstance(item, CodeItem) else mode, locale)
    if problem:
        return refusal(problem)
    if isinstance(item, CodeItem):
        # A button, or a short text that never names the function (a letter sent to a code
        # question by mistake), is no attempt at the code: say what is needed, cost no try.
        if mode is AnswerMode.BUTTON or (
            mode is AnswerMode.TEXT and item.code.entrypoint not in response
        ):
            return refusal(t(locale, "answer.needs_code", entrypoint=item.code.entrypoint))
        unparsable = syntax_problem(response, locale)
        if unparsable is not None:
            return unparsable
        return _judge_code(item, response, locale, executor, seed)
    if mode is AnswerMode.CODE:
        return refusal(t(locale, "answer.not_code"))
    if isinstance(item, ChoiceItem):
        return _judge_choice(item, response, mode, locale, seed)
    match = match_text(item, response)
    if not match.understood:
        return refusal(t(locale, "answer.empty"))
    lines = (t(locale, "answer.typo", note=match.note),) if match.note and match.correct else ()
    return Judgement(True, match.correct, lines, chosen=match.chosen)


def _judge_choice(
    item: ChoiceItem, response: str, mode: AnswerMode, locale: str, seed: int | None
) -> Judgement:
    # A button carries the option's stored key; a typed letter names what the member saw, a
    # position in the order this round's (or session's) seed shows.
    shown = display_order(item, seed)
    keys = None if mode is AnswerMode.BUTTON else [c.key for c in shown.choices]
    match = match_choice(item, response, locale, keys)
    if not match.understood:
        return refusal(t(locale, "answer.unreadable_choice", keys=", ".join(shown.letters)))
    lines: tuple[str, ...] = ()
    if not match.correct:
        picked = next(c for c in item.choices if c.key == match.chosen)
        if picked.why is not None:
            lines = (t(locale, "answer.why", option=shown.letter_of(picked.key),
                       why=picked.why.get(locale)),)
    return Judgement(True, match.correct, lines, chosen=match.chosen)


def _judge_code(
    item: CodeItem, code: str, locale: str, executor: Executor | None, seed: int | None
) -> Judgement:
    if executor is None:
        return refusal(t(locale, "code.unavailable", reason=t(locale, "code.no_executor")))
    supported, reason = executor.supports(item.id)
    if not supported:
        # The executor's own account (a GPU it lacks, a pack it cannot build) is English: it
        # follows the sentence apart, like a verdict's English message.
        return refusal(t(locale, "code.unavailable", reason=t(locale, "code.not_here")),
                       detail=reason)
    verdict = executor.run(item.id, code, seed=seed)
    if verdict.fault:
        log.warning("executor fault item=%s seed=%s", item.id, seed)
        return refusal(t(locale, "code.fault"))
    explained = explain(locale, verdict.reason)
    # The sandbox's own words follow the sentence; without a sentence, the English message.
    detail = verdict.reason.quote if explained is not None and verdict.reason else verdict.message
    said = (explained,) if explained else ()
    if verdict.status == "rejected":
        return refusal(t(locale, "code.rejected"), *said, detail=detail)
    if verdict.status == "passed":
        line = t(locale, "code.passed", total=verdict.total_tests, ms=round(verdict.duration_ms))
        return Judgement(True, True, (line,), verdict=verdict, output=verdict.stdout)
    status = (t(locale, f"code.status.{verdict.status}") if verdict.status in _STATUSES
              else verdict.status.replace("_", " "))
    summary = t(
        locale, "code.result", status=status,
        passed=verdict.passed_tests, total=verdict.total_tests,
    )
    return Judgement(True, False, (summary, *said), verdict=verdict, detail=detail,
                     output=verdict.stdout)
