"""A pack's code runs only in the sandbox; every check the bank makes is made there."""

from __future__ import annotations

import os
import uuid

import pytest

from content.packs import SCAFFOLD, parse_pack
from executors.grading import challenges
from executors.grading.pack_challenges import build_pack_challenge, validate_pack
from tests.support.executors import assert_nothing_left
from tests.support.packs import PACK_LIMITS, code_item, pack_text


@pytest.fixture(autouse=True)
def no_trusted_exec(monkeypatch):
    # The trusted side's way to run bank code must never be taken for a pack.
    def refuse(source, filename):
        raise AssertionError(f"pack code reached the trusted side: {filename}")

    monkeypatch.setattr(challenges, "_exec_trusted", refuse)


def validate(data, bank, zygote):
    return validate_pack(data, bank, zygote, PACK_LIMITS)


def test_scaffold_validates_as_is(bank, zygote):
    report = validate(SCAFFOLD.encode(), bank, zygote)
    assert report.to_json() == {"ok": True, "errors": [], "problems": [], "items": 3,
                                "cards": 0}


def test_generator_never_runs_in_the_trusted_process(bank, zygote, tmp_path):
    marker = f"/tmp/torchquiz-pack-marker-{uuid.uuid4().hex}"
    generator = (
        "import os\n\n\ndef cases(g):\n"
        f"    open({marker!r}, 'w').write(str(os.getpid()))\n"
        "    return [{'args': [os.getpid()]}]\n"
    )
    solution = "def double(x):\n    return x\n"
    item = parse_pack(pack_text(code_item(generator=generator, solution=solution))
                      ).pack.code_items()[0]
    challenge = build_pack_challenge(item, zygote, PACK_LIMITS)
    (case,) = challenge.cases
    assert case.args[0] != os.getpid()  # the pid the generator saw is the sandbox's own
    assert not os.path.exists(marker)  # its file went to the run's private tmpfs


def test_reference_runs_in_the_sandbox_too(bank, zygote):
    solution = "import os\n\n\ndef double(x):\n    return os.getpid()\n"
    item = parse_pack(pack_text(code_item(
        generator="def cases(g):\n    return [{'args': [1]}]\n", solution=solution))
    ).pack.code_items()[0]
    challenge = build_pack_challenge(item, zygote, PACK_LIMITS)
    assert challenge.cases[0].expected != os.getpid()


