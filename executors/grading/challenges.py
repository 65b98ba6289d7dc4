"""Build code challenges on the trusted side: hidden inputs, reference outputs, the harness request.

Everything here runs bank content (generators and reference solutions), which ships with the
project and is trusted. Submissions never come near this module: they only ever see the request
built by :meth:`Challenge.request`, which carries inputs and never a reference value.
"""

from __future__ import annotations

import ast
import builtins
import collections
import hashlib
import logging
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import torch

from content.loader import Bank
from content.schema import Checks, CodeItem
from executors.grading import wire

log = logging.getLogger(__name__)


class UnknownChallenge(KeyError):
    """Raise when a caller asks for a challenge id the bank has no code challenge for."""


class ChallengeBuildError(Exception):
    """Raise when the bank's own generator or reference solution fails: a content bug."""


# A team pack's items carry this prefix (content.packs.PACK_PREFIX). Their code came from a
# chat member: it is built only in the sandbox (pack_challenges.py), never by _exec_trusted.
PACK_ITEM_PREFIX = "p."

PackBuilder = Callable[[CodeItem, int], "Challenge"]


@dataclass(frozen=True)
class Case:
    """One hidden test: inputs as sent, the reference result and gradients (never sent)."""

    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]
    expected: Any
    # Gradient check only: the upstream gradient sent to the harness, and the reference input
    # gradients, one per entry of Checks.grad.wrt (None where the reference has no gradient).
    upstream: torch.Tensor | None = None
    expected_grads: tuple[torch.Tensor | None, ...] = ()


@dataclass(frozen=True)
class Challenge:
    """A code challenge ready to run: everything the grader and the harness need."""

    id: str
    version: int
    seed: int  # the generator's seed: these hidden tests, and no others
    entrypoint: str
    device: str
    checks: Checks
    cases: tuple[Case, ...]
    param_names: tuple[str, ...]
    requires: tuple[str, ...]
    timeout_s: float
    memory_mb: int

    @property
    def total(self) -> int:
        """Return the number of hidden tests."""
        return len(self.cases)

    def param_label(self, index: int) -> str:
        """Return how messages name positional argument ``index`` (``x (argument 0)``)."""
        if 0 <= index < len(self.param_names):
            return f"{self.param_names[index]} (argument {index})"
        return f"argument {index}"

    # The request's cases, prepared once at build time: inputs (with requires_grad set on the
    # arguments a gradient check differentiates) and upstream gradients. Never a reference.
    request_cases: tuple[Mapping[str, Any], ...] = ()

    def request_payload(self, code: str) -> dict[str, Any]:
        """Return the harness request for ``code`` as plain values (inputs only, no references)."""
        return {
            "code": code,
            "entrypoint": self.entrypoint,
            "device": self.device,
            "cases": [dict(case) for case in self.request_cases],
        }

    def request(self, code: str) -> bytes:
        """Return the wire-encoded harness request for ``code``."""
        # Encoding per run costs well under a millisecond for bank-sized inputs; the expensive
        # part (generator, reference, gradients) is what the cache keeps.
        return wire.encode(self.request_payload(code))


def _request_case(case: Case, checks: Checks) -> Mapping[str, Any]:
    grad = checks.grad
    args = list(case.args)
    wire_grad = None
    if grad is not None and case.upstream is not None:
        for i in grad.wrt:
            # The harness rebuilds tensors with the flags they were sent with: the arguments
            # under test must arrive as leaves that require grad so their .grad gets filled.
            args[i] = case.args[i].detach().clone().requires_grad_(True)
        wire_grad = {"wrt": list(grad.wrt), "upstream": case.upstream}
    return MappingProxyType(
        {
            "args": args,
            "kwargs": dict(case.kwargs),
            "grad": wire_grad,
            "check_inputs": checks.inputs_unmodified,
        }
    )


def clone_value(value: Any) -> Any:
    """Return a deep copy of an input value; tensors become fresh leaves with the same flags."""
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        if value.requires_grad:
            copy.requires_grad_(True)
        return copy
    if isinstance(value, list):
        return [clone_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clone_value(v) for v in value)
    if isinstance(value, dict):
        return {k: clone_value(v) for k, v in value.items()}
    return value


