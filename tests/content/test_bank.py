"""The shipped bank validates, is big enough, bilingual, and every reference in it resolves."""

import re
from pathlib import Path

import pytest

from content.loader import BANK_ROOT, ContentError, load_bank
from content.schema import LOCALES, ChoiceItem, CodeItem, ExplainCard, Localized, TextItem

SEEDS = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"
# A question line in a seed file: "12. 如何...？" at the start of a line. Numbered sub-lists inside
# answers restart at 1 and carry no question mark, so requiring both keeps only real questions.
_QUESTION_LINE = re.compile(r"^(\d{1,3})\.\s+(.+)$")


def seed_questions(path: Path) -> set[int]:
    numbers: set[int] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _QUESTION_LINE.match(line)
        if match and ("？" in match.group(2) or "?" in match.group(2)):
            number = int(match.group(1))
            if number == len(numbers) + 1:
                numbers.add(number)
    return numbers


def localized_fields(entry):
    """Yield (field name, Localized) for every translatable text of an item or card."""
    if isinstance(entry, ExplainCard):
        yield "title", entry.title
        yield "body", entry.body
        return
    yield "prompt", entry.prompt
    yield "explanation", entry.explanation
    if isinstance(entry, ChoiceItem):
        for choice in entry.choices:
            yield f"choices.{choice.key}.text", choice.text
            if choice.why is not None:
                yield f"choices.{choice.key}.why", choice.why


def test_every_file_validates_and_all_problems_are_listed():
    try:
        load_bank()
    except ContentError as exc:
        pytest.fail("the bank does not validate:\n" + "\n".join(str(p) for p in exc.problems))


def test_bank_has_the_starter_size(bank):
    kinds = [q.kind for q in bank.questions.values()]
    assert len(kinds) >= 30
    assert kinds.count("code") >= 5
    assert kinds.count("choice") >= 15
    assert kinds.count("text") >= 6
    assert len(bank.cards) >= 10


@pytest.mark.parametrize(
    "card_id",
    [
        "detach",
        "view-vs-reshape",
        "no-grad",
        "broadcasting",
        "contiguous",
        "in-place-ops",
        "requires-grad",
        "backward-and-zero-grad",
        "squeeze-unsqueeze",
        "cat-vs-stack",
        "matmul",
        "numpy-interop",
        "device-to",
        "dataloader",
        "state-dict",
        "mixed-precision",
        "torch-compile",
    ],
)
def test_required_card_exists(bank, card_id):
    assert card_id in bank.cards


def test_every_text_is_present_in_every_locale(bank):
    gaps = [
        f"{entry.id} {name} [{locale}]"
        for entry in bank.all_entries()
        for name, text in localized_fields(entry)
        for locale in LOCALES
        if not isinstance(text, Localized) or not text.get(locale).strip()
    ]
    assert gaps == []


_PURE_CODE = re.compile(r"^\s*`[^`]+`\s*$")  # an option like `a @ b` reads the same in every locale


def test_chinese_texts_are_written_in_chinese(bank):
    # A zh-CN field that is a copy of the English one is a missing translation in disguise.
    copies = [
        f"{entry.id} {name}"
        for entry in bank.all_entries()
        for name, text in localized_fields(entry)
        if not _PURE_CODE.match(text.en)
        and (text.zh_CN.strip() == text.en.strip() or not re.search(r"[\u4e00-\u9fff]", text.zh_CN))
    ]
    assert copies == []


def test_ids_are_unique_across_files():
    seen: dict[str, str] = {}
    duplicates = []
    import yaml

    for path in sorted(BANK_ROOT.glob("*/*.yaml")):
        for raw in yaml.safe_load(path.read_text(encoding="utf-8"))["items"]:
            if raw["id"] in seen:
                duplicates.append(f"{raw['id']} in {path.name} and {seen[raw['id']]}")
            seen[raw["id"]] = path.name
    assert duplicates == []


def test_question_ids_carry_a_kind_or_group_prefix(bank):
    assert [q.id for q in bank.questions.values() if "." not in q.id] == []


def test_wrong_choices_explain_themselves_in_both_locales(bank):
    missing = [
        f"{q.id} {c.key}"
        for q in bank.questions.values()
        if isinstance(q, ChoiceItem)
        for c in q.choices
        if not c.correct and (c.why is None or not c.why.en.strip() or not c.why.zh_CN.strip())
    ]
    assert missing == []


def test_text_answers_never_reject_what_they_accept(bank):
    def fold(s):
        return s.casefold().strip().strip("`").removesuffix("()")

    clashes = [
        f"{q.id}: {answer!r}"
        for q in bank.questions.values()
        if isinstance(q, TextItem)
        for answer in q.accepted
        if fold(answer) in {fold(r) for r in q.rejected}
    ]
    assert clashes == []


def test_numeric_text_answers_accept_their_own_value(bank):
    for q in bank.questions.values():
        if isinstance(q, TextItem) and q.numeric is not None:
            assert float(q.accepted[0]) == pytest.approx(q.numeric.value), q.id


def test_difficulties_are_spread(bank):
    assert {q.difficulty for q in bank.questions.values()} == {1, 2, 3}


