"""Hold the bank to its targets: links, sizes, seed coverage, topics, choices, fixtures, terms.

Every check returns the full list of offenders (never only the first), so `torchquiz content
validate` and the tests in tests/content, which call these same functions, say everything that
is wrong in one run. Links and option bias (answer keys a member could guess without reading
the question) are checked for every bank; the rest applies when the bank ships a
``targets.yaml`` (the bank in content/ does).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from content.glossary import avoided_renderings, load_glossary, missing_renderings
from content.loader import Bank, ContentError, ContentProblem, Question, read_yaml
from content.options import OptionBias, option_bias
from content.schema import (
    LOCALES,
    ChoiceItem,
    CodeItem,
    ExplainCard,
    SpeedItem,
    localized_fields,
)

TARGETS_FILE = "targets.yaml"
KINDS: tuple[str, ...] = ("choice", "text", "code")
# The first line of a wrong fixture: the verdict status and a fragment its message must contain,
# so a wrong submission proves that the message points at the mistake it models.
EXPECT = re.compile(
    r"^# expect: (failed|error) (shape|dtype|values differ|requires grad|require grad|in place|"
    r"gradient|"
    r"device|contiguous|[A-Z][A-Za-z]*Error)$"
)
# An option such as `a @ b` reads the same in every locale; anything else must be translated.
_PURE_CODE = re.compile(r"^\s*`[^`]+`\s*$")
_HAN = re.compile(r"[\u4e00-\u9fff]")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Sizes(_Frozen):
    """Minimum counts of questions (all, and per kind) and explain cards."""

    questions: int = Field(ge=0)
    choice: int = Field(ge=0)
    text: int = Field(ge=0)
    code: int = Field(ge=0)
    cards: int = Field(ge=0)


class OptionRange(_Frozen):
    """How many options a choice question may have."""

    min: int = Field(ge=2)
    max: int = Field(le=6)


class WordRange(_Frozen):
    """How many words the English body of a card may have (the Chinese follows it)."""

    min: int = Field(ge=1)
    max: int = Field(ge=1)


class FixtureRule(_Frozen):
    """Where a challenge's fixture submissions live and how many of each kind it needs."""

    folder: str
    correct: int = Field(ge=1)
    wrong: int = Field(ge=1)


class BiasRule(_Frozen):
    """How far above chance a rule that never reads the question may score on choice items.

    ``enforced: false`` reports an excess as a warning instead of a problem.
    """

    max_excess: float = Field(default=0.10, ge=0, le=1)
    enforced: bool = False


class Targets(_Frozen):
    """What a shipped bank must reach (content/targets.yaml)."""

    sizes: Sizes
    seeds: dict[str, int]
    min_questions_per_seed: int = Field(ge=1)
    primary_topics: tuple[str, ...] = Field(min_length=1)
    difficulties: tuple[int, ...] = Field(min_length=1)
    choice_options: OptionRange
    card_words: WordRange
    fixtures: FixtureRule
    cuda_challenges: int = Field(ge=0)
    option_bias: BiasRule = BiasRule()