HOSTILE = {
    "reads /etc/passwd": (
        "def cases(g):\n    return [{'args': [open('/etc/passwd').read()]}]\n",
        "FileNotFoundError"),
    "reads the environment": (
        "import os\n\n\ndef cases(g):\n"
        "    raise RuntimeError('secret=' + str(os.environ.get('TORCHQUIZ_SECRET')))\n",
        "RuntimeError: secret=None"),
    "loops forever": ("def cases(g):\n    while True:\n        pass\n", "ran longer than"),
    "prints megabytes": (
        "def cases(g):\n    while True:\n        print('x' * 65536)\n", "printed more than"),
    "writes a big file": (
        "def cases(g):\n    open('/tmp/big', 'w').write('x' * 50_000_000)\n"
        "    return [{'args': [1]}]\n", "the generator"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_generator_is_contained_and_fails_with_the_reason(bank, zygote, name,
                                                                  monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_SECRET", "s3cr3t-pack-value")
    generator, reason = HOSTILE[name]
    report = validate(pack_text(code_item(generator=generator)), bank, zygote)
    assert not report.ok
    assert len(report.errors) == 1, report.errors
    assert "p.team.double: the generator" in report.errors[0]
    assert reason in report.errors[0]
    assert "s3cr3t" not in report.errors[0]
    assert_nothing_left()


def test_forking_generator_is_contained(bank, zygote):
    generator = (
        "import os\n\n\ndef cases(g):\n    while True:\n        os.fork()\n")
    report = validate(pack_text(code_item(generator=generator)), bank, zygote)
    assert not report.ok
    assert "p.team.double: the generator" in report.errors[0]
    assert_nothing_left()


def test_hostile_reference_is_contained_and_fails_with_the_reason(bank, zygote):
    solution = "def double(x):\n    while True:\n        pass\n"
    report = validate(pack_text(code_item(solution=solution)), bank, zygote)
    assert not report.ok
    assert "the reference solution ran longer than" in report.errors[0]


def test_generator_that_ignores_its_seed_is_not_deterministic(bank, zygote):
    generator = "def cases(g):\n    return [{'args': [torch.rand(3)]}]\n"
    report = validate(pack_text(code_item(generator=generator)), bank, zygote)
    assert [e.split(": ", 1)[1] for e in report.errors] == [
        "p.team.double: the generator is not deterministic: seed 3 drew different cases "
        "twice (use the generator g)"]


def test_starter_that_already_passes_is_an_error(bank, zygote):
    starter = "import torch\n\n\ndef double(x):\n    return x + x\n"
    report = validate(pack_text(code_item(starter=starter)), bank, zygote)
    assert [e.split(": ", 1)[1] for e in report.errors] == [
        "p.team.double: the starter already passes the hidden tests"]


def test_example_must_show_what_the_reference_returns(bank, zygote):
    examples = ('      examples:\n        - call: "double(torch.tensor([1, 2]))"\n'
                '          result: "tensor([2, 5])"\n')
    report = validate(pack_text(code_item(examples=examples)), bank, zygote)
    assert [e.split(": ", 1)[1] for e in report.errors] == [
        "p.team.double: example 'double(torch.tensor([1, 2]))' gives 'tensor([2, 4])' with "
        "the reference, not 'tensor([2, 5])'"]


def test_errors_carry_the_place_of_the_field_they_are_about(bank, zygote):
    report = validate(pack_text(code_item(generator="def cases(g):\n    return []\n")),
                      bank, zygote)
    # The generator's own line (its block scalar), not the item's first line (line 7).
    assert report.errors == (
        "line 31, column 20: p.team.double: the generator: cases(g) must return a non-empty "
        "list",)
    (problem,) = report.problems
    assert problem == {"line": 31, "column": 20, "item": "double",
                       "field": "code.tests.generator",
                       "message": "p.team.double: the generator: cases(g) must return a "
                                  "non-empty list"}


def test_looping_challenges_share_one_time_budget(bank, zygote):
    looping = "def cases(g):\n    while True:\n        pass\n"
    data = pack_text(code_item(generator=looping, item_id="first"),
                     code_item(generator=looping, item_id="second"))
    report = validate_pack(data, bank, zygote, PACK_LIMITS, workers=1, budget_s=0.5)
    assert [e.split(": ", 1)[1] for e in report.errors] == [
        "p.team.first: the generator ran longer than 5 s (time limit)",
        "p.team.second: not checked: the pack's code took more than 0.5 s together",
    ]


CARD = ("  - id: card\n    version: 1\n    kind: explain\n    topic: tensors\n"
        "    title: T\n    body: B\n    example: |\n{example}{expected}")


@pytest.mark.parametrize(("example", "expected", "error"), [
    ("print(torch.ones(2).sum().item())", "2.0", None),
    ("print(torch.ones(2).sum().item())", "3.0",
     "p.team.card: the example printed '2.0', not the expected_output '3.0'"),
    ("import os\nprint(open('/etc/shadow').read())", None,
     "p.team.card: the example did not load: raised FileNotFoundError"),
])
def test_card_examples_run_in_the_sandbox_and_print_as_promised(bank, zygote, example,
                                                                  expected, error):
    card = CARD.format(example="".join(f"      {line}\n" for line in example.splitlines()),
                       expected=f"    expected_output: '{expected}'\n" if expected else "")
    report = validate(pack_text(card), bank, zygote)
    if error is None:
        assert report.errors == ()
    else:
        (only,) = report.errors
        assert only.split(": ", 1)[1].startswith(error)
