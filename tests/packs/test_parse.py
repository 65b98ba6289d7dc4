"""A pack file is read with limits, and every bad file gets one clear error with its place."""

from __future__ import annotations

import pytest

from content.packs import (
    MAX_PACK_BYTES,
    SCAFFOLD,
    check_pack,
    pack_of,
    parse_pack,
)
from tests.support.packs import HEADER, pack_text

CHOICE = """\
  - id: {id}
    version: 1
    kind: choice
    topics: [tensors]
    difficulty: 1
    prompt: {prompt}
    choices:
      - key: A
        text: "yes"
        correct: true
      - key: B
        text: "not at all"
        correct: {b_correct}
        why: "no"
    explanation: because
    explain_links: [{link}]
"""


def choice(id="q1", prompt="Is it?", b_correct="false", link="broadcasting"):
    return CHOICE.format(id=id, prompt=prompt, b_correct=b_correct, link=link)


def only_problem(data: bytes) -> str:
    parsed = parse_pack(data)
    assert parsed.pack is None
    assert len(parsed.problems) == 1, parsed.problems
    problem = parsed.problems[0]
    return f"{problem.location}: {problem.message}"


def test_scaffold_parses_with_namespaced_ids():
    parsed = parse_pack(SCAFFOLD.encode())
    assert parsed.problems == ()
    assert sorted(parsed.pack.questions) == [
        "p.my-team.broadcast-shape", "p.my-team.grad-attribute", "p.my-team.row-normalise"]
    assert {pack_of(i) for i in parsed.pack.questions} == {"my-team"}


def test_yaml_bomb_is_refused_quickly_with_its_place():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, name = chr(96 + i), chr(97 + i)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    text = only_problem("\n".join(lines).encode())
    assert "YAML bomb" in text
    assert text.startswith("line ")


def test_fifty_megabyte_file_is_refused_before_parsing():
    text = only_problem(b"#" * (50 * 1024 * 1024))
    assert f"at most {MAX_PACK_BYTES:,} bytes" in text


def test_ten_thousand_levels_of_nesting_is_a_clear_error():
    text = only_problem(b"a: " + b"[" * 10_000 + b"]" * 10_000)
    assert "nested more than" in text
    assert text.startswith("line 1, column ")


def test_python_object_tag_is_refused_by_name():
    text = only_problem(HEADER.encode() + b"  - !!python/object:os.system {}\n")
    assert "python/object:os.system" in text and "plain data only" in text
    assert text.startswith("line 7, column 5")


def test_invalid_utf8_says_the_byte_and_its_offset():
    data = HEADER.encode() + b"  - id: q\xff1\n"
    text = only_problem(data)
    offset = data.index(b"\xff")
    assert f"byte 0xff at offset {offset}" in text
    assert text.startswith("line 7, column 10")


def test_duplicate_id_is_refused_with_both_places():
    parsed = parse_pack(pack_text(choice("q1"), choice("q1")))
    messages = [f"{p.location}: {p.message}" for p in parsed.problems]
    assert messages == ["line 23, column 9: items[1]: duplicate id 'q1' (first at items[0])"]


def test_choice_with_two_correct_options_is_refused_at_its_choices_in_plain_words():
    parsed = parse_pack(pack_text(choice(b_correct="true")))
    (problem,) = parsed.problems
    # Not pydantic's "Value error, ..."; at the choices (line 14), not the item's start (7).
    assert problem.message == "items[0] (q1) choices: exactly one choice must be correct"
    assert problem.location == "line 14, column 7"
    assert (problem.item, problem.field_name) == ("q1", "choices")


def test_field_error_points_at_the_field():
    parsed = parse_pack(pack_text(choice().replace("difficulty: 1", "difficulty: 9")))
    assert [(p.location, "difficulty" in p.message) for p in parsed.problems] == [
        ("line 11, column 17", True)]


def test_a_pack_cannot_take_a_bank_id(bank):
    # Whatever the author writes, the pack's id goes in front: no bank id can be reached.
    some_bank_id = sorted(bank.questions)[0]
    parsed = parse_pack(pack_text(choice(id=some_bank_id)))
    assert parsed.problems == ()
    (only,) = parsed.pack.questions
    assert only == f"p.team.{some_bank_id}" and only not in bank.questions
    assert check_pack(parsed.pack, bank) == []