def load_targets(root: Path) -> Targets | None:
    """Return the targets of the bank at ``root``, or None when it declares none."""
    path = root / TARGETS_FILE
    if not path.is_file():
        return None
    try:
        return Targets.model_validate(read_yaml(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as exc:
        problem = ContentProblem(TARGETS_FILE, "", f"not valid targets: {exc}")
        raise ContentError([problem]) from exc


# ---------------------------------------------------------------- checks for every bank


def check_links(bank: Bank) -> list[ContentProblem]:
    """Return every explain link, see_also and cpu_counterpart that names nothing suitable."""
    problems = [
        ContentProblem(q.id, "explain_links", f"no card {link!r}")
        for q in [*bank.questions.values(), *bank.speed.values()]
        for link in q.explain_links
        if link not in bank.cards
    ]
    problems += [
        ContentProblem(c.id, "see_also", f"no card {link!r}")
        for c in bank.cards.values()
        for link in c.see_also
        if link not in bank.cards
    ]
    for item in bank.code_items():
        target = item.code.cpu_counterpart
        if target is None:
            continue
        other = bank.questions.get(target)
        if not isinstance(other, CodeItem):
            problems.append(ContentProblem(item.id, "code.cpu_counterpart",
                                           f"no code challenge {target!r}"))
        elif other.code.requires:
            problems.append(ContentProblem(item.id, "code.cpu_counterpart",
                                           f"{target!r} is not a CPU challenge"))
    return problems


def bank_bias(bank: Bank) -> OptionBias:
    """Return the option biases of the bank's choice questions (a pack's too)."""
    return option_bias(q for _, q in sorted(bank.questions.items()) if isinstance(q, ChoiceItem))


# A pack is small: a rule can beat chance + max_excess on a few items by luck alone. A pack fails
# a rule only when, besides, guessing at random would score as well with a chance below this
# (an exact one-sided test; 3 four-option items all won by one rule are 1 in 64, and pass).
PACK_LUCK = 0.01
_NAMED_ITEMS = 12


def check_option_bias(
    bias: OptionBias, rule: BiasRule, *, luck: float | None = None, where: str = "bank"
) -> list[ContentProblem]:
    """Return each guessing rule that scores more than chance plus ``rule.max_excess``.

    With ``luck`` (a pack), a rule is flagged only if guessing would match its score with a
    chance below ``luck``. Each problem names the rule, its locale and the items it wins.
    The first stored option is not among the rules: no member is shown the stored order.
    """
    limit = bias.chance + rule.max_excess
    problems = []
    for score in bias.rules:
        if score.score <= limit + 1e-9:
            continue
        odds = score.luck(bias.measured)
        if luck is not None and odds >= luck:
            continue
        won = score.gaining(bias.measured)
        listed = ", ".join(won[:_NAMED_ITEMS]) + (f" and {len(won) - _NAMED_ITEMS} more"
                                                  if len(won) > _NAMED_ITEMS else "")
        problems.append(ContentProblem(
            where, "option bias",
            f"always picking the {score.label} option scores {score.score:.0%}, above chance "
            f"{bias.chance:.0%} + {rule.max_excess:.0%} (a random guess does as well with "
            f"chance {odds:.2g}); it wins on {listed}"))
    return problems


# ---------------------------------------------------------------- checks against the targets


def check_sizes(bank: Bank, targets: Targets) -> list[ContentProblem]:
    """Return one problem per count that falls short of its target."""
    kinds: Counter[str] = Counter(q.kind for q in bank.questions.values())
    have = {"questions": len(bank.questions), **{k: kinds[k] for k in KINDS},
            "cards": len(bank.cards)}
    want = targets.sizes.model_dump()
    return [
        ContentProblem("bank", "size", f"{have[name]} {name}, the target is at least {want[name]}")
        for name in ("questions", *KINDS, "cards")
        if have[name] < want[name]
    ]


def seed_counts(bank: Bank, targets: Targets) -> dict[str, int]:
    """Return, for every seed question the targets name, how many questions test it.

    A question counts for the seed questions in its ``seed_refs`` only, never for ``related``.
    """
    counts = {f"{doc}:{n}": 0 for doc, total in sorted(targets.seeds.items())
              for n in range(1, total + 1)}
    for q in bank.questions.values():
        for ref in {_normal_ref(r) for r in q.seed_refs}:
            if ref in counts:
                counts[ref] += 1
    return counts


def check_seed_coverage(bank: Bank, targets: Targets) -> list[ContentProblem]:
    """Return seed questions cited by too few questions, and refs to no seed question.

    Only ``seed_refs`` (what an item really tests) count towards coverage; ``related`` refs
    (what it only touches) are checked to name a seed question and counted nowhere.
    """
    counts = seed_counts(bank, targets)
    problems = [
        ContentProblem(entry.id, name, f"{ref} is not a seed question")
        for entry in bank.all_entries()
        for name, refs in (("seed_refs", entry.seed_refs), ("related", entry.related))
        for ref in refs
        if _normal_ref(ref) not in counts
    ]
    problems += [
        ContentProblem(ref, "seed coverage", f"covered by {n} question(s), the target is "
                       f"{targets.min_questions_per_seed}")
        for ref, n in counts.items()
        if n < targets.min_questions_per_seed
    ]
    return problems


def _normal_ref(ref: str) -> str:
    doc, _, number = ref.partition(":")
    return f"{doc}:{int(number)}"


def check_topics(bank: Bank, targets: Targets) -> list[ContentProblem]:
    """Return questions whose topics[0], and cards whose topic, is not a primary topic."""
    allowed = set(targets.primary_topics)
    problems = [
        ContentProblem(q.id, "topics[0]", f"{q.topics[0]!r} is not a primary topic")
        for q in bank.questions.values()
        if q.topics[0] not in allowed
    ]
    problems += [
        ContentProblem(c.id, "topic", f"{c.topic!r} is not a primary topic")
        for c in bank.cards.values()
        if c.topic not in allowed
    ]
    return problems


def check_difficulty_spread(bank: Bank, targets: Targets) -> list[ContentProblem]:
    """Return every primary topic that lacks a question at one of the target difficulties."""
    levels: dict[str, set[int]] = {t: set() for t in targets.primary_topics}
    for q in bank.questions.values():
        levels.setdefault(q.topics[0], set()).add(q.difficulty)
    return [
        ContentProblem(topic, "difficulty", f"no question at difficulty {level}")
        for topic in targets.primary_topics
        for level in targets.difficulties
        if level not in levels[topic]
    ]


def check_linked_both_ways(bank: Bank) -> list[ContentProblem]:
    """Return questions that link no card and cards that no question links."""
    entries = [*bank.questions.values(), *bank.speed.values()]
    linked = {link for q in entries for link in q.explain_links}
    problems = [
        ContentProblem(q.id, "explain_links", "links no explain card")
        for q in sorted(entries, key=lambda q: q.id)
        if not q.explain_links
    ]
    problems += [
        ContentProblem(card_id, "linked from", "no question links this card")
        for card_id in sorted(set(bank.cards) - linked)
    ]
    return problems


def check_choices(bank: Bank, targets: Targets) -> list[ContentProblem]:
    """Return choice questions with too few or too many options, or a wrong option with no why."""
    low, high = targets.choice_options.min, targets.choice_options.max
    problems = []
    for _, q in sorted(bank.questions.items()):
        if not isinstance(q, ChoiceItem):
            continue
        if not low <= len(q.choices) <= high:
            problems.append(ContentProblem(q.id, "choices",
                                           f"{len(q.choices)} options, expected {low} to {high}"))
        for c in q.choices:
            if c.correct:
                continue
            for locale in LOCALES:
                if c.why is None or not c.why.get(locale).strip():
                    problems.append(ContentProblem(q.id, f"choices.{c.key}.why",
                                                   f"wrong option has no why [{locale}]"))
    return problems


def check_translations(bank: Bank) -> list[ContentProblem]:
    """Return zh-CN texts that are missing, or a copy of the English, or hold no Chinese."""
    problems = []
    for entry in bank.all_entries():
        for name, text in localized_fields(entry):
            if _PURE_CODE.match(text.en):
                continue
            if text.zh_CN.strip() == text.en.strip() or not _HAN.search(text.zh_CN):
                problems.append(ContentProblem(entry.id, name, "zh-CN is not written in Chinese"))
    return problems


def check_card_outputs(bank: Bank) -> list[ContentProblem]:
    """Return cards that do not store the output their example prints."""
    return [
        ContentProblem(c.id, "expected_output", "the card stores no expected output")
        for _, c in sorted(bank.cards.items())
        if c.expected_output is None or not c.expected_output.strip()
    ]


def check_card_lengths(bank: Bank, targets: Targets) -> list[ContentProblem]:
    """Return cards whose English body is shorter or longer than the targets allow."""
    low, high = targets.card_words.min, targets.card_words.max
    return [
        ContentProblem(c.id, "body.en", f"{n} words, expected {low} to {high}")
        for _, c in sorted(bank.cards.items())
        if not low <= (n := len(c.body.en.split())) <= high
    ]


def check_cuda(bank: Bank, targets: Targets) -> list[ContentProblem]:
    """Return too few CUDA challenges, and CUDA challenges that name no CPU counterpart."""
    cuda = [item for item in bank.code_items() if "cuda" in item.code.requires]
    problems = [
        ContentProblem(item.id, "code.cpu_counterpart", "a cuda challenge names no CPU counterpart")
        for item in cuda
        if item.code.cpu_counterpart is None
    ]
    if len(cuda) < targets.cuda_challenges:
        problems.append(ContentProblem("bank", "cuda", f"{len(cuda)} challenge(s) require cuda, "
                                       f"the target is at least {targets.cuda_challenges}"))
    return problems


def _normalise(source: str) -> str:
    return " ".join(source.split())


def check_fixtures(bank: Bank, targets: Targets, root: Path) -> list[ContentProblem]:
    """Return challenges short of fixture submissions, and fixtures that prove nothing.

    A correct fixture must be written differently from the reference and from the other correct
    ones; a wrong one must start with an ``# expect: STATUS FRAGMENT`` line (see EXPECT).
    """
    rule = targets.fixtures
    folder = (root / rule.folder).resolve()
    if not folder.is_dir():
        return [ContentProblem("bank", "fixtures", f"no fixture folder {rule.folder!r}")]
    problems = []
    for item in bank.code_items():
        correct = sorted((folder / item.id).glob("correct_*.py"))
        wrong = sorted((folder / item.id).glob("wrong_*.py"))
        if len(correct) < rule.correct or len(wrong) < rule.wrong:
            problems.append(ContentProblem(item.id, "fixtures", f"{len(correct)} correct and "
                                           f"{len(wrong)} wrong, the target is at least "
                                           f"{rule.correct} and {rule.wrong}"))
        seen = {_normalise(item.code.solution): "the reference"}
        for path in correct:
            text = _normalise(path.read_text(encoding="utf-8"))
            if text in seen:
                problems.append(ContentProblem(item.id, f"fixtures/{path.name}",
                                               f"the same code as {seen[text]}"))
            seen.setdefault(text, path.name)
        for path in wrong:
            lines = path.read_text(encoding="utf-8").splitlines()
            if not lines or not EXPECT.match(lines[0]):
                problems.append(ContentProblem(item.id, f"fixtures/{path.name}",
                                               "first line is not '# expect: STATUS FRAGMENT'"))
    return problems


def check_glossary(bank: Bank, root: Path) -> list[ContentProblem]:
    """Return zh-CN texts that use a rendering the bank's glossary rules out."""
    try:
        terms = load_glossary(root)
    except ContentError as exc:
        return list(exc.problems)
    if terms is None:
        return [ContentProblem("bank", "glossary", "the bank has no glossary.yaml")]
    entries = list(bank.all_entries())
    return [*avoided_renderings(entries, terms), *missing_renderings(entries, terms)]


# ---------------------------------------------------------------- all together


@dataclass(frozen=True)
class Report:
    """Everything validate found: problems (they fail it), warnings (they do not), the targets."""

    problems: list[ContentProblem] = field(default_factory=list)
    targets: Targets | None = None
    warnings: list[ContentProblem] = field(default_factory=list)


def validate(bank: Bank, root: Path, *, fixtures: bool = True) -> Report:
    """Run every check that applies to the bank at ``root``; collect all problems.

    ``fixtures=False`` leaves out the fixture submissions, which are development files: an
    installed bank (the bot image) has the content without the tests folder they live in.
    """
    problems = check_links(bank)
    try:
        targets = load_targets(root)
    except ContentError as exc:
        return Report(problems + list(exc.problems))
    rule = targets.option_bias if targets is not None else BiasRule()
    biased = check_option_bias(bank_bias(bank), rule)
    warnings = [] if rule.enforced else biased
    if rule.enforced:
        problems += biased
    if targets is None:
        return Report(problems, warnings=warnings)
    checks: list[Callable[[], Iterable[ContentProblem]]] = [
        lambda: check_sizes(bank, targets),
        lambda: check_seed_coverage(bank, targets),
        lambda: check_topics(bank, targets),
        lambda: check_difficulty_spread(bank, targets),
        lambda: check_linked_both_ways(bank),
        lambda: check_choices(bank, targets),
        lambda: check_translations(bank),
        lambda: check_card_outputs(bank),
        lambda: check_card_lengths(bank, targets),
        lambda: check_cuda(bank, targets),
        lambda: check_fixtures(bank, targets, root) if fixtures else [],
        lambda: check_glossary(bank, root),
    ]
    for check in checks:
        problems.extend(check())
    return Report(problems, targets, warnings)


def entry_locales(entry: Question | SpeedItem | ExplainCard) -> list[str]:
    """Return the locales in which every text of ``entry`` is present."""
    return [loc for loc in LOCALES
            if all(text.get(loc).strip() for _, text in localized_fields(entry))]