def test_every_seed_ref_points_to_a_real_seed_question(bank):
    if not SEEDS.is_dir():
        pytest.skip(f"seed documents not found at {SEEDS} (they live next to the repository)")
    questions = {p.name[:3]: seed_questions(p) for p in SEEDS.glob("[0-9][0-9][0-9]_*.txt")}
    assert questions.get("000") == set(range(1, 69))
    assert questions.get("003") == set(range(1, 6))
    dangling = [
        f"{entry.id}: {ref}"
        for entry in bank.all_entries()
        for ref in entry.seed_refs
        if int(ref.split(":")[1]) not in questions.get(ref.split(":")[0], set())
    ]
    assert dangling == []


def _alias_key(alias: str) -> str:
    """Fold an alias the way a user's typing varies: case, backticks, (), torch., _ vs -."""
    key = alias.casefold().strip().strip("`").removesuffix("()").lstrip(".")
    key = key.removeprefix("torch.").removeprefix("nn.")
    return re.sub(r"[\s_]+", "-", key)


def test_card_aliases_are_unique_and_never_another_cards_id(bank):
    owner: dict[str, str] = {}
    clashes = []
    for card in bank.cards.values():
        for alias in {_alias_key(a) for a in card.aliases}:
            if alias in owner and owner[alias] != card.id:
                clashes.append(f"{alias!r} on {owner[alias]} and {card.id}")
            if alias in bank.cards and alias != card.id:
                clashes.append(f"{alias!r} on {card.id} is the id of another card")
            owner[alias] = card.id
    assert clashes == []


def test_every_link_resolves(bank):
    links = [(q.id, link) for q in bank.questions.values() for link in q.explain_links]
    links += [(c.id, link) for c in bank.cards.values() for link in c.see_also]
    assert [f"{src} -> {dst}" for src, dst in links if dst not in bank.cards] == []


def test_every_card_is_linked_from_some_question_or_card(bank):
    linked = {link for q in bank.questions.values() for link in q.explain_links}
    linked |= {link for c in bank.cards.values() for link in c.see_also}
    assert sorted(set(bank.cards) - linked) == []


def test_code_items_have_a_stub_starter(bank):
    for item in bank.code_items():
        assert isinstance(item, CodeItem)
        assert f"def {item.code.entrypoint}(" in item.code.starter, item.id
        assert "..." in item.code.starter or "NotImplementedError" in item.code.starter, item.id


# ------------------------------------------------------------------ the loader on a broken bank

_GOOD_CARD = """
  - id: good-card
    version: 1
    kind: explain
    topic: good-card
    seed_refs: ["000:1"]
    title: {en: "T", zh-CN: "标题"}
    body: {en: "B", zh-CN: "正文"}
    example: "print('ok')  # fine"
"""


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_loader_reports_every_bad_file_with_path_and_field(tmp_path):
    _write(tmp_path, "explain/ok.yaml", "items:" + _GOOD_CARD)
    _write(tmp_path, "questions/not-yaml.yaml", "items: [unclosed\n")
    _write(tmp_path, "questions/no-items.yaml", "- just a list\n")
    _write(
        tmp_path,
        "questions/missing-zh.yaml",
        """items:
  - id: q.missing-zh
    version: 1
    kind: text
    topics: [tensors]
    difficulty: 1
    seed_refs: ["000:1"]
    prompt: {en: "What?"}
    explanation: {en: "Because.", zh-CN: "因为。"}
    accepted: ["x"]
""",
    )
    _write(
        tmp_path,
        "questions/two-correct.yaml",
        """items:
  - id: q.two-correct
    version: 1
    kind: choice
    topics: [tensors]
    difficulty: 1
    seed_refs: ["000:1"]
    prompt: {en: "Pick", zh-CN: "选"}
    explanation: {en: "E", zh-CN: "解"}
    explain_links: [no-such-card]
    choices:
      - {key: A, text: {en: "a", zh-CN: "甲"}, correct: true}
      - {key: B, text: {en: "b", zh-CN: "乙"}, correct: true}
""",
    )
    _write(
        tmp_path,
        "questions/dangling.yaml",
        """items:
  - id: q.dangling
    version: 1
    kind: text
    topics: [tensors]
    difficulty: 1
    seed_refs: ["000:1"]
    prompt: {en: "What?", zh-CN: "什么？"}
    explanation: {en: "Because.", zh-CN: "因为。"}
    explain_links: [no-such-card]
    accepted: ["x"]
""",
    )
    with pytest.raises(ContentError) as caught:
        load_bank(tmp_path)
    problems = caught.value.problems
    by_path = {p.path for p in problems}
    assert {
        "questions/not-yaml.yaml",
        "questions/no-items.yaml",
        "questions/missing-zh.yaml",
        "questions/two-correct.yaml",
    } <= by_path
    missing = next(p for p in problems if p.path == "questions/missing-zh.yaml")
    assert "prompt" in missing.location and "zh-CN" in missing.location
    assert any("exactly one choice" in p.message for p in problems)
    dangling = next(p for p in problems if p.path == "q.dangling")
    assert dangling.location == "explain_links" and "no-such-card" in dangling.message
    assert not any("ok.yaml" in p.path or p.path == "good-card" for p in problems)


def test_loader_rejects_a_duplicate_id_across_files(tmp_path):
    _write(tmp_path, "explain/a.yaml", "items:" + _GOOD_CARD)
    _write(tmp_path, "explain/b.yaml", "items:" + _GOOD_CARD)
    with pytest.raises(ContentError) as caught:
        load_bank(tmp_path)
    assert any("duplicate id 'good-card'" in p.message for p in caught.value.problems)