@pytest.mark.parametrize("bad_id", ["Q1", "a b", "x" * 37, "../etc", "p_1"])
def test_local_ids_outside_the_charset_are_refused(bad_id):
    parsed = parse_pack(pack_text(choice(id=f'"{bad_id}"')))
    assert parsed.pack.questions == {}
    assert "use 1-36 of a-z 0-9 . -" in parsed.problems[0].message


def test_links_resolve_to_the_pack_or_the_bank(bank):
    card = ("  - id: my-card\n    version: 1\n    kind: explain\n    topic: tensors\n"
            "    title: T\n    body: B\n    example: print('hello')\n")
    parsed = parse_pack(pack_text(choice(link="my-card"), card))
    assert parsed.problems == ()
    assert parsed.pack.questions["p.team.q1"].explain_links == ["p.team.my-card"]
    assert check_pack(parsed.pack, bank) == []


def test_a_link_to_nothing_is_an_error_at_the_link_in_the_authors_words(bank):
    parsed = parse_pack(pack_text(choice(link="no-such-card")))
    problems = check_pack(parsed.pack, bank, parsed=parsed)
    assert [(p.location, p.message) for p in problems] == [
        ("line 22, column 21", "q1 explain_links: no card 'no-such-card'")]


def test_a_misspelt_link_suggests_the_nearest_card(bank):
    parsed = parse_pack(pack_text(choice(link="broadcastin")))
    (problem,) = check_pack(parsed.pack, bank, parsed=parsed)
    assert problem.message == ("q1 explain_links: no card 'broadcastin'; "
                               "did you mean 'broadcasting'?")


def test_a_link_to_a_card_of_the_pack_that_failed_names_it_as_written(bank):
    card = ("  - id: my-card\n    version: 1\n    kind: explain\n    topic: tensors\n"
            "    title: T\n    body: B\n    example: print('hello')\n    colour: red\n")
    parsed = parse_pack(pack_text(choice(link="my-card"), card))
    problems = check_pack(parsed.pack, bank, parsed=parsed)
    (link,) = [p for p in problems if "explain_links" in p.message]
    assert "p.team" not in link.message
    assert link.message.startswith("q1 explain_links: no card 'my-card' (that item of this "
                                   "pack has errors of its own")


def test_a_failed_item_still_counts_in_the_report():
    parsed = parse_pack(pack_text(choice(b_correct="true"), choice(id="q2")))
    assert (parsed.items, parsed.cards) == (2, 0)
    assert list(parsed.pack.questions) == ["p.team.q2"]


def test_mentions_and_markdown_in_texts_are_kept_as_data(bank):
    hostile = '"@everyone <@123> <!channel> **bold** [x](http://evil.example) `code`"'
    parsed = parse_pack(pack_text(choice(prompt=hostile)))
    assert parsed.problems == ()
    prompt = parsed.pack.questions["p.team.q1"].prompt
    assert prompt.en == prompt.zh_CN == hostile.strip('"')


def test_one_language_pack_shows_its_text_in_every_locale():
    parsed = parse_pack(pack_text(choice()))
    item = parsed.pack.questions["p.team.q1"]
    assert item.prompt.get("zh-CN") == item.prompt.get("en") == "Is it?"


def test_header_errors_say_which_field():
    data = HEADER.replace("id: team", "id: Team!").encode() + choice().encode()
    text = only_problem(data)
    assert text.startswith("line 2, column 7: pack.id")


def test_option_bias_counts_for_a_pack(bank):
    # The correct option is always the longest: a member who never reads the question wins.
    parsed = parse_pack(pack_text(*(choice(id=f"q{i}").replace('"yes"', '"yes, certainly so"')
                                    for i in range(4))))
    problems = check_pack(parsed.pack, bank)
    assert any("longest" in p.message for p in problems)


def test_a_stored_pack_loads_back_the_same_from_its_json_and_its_text():
    pack = parse_pack(SCAFFOLD.encode()).pack
    from content.packs import load_stored_pack

    assert load_stored_pack(pack.text, pack.document).questions == pack.questions
    assert load_stored_pack(pack.text).questions == pack.questions
