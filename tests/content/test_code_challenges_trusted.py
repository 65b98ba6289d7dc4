"""Code challenges are sound on the trusted side: generators, references, starters, examples.

Bank content ships with the project and is trusted, so it runs in-process here; submissions
(tests/fixtures/submissions) are ours too and only checked against the reference numerically —
the real sandbox run belongs to the executor tests.
"""

import math
from pathlib import Path

import pytest
import torch

from content.coverage import EXPECT, check_fixtures, load_targets
from content.loader import BANK_ROOT, Bank, load_bank
from content.schema import CodeItem

CODE_ITEMS = {item.id: item for item in load_bank().code_items()}
CODE_IDS = sorted(CODE_ITEMS)
SUBMISSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"
# The allowed '# expect: STATUS FRAGMENT' lines of wrong fixtures: see EXPECT in content.coverage.
assert EXPECT.pattern
# The executor draws a fresh seed for daily rounds and practice: a generator must make valid,
# discriminating cases for any seed, so references and correct fixtures are run on these too.
SEEDS = range(20)


def run_source(source: str, name: str) -> dict:
    namespace = {"__name__": name, "torch": torch, "math": math}
    exec(compile(source, name, "exec"), namespace)  # noqa: S102 - trusted bank content
    return namespace


def make_cases(item: CodeItem, seed: int | None = None) -> list[dict]:
    cases = run_source(item.code.tests.generator, f"<{item.id} generator>")["cases"]
    return cases(torch.Generator().manual_seed(item.code.tests.seed if seed is None else seed))


def fresh(value):
    """Copy an input so a call cannot touch the original; tensors keep requires_grad."""
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        return copy.requires_grad_(value.requires_grad)
    if isinstance(value, list | tuple):
        return type(value)(fresh(v) for v in value)
    if isinstance(value, dict):
        return {k: fresh(v) for k, v in value.items()}
    return value


def call(fn, case: dict, item: CodeItem):
    args, kwargs = fresh(list(case["args"])), fresh(case.get("kwargs", {}))
    grad = item.code.checks.grad
    if grad is not None:
        for i in grad.wrt:
            args[i] = args[i].detach().requires_grad_(True)
    return fn(*args, **kwargs), args


def same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return (
            isinstance(b, torch.Tensor)
            and a.shape == b.shape
            and a.dtype == b.dtype
            and a.stride() == b.stride()
            and a.requires_grad == b.requires_grad
            and torch.equal(torch.nan_to_num(a.detach()), torch.nan_to_num(b.detach()))
        )
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def tensors_in(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, list | tuple):
        for v in value:
            yield from tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from tensors_in(v)


def reference(item: CodeItem):
    return run_source(item.code.solution, f"<{item.id} reference>")[item.code.entrypoint]


@pytest.mark.parametrize("item_id", CODE_IDS)
def test_generator_is_deterministic_and_sized(item_id):
    item = CODE_ITEMS[item_id]
    first, second = make_cases(item), make_cases(item)
    assert 4 <= len(first) <= 8
    assert same(first, second)
    assert all(isinstance(case["args"], list | tuple) for case in first)


@pytest.mark.parametrize("item_id", CODE_IDS)
def test_generator_covers_a_non_contiguous_input(item_id):
    cases = make_cases(CODE_ITEMS[item_id])
    inputs = [t for case in cases for t in tensors_in([case["args"], case.get("kwargs", {})])]
    if not any(t.numel() > 1 for t in inputs):
        pytest.skip(f"{item_id} takes no tensor with more than one element: layout cannot matter")
    assert any(not t.is_contiguous() for t in inputs)


@pytest.mark.parametrize("item_id", CODE_IDS)
def test_generator_covers_a_size_one_dimension(item_id):
    cases = make_cases(CODE_ITEMS[item_id])
    inputs = [t for case in cases for t in tensors_in([case["args"], case.get("kwargs", {})])]
    if not any(t.dim() > 0 for t in inputs):
        pytest.skip(f"{item_id} takes no tensor with a dimension")
    assert any(1 in t.shape for t in inputs), "no case has a size-1 dimension"


@pytest.mark.parametrize("item_id", CODE_IDS)
def test_reference_passes_its_own_checks_on_every_case_for_any_seed(item_id):
    item = CODE_ITEMS[item_id]
    checks, fn = item.code.checks, reference(item)
    for seed in SEEDS:
        cases = make_cases(item, seed)
        assert 4 <= len(cases) <= 8, f"seed {seed}: {len(cases)} cases"
        for index, case in enumerate(cases):
            _check_reference_case(item, checks, fn, case, f"{item_id} seed {seed} case {index}")