def detach_value(value: Any) -> Any:
    """Return ``value`` with every tensor detached and copied, out of reach of later graph work."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, list):
        return [detach_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(detach_value(v) for v in value)
    if isinstance(value, dict):
        return {k: detach_value(v) for k, v in value.items()}
    return value


def _exec_trusted(source: str, filename: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {
        "__builtins__": builtins,
        "__name__": filename,
        "torch": torch,
        "math": math,
    }
    # Bank content is trusted (reviewed, versioned, shipped with the project); it never contains
    # submission code, which only runs inside the sandbox.
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102
    return namespace


def _entry(namespace: Mapping[str, Any], name: str, what: str) -> Callable[..., Any]:
    fn = namespace.get(name)
    if not callable(fn):
        raise ChallengeBuildError(f"{what} defines no function {name!r}")
    return fn  # type: ignore[no-any-return]


def param_names(source: str, entrypoint: str) -> tuple[str, ...]:
    """Return the positional parameter names of ``entrypoint`` as defined in ``source``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entrypoint:
            return tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args))
    return ()


def _generate_inputs(item: CodeItem, seed: int) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    spec = item.code.tests
    namespace = _exec_trusted(spec.generator, f"<{item.id} generator>")
    make = _entry(namespace, "cases", f"{item.id}: the generator")
    raw = make(torch.Generator().manual_seed(seed))
    if not isinstance(raw, list) or not raw:
        raise ChallengeBuildError(f"{item.id}: cases(g) must return a non-empty list")
    out = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("args"), list | tuple):
            raise ChallengeBuildError(f"{item.id}: case {index} needs an 'args' list")
        kwargs = entry.get("kwargs", {})
        if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise ChallengeBuildError(f"{item.id}: case {index} 'kwargs' must map str to values")
        out.append((tuple(entry["args"]), dict(kwargs)))
    return out


def _reference_case(
    item: CodeItem,
    reference: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    upstream_gen: torch.Generator | None,
) -> Case:
    checks = item.code.checks
    call_args = clone_value(list(args))
    call_kwargs = clone_value(kwargs)
    grad = checks.grad
    if grad is not None:
        for i in grad.wrt:
            if i >= len(call_args) or not isinstance(call_args[i], torch.Tensor):
                raise ChallengeBuildError(f"{item.id}: grad.wrt names argument {i}, not a tensor")
            call_args[i] = call_args[i].detach().requires_grad_(True)
    result = reference(*call_args, **call_kwargs)
    if grad is None or upstream_gen is None:
        return Case(args=args, kwargs=MappingProxyType(kwargs), expected=detach_value(result))
    if not isinstance(result, torch.Tensor) or not result.requires_grad:
        raise ChallengeBuildError(f"{item.id}: the gradient check needs a tensor result with grad")
    upstream = torch.randn(result.shape, generator=upstream_gen, dtype=result.dtype)
    torch.autograd.backward(result, upstream)
    grads = tuple(
        None if call_args[i].grad is None else call_args[i].grad.detach().clone()
        for i in grad.wrt
    )
    return Case(
        args=args,
        kwargs=MappingProxyType(kwargs),
        expected=detach_value(result),
        upstream=upstream,
        expected_grads=grads,
    )


MAX_SEED = 2**63 - 1


