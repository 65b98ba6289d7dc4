"""Render the bank's coverage as plain-text tables for `torchquiz content validate`."""

from __future__ import annotations

from collections import Counter

from content.coverage import (
    KINDS,
    BiasRule,
    Targets,
    bank_bias,
    check_option_bias,
    entry_locales,
    seed_counts,
)
from content.loader import Bank
from content.options import bias_lines
from content.schema import LOCALES

_SEEDS_PER_LINE = 8


def _topics(bank: Bank, targets: Targets | None) -> list[str]:
    used = {q.topics[0] for q in bank.questions.values()} | {c.topic for c in bank.cards.values()}
    listed = list(targets.primary_topics) if targets else []
    return listed + sorted(used - set(listed))


def topic_table(bank: Bank, targets: Targets | None) -> list[str]:
    """Return the questions-by-primary-topic table: kinds, difficulties and cards per topic."""
    by_kind: Counter[tuple[str, str]] = Counter(
        (q.topics[0], q.kind) for q in bank.questions.values()
    )
    by_level = Counter((q.topics[0], q.difficulty) for q in bank.questions.values())
    cards = Counter(c.topic for c in bank.cards.values())
    kinds = "".join(f"{k:>8}" for k in (*KINDS, "total"))
    head = f"{'topic':<22}{kinds}    d1  d2  d3   cards"
    lines = ["Questions by primary topic and kind", head, "-" * len(head)]
    for topic in _topics(bank, targets):
        counts = [by_kind[topic, k] for k in KINDS]
        # A missing difficulty is what the targets forbid: mark it so it stands out.
        levels = "".join(f"{by_level[topic, d] or '-':>4}" for d in (1, 2, 3))
        mark = "" if targets is None or topic in targets.primary_topics else "  (not primary)"
        lines.append(f"{topic:<22}" + "".join(f"{n:>8}" for n in (*counts, sum(counts)))
                     + f"  {levels}{cards[topic]:>8}{mark}")
    totals = [sum(by_kind[t, k] for t in _topics(bank, targets)) for k in KINDS]
    lines.append("-" * len(head))
    lines.append(f"{'all':<22}" + "".join(f"{n:>8}" for n in (*totals, sum(totals)))
                 + f"{'':14}{len(bank.cards):>8}")
    return lines


def difficulty_line(bank: Bank) -> str:
    """Return the number of questions at each difficulty."""
    levels = Counter(q.difficulty for q in bank.questions.values())
    return "Questions by difficulty: " + "  ".join(f"{d}: {levels[d]}" for d in (1, 2, 3))


def locale_line(bank: Bank) -> str:
    """Return how many questions and cards are complete in each locale."""
    questions = Counter(loc for q in bank.questions.values() for loc in entry_locales(q))
    cards = Counter(loc for c in bank.cards.values() for loc in entry_locales(c))
    parts = [f"{loc}: {questions[loc]} questions, {cards[loc]} cards" for loc in LOCALES]
    return "By locale: " + "; ".join(parts)


def seed_table(bank: Bank, targets: Targets) -> list[str]:
    """Return every seed question with the number of questions covering it; flag shortfalls."""
    counts = seed_counts(bank, targets)
    short = [ref for ref, n in counts.items() if n < targets.min_questions_per_seed]
    lines = [f"Seed questions and the questions covering them "
             f"(* = fewer than {targets.min_questions_per_seed}; {len(short)} short)"]
    cells = [f"{ref:>7} {n:>2}{'*' if ref in short else ' '}" for ref, n in counts.items()]
    for start in range(0, len(cells), _SEEDS_PER_LINE):
        lines.append("  ".join(cells[start:start + _SEEDS_PER_LINE]))
    questions = list(bank.questions.values())
    tested = sum(len(set(q.seed_refs)) for q in questions)
    related = sum(len(set(q.related)) for q in questions)
    beyond = sum(not q.seed_refs for q in questions)
    lines.append(f"Counted: {tested} seed_refs (questions that test the seed question's point); "
                 f"not counted: {related} related refs; {beyond} question(s) test no seed question")
    return lines


def bias_report(bank: Bank, targets: Targets | None) -> list[str]:
    """Return the option-bias lines, each rule that scores too well marked as a warning."""
    rule = targets.option_bias if targets is not None else BiasRule()
    bias = bank_bias(bank)
    mark = "problem" if rule.enforced else "warning"
    return bias_lines(bias) + [f"  {mark}: {p.message}" for p in check_option_bias(bias, rule)]


def coverage_report(bank: Bank, targets: Targets | None) -> str:
    """Return all tables as one text block."""
    lines = topic_table(bank, targets)
    lines += ["", difficulty_line(bank), locale_line(bank), "", *bias_report(bank, targets)]
    if targets is not None:
        lines += ["", *seed_table(bank, targets)]
    return "\n".join(lines)
