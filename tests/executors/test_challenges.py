"""Challenge building: deterministic hidden tests, references kept out of requests, caching."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import torch

from content.loader import Bank, load_bank
from content.schema import CodeItem
from executors.grading import challenges as challenges_module
from executors.grading.challenges import (
    ChallengeBuildError,
    ChallengeCache,
    UnknownChallenge,
    build_challenge,
)
from tests.executors import builders

GENERATOR = """
import torch
def cases(g):
    return [{"args": [torch.randn(4, 3, generator=g)], "kwargs": {"k": 2}} for _ in range(3)]
"""
SOLUTION = "import torch\n\ndef f(x, k=1):\n    return (x * k).cumsum(0)\n"


def code_item(**changes: Any) -> CodeItem:
    code = {
        "entrypoint": "f",
        "signature": "def f(x, k=1)",
        "starter": "def f(x, k=1):\n    ...\n",
        "solution": SOLUTION,
        "tests": {"seed": 3, "generator": GENERATOR},
    }
    code.update(changes.pop("code", {}))
    return builders.code_item(code, **changes)


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank()


def code_ids(bank: Bank) -> list[str]:
    return [item.id for item in bank.code_items()]


def flat_tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in flat_tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flat_tensors(v)]
    return []


def raw_bytes(t: torch.Tensor) -> bytes:
    flat = t.detach().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""


def test_generator_is_deterministic_for_a_seed():
    first, second = build_challenge(code_item()), build_challenge(code_item())
    for a, b in zip(first.cases, second.cases, strict=True):
        assert torch.equal(a.args[0], b.args[0])
        assert torch.equal(a.expected, b.expected)


def test_a_different_seed_gives_different_inputs():
    other = code_item(code={"tests": {"seed": 4, "generator": GENERATOR}})
    a, b = build_challenge(code_item()), build_challenge(other)
    assert not torch.equal(a.cases[0].args[0], b.cases[0].args[0])


def test_reference_runs_on_copies_and_uses_kwargs():
    item = code_item(code={"solution": "def f(x, k=1):\n    x.mul_(k)\n    return x\n"})
    challenge = build_challenge(item)
    case = challenge.cases[0]
    assert torch.equal(case.expected, case.args[0] * 2)  # the in-place reference saw a copy


def test_bank_challenges_are_deterministic(bank):
    for cid in code_ids(bank):
        item = bank.questions[cid]
        assert isinstance(item, CodeItem)
        a, b = build_challenge(item), build_challenge(item)
        for ca, cb in zip(a.cases, b.cases, strict=True):
            for ta, tb in zip(flat_tensors(ca.args), flat_tensors(cb.args), strict=True):
                assert torch.equal(ta, tb), cid


def test_request_never_carries_the_reference(bank):
    for item in bank.code_items():
        challenge = build_challenge(item)
        request = challenge.request(item.code.starter)
        assert item.code.solution.encode() not in request, item.id
        sent = b"".join(
            raw_bytes(t)
            for case in challenge.cases
            for t in flat_tensors([case.args, dict(case.kwargs), case.upstream])
        )
        for case in challenge.cases:
            for ref in flat_tensors([case.expected, list(case.expected_grads)]):
                blob = raw_bytes(ref)
                # A reference equal to an input (an identity-like case) reveals nothing new.
                if len(blob) >= 8 and blob not in sent:
                    assert blob not in request, item.id


def test_request_carries_code_entrypoint_and_every_case():
    challenge = build_challenge(code_item())
    payload = challenge.request_payload("def f(x, k=1): return x")
    assert payload["code"] == "def f(x, k=1): return x"
    assert payload["entrypoint"] == "f"
    assert payload["device"] == "cpu"
    assert len(payload["cases"]) == 3
    assert payload["cases"][0]["kwargs"] == {"k": 2}
    assert payload["cases"][0]["check_inputs"] is True


def test_cuda_challenge_requests_the_cuda_device():
    challenge = build_challenge(code_item(code={"requires": ["cuda"]}))
    assert challenge.device == "cuda"
    assert challenge.request_payload("")["device"] == "cuda"


def test_cache_builds_each_version_once(monkeypatch):
    calls: list[str] = []
    real = challenges_module.build_challenge

    def counting(item, seed=None):
        calls.append(item.id)
        return real(item, seed)

    monkeypatch.setattr(challenges_module, "build_challenge", counting)
    cache = ChallengeCache(Bank(questions={"code.test-challenge": code_item()}))
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.get("code.test-challenge")))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["code.test-challenge"]
    assert all(r is results[0] for r in results)


def test_a_new_version_is_built_afresh():
    v1 = ChallengeCache(Bank(questions={"code.test-challenge": code_item()}))
    v2 = ChallengeCache(Bank(questions={"code.test-challenge": code_item(version=2)}))
    assert v1.get("code.test-challenge").version == 1
    assert v2.get("code.test-challenge").version == 2


def test_unknown_and_non_code_ids_raise_unknown_challenge(bank):
    cache = ChallengeCache(bank)
    with pytest.raises(UnknownChallenge):
        cache.get("code.no-such-thing")
    non_code = next((q.id for q in bank.questions.values() if not isinstance(q, CodeItem)), None)
    if non_code is not None:
        with pytest.raises(UnknownChallenge):
            cache.get(non_code)


def test_unknown_challenge_is_a_key_error():
    assert issubclass(UnknownChallenge, KeyError)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"solution": "def g(x, k=1):\n    return x\n"}, "defines no function 'f'"),
        ({"solution": "def f(x, k=1):\n    raise ValueError('boom')\n"}, "boom"),
        ({"tests": {"generator": "def cases(g):\n    return []\n"}}, "non-empty list"),
        ({"tests": {"generator": "def cases(g):\n    return [{'a': 1}]\n"}}, "'args' list"),
        ({"checks": {"grad": {"wrt": [1]}}}, "not a tensor"),
    ],
)
def test_broken_bank_content_raises_a_build_error(changes, fragment):
    with pytest.raises(ChallengeBuildError, match=fragment):
        build_challenge(code_item(code=changes))


def test_parameter_names_come_from_the_reference():
    challenge = build_challenge(code_item())
    assert challenge.param_names == ("x", "k")
    assert challenge.param_label(0) == "x (argument 0)"
    assert challenge.param_label(5) == "argument 5"