def build_challenge(item: CodeItem, seed: int | None = None) -> Challenge:
    """Run the generator and the reference solution of ``item`` and return the challenge.

    ``seed`` draws the hidden inputs; None means the item's own ``tests.seed`` (the fixed set
    that content tests and ``torchquiz exec`` use). Rounds and practice sessions pass their own
    seed, so what one round's messages reveal does not hold for the next.
    """
    if item.id.startswith(PACK_ITEM_PREFIX):
        raise ChallengeBuildError(f"{item.id}: a pack's challenge is built only in the sandbox")
    spec = item.code
    seed = spec.tests.seed if seed is None else seed
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and {MAX_SEED}")
    try:
        inputs = _generate_inputs(item, seed)
        namespace = _exec_trusted(spec.solution, f"<{item.id} reference>")
        reference = _entry(namespace, spec.entrypoint, f"{item.id}: the reference solution")
        upstream_gen = (
            torch.Generator().manual_seed(spec.checks.grad.upstream_seed)
            if spec.checks.grad is not None
            else None
        )
        cases = tuple(
            _reference_case(item, reference, args, kwargs, upstream_gen) for args, kwargs in inputs
        )
    except ChallengeBuildError:
        raise
    except Exception as exc:
        raise ChallengeBuildError(f"{item.id}: building the hidden tests failed: {exc!r}") from exc
    return Challenge(
        id=item.id,
        version=item.version,
        seed=seed,
        entrypoint=spec.entrypoint,
        device="cuda" if "cuda" in spec.requires else "cpu",
        checks=spec.checks,
        cases=cases,
        param_names=param_names(spec.solution, spec.entrypoint),
        requires=tuple(spec.requires),
        timeout_s=spec.timeout_s,
        memory_mb=spec.memory_mb,
        request_cases=tuple(_request_case(case, spec.checks) for case in cases),
    )


class ChallengeCache:
    """Hand out built challenges, building each (id, version, seed) once even under many threads.

    Every daily round and practice session draws its own seed, so the cache keeps only the most
    recently used ``max_entries`` challenges; a round's members share one build.
    """

    def __init__(self, bank: Bank, max_entries: int = 256,
                 build_pack: PackBuilder | None = None) -> None:
        self._bank = bank
        self._build_pack = build_pack
        self._max_entries = max_entries
        self._built: collections.OrderedDict[tuple[str, int, int], Challenge] = (
            collections.OrderedDict()
        )
        self._locks: dict[tuple[str, int, int], threading.Lock] = {}
        self._guard = threading.Lock()

    def item(self, challenge_id: str) -> CodeItem:
        """Return the bank's code item ``challenge_id`` or raise UnknownChallenge."""
        item = self._bank.questions.get(challenge_id)
        if not isinstance(item, CodeItem):
            raise UnknownChallenge(challenge_id)
        return item

    def ids(self) -> list[str]:
        """Return the ids of every code challenge in the bank, sorted."""
        return [item.id for item in self._bank.code_items()]

    def get(self, challenge_id: str, seed: int | None = None) -> Challenge:
        """Return challenge ``challenge_id`` with hidden tests drawn from ``seed``, built once."""
        return self.get_item(self.item(challenge_id), seed)

    def get_item(self, item: CodeItem, seed: int | None = None) -> Challenge:
        """Return ``item``'s challenge for ``seed``, built once; the item may come from a run."""
        key = (item.id, item.version, item.code.tests.seed if seed is None else seed)
        if item.id.startswith(PACK_ITEM_PREFIX):
            # A new pack version (or another definition sent with a run) may change a
            # challenge without raising the item's version: the key holds what it is made of.
            digest = hashlib.sha256(item.model_dump_json(by_alias=True).encode()).hexdigest()
            key = (f"{item.id}#{digest}", *key[1:])
        with self._guard:
            built = self._built.get(key)
            if built is not None:
                self._built.move_to_end(key)
                return built
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                built = self._built.get(key)
            if built is None:
                if item.id.startswith(PACK_ITEM_PREFIX):
                    if self._build_pack is None:
                        raise ChallengeBuildError(f"{item.id}: no sandbox to build it in")
                    built = self._build_pack(item, key[2])
                else:
                    built = build_challenge(item, key[2])
                log.info("built challenge %s v%d seed %d: %d hidden tests", item.id,
                         item.version, key[2], built.total)
            with self._guard:
                self._built[key] = built
                self._built.move_to_end(key)
                while len(self._built) > self._max_entries:
                    old, _ = self._built.popitem(last=False)
                    self._locks.pop(old, None)
        return built