def _check_reference_case(item, checks, fn, case, where):
    before = fresh(list(case["args"]))
    output, args = call(fn, case, item)
    for t in tensors_in(output):
        if t.is_floating_point():
            assert torch.isfinite(t).all(), f"{where}: non-finite output"
    if checks.inputs_unmodified:
        pairs = zip(tensors_in(args), tensors_in(before), strict=True)
        assert all(torch.equal(a.detach(), b) for a, b in pairs), f"{where}: changed its input"
    if checks.result_requires_grad is not None:
        assert output.requires_grad is checks.result_requires_grad, where
    if checks.grad is not None:
        upstream_gen = torch.Generator().manual_seed(checks.grad.upstream_seed)
        upstream = torch.randn(output.shape, generator=upstream_gen, dtype=output.dtype)
        output.backward(upstream)
        for i in checks.grad.wrt:
            assert args[i].grad is not None, f"{where}: no gradient for argument {i}"
            assert torch.isfinite(args[i].grad).all(), f"{where}: non-finite gradient"


@pytest.mark.parametrize("item_id", CODE_IDS)
def test_starter_is_a_stub(item_id):
    item = CODE_ITEMS[item_id]
    starter = run_source(item.code.starter, f"<{item_id} starter>")[item.code.entrypoint]
    case = make_cases(item)[0]
    try:
        result = starter(*fresh(list(case["args"])), **fresh(case.get("kwargs", {})))
    except NotImplementedError:
        return
    assert result is None


def _normalise(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("item_id", CODE_IDS)
def test_examples_show_what_the_reference_prints(item_id):
    item = CODE_ITEMS[item_id]
    assert item.code.examples, f"{item_id} has no visible example"
    namespace = run_source(item.code.solution, f"<{item_id} reference>")
    for example in item.code.examples:
        value = eval(example.call, namespace)  # noqa: S307 - trusted bank content
        assert _normalise(repr(value)) == _normalise(example.result), example.call


# ------------------------------------------------------------------ submission fixtures


@pytest.mark.parametrize("item_id", CODE_IDS)
def test_every_challenge_has_enough_distinct_fixtures(item_id):
    targets = load_targets(BANK_ROOT)
    problems = check_fixtures(Bank(questions={item_id: CODE_ITEMS[item_id]}), targets, BANK_ROOT)
    assert not problems, "\n".join(str(p) for p in problems)


def _fixtures(prefix: str, *, runnable_here: bool = False) -> list[Path]:
    ids = [i for i in CODE_IDS if not runnable_here or _runs_here(CODE_ITEMS[i])]
    return sorted(p for item_id in ids for p in (SUBMISSIONS / item_id).glob(f"{prefix}*.py"))


def _runs_here(item: CodeItem) -> bool:
    # A CUDA challenge's correct answers call CUDA APIs: they run where a GPU is, which is
    # scripts/gpu_check.sh's job (it grades every fixture of every CUDA challenge).
    return "cuda" not in item.code.requires or torch.cuda.is_available()


def test_cuda_challenges_are_graded_by_the_gpu_check():
    cuda_ids = [i for i in CODE_IDS if "cuda" in CODE_ITEMS[i].code.requires]
    script = (Path(__file__).resolve().parents[2] / "scripts" / "gpu_check.sh").read_text()
    assert len(cuda_ids) >= 5
    assert "submissions" in script and "requires" in script  # the fixture loop over CUDA items


@pytest.mark.parametrize("path", _fixtures("wrong_"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_wrong_submission_states_its_expected_verdict(path):
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    assert EXPECT.match(first_line), first_line


@pytest.mark.parametrize("path", _fixtures("correct_", runnable_here=True),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_correct_submission_matches_the_reference(path):
    item = CODE_ITEMS[path.parent.name]
    source = path.read_text(encoding="utf-8")
    assert _normalise(source) != _normalise(item.code.solution), "must differ from the reference"
    fn, ref = run_source(source, path.name)[item.code.entrypoint], reference(item)
    for seed in SEEDS:
        for index, case in enumerate(make_cases(item, seed)):
            got, _ = call(fn, case, item)
            want, _ = call(ref, case, item)
            where = f"seed {seed} case {index}"
            for g, w in zip(tensors_in(got), tensors_in(want), strict=True):
                assert g.shape == w.shape and g.dtype == w.dtype, where
                tol = item.code.checks.tolerance(str(w.dtype).removeprefix("torch."))
                assert torch.allclose(g.detach(), w.detach(), rtol=tol.rtol, atol=tol.atol,
                                      equal_nan=True), where
