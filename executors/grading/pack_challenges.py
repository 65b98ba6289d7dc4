"""Build and check a pack's code challenges with every line of pack code inside the sandbox.

The shipped bank's generators and references run on the trusted side (``challenges.py``):
the operator ships them. A pack comes from a chat member, so its generator and reference run
as ordinary sandbox runs: the same harness request a submission makes (code, entrypoint, cases),
under the same limits, answered through the same validated wire format. The trusted side only
decodes data (tensors, numbers, strings) and keeps the expected outputs, keyed by item, version
and seed. Nothing here calls ``exec`` or ``eval``.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import math
import secrets
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import torch

from content.schema import CodeItem, ExplainCard
from executors.engine import SandboxRunner, decode_stream, judge, limits_for
from executors.grading import wire
from executors.grading.challenges import (
    MAX_SEED,
    Case,
    Challenge,
    ChallengeBuildError,
    _request_case,
    detach_value,
    param_names,
)
from executors.grading.verdict import Status
from executors.isolation.limits import MIB, Limits

log = logging.getLogger(__name__)

# The bank's generators and references see ``torch`` and ``math`` without importing them; a
# pack's code gets the same two names, by an import on its first line (one line, so an error's
# line number is off by exactly one, which messages correct).
PRELUDE = "import math, torch  # noqa\n"
# The global RNGs get a salt the trusted side picks per run: a forked child otherwise starts
# from the zygote's state every time, and a generator that ignores ``g`` would look determined.
_GENERATE = (
    "\n\ndef __tq_generate__(seed, salt):\n"
    "    import random\n"
    "    random.seed(salt)\n"
    "    torch.manual_seed(salt)\n"
    "    return cases(torch.Generator().manual_seed(seed))\n"
)
_EXAMPLES = (
    "\n\ndef __tq_examples__(calls):\n"
    "    out = []\n"
    "    for call in calls:\n"
    "        try:\n"
    "            out.append({'value': eval(call)})\n"
    "        except Exception as exc:\n"
    "            out.append({'raised': type(exc).__name__ + ': ' + str(exc)[:200]})\n"
    "    return out\n"
)
MAX_CASES = 200


class PackCodeError(ChallengeBuildError):
    """Raise when a pack's generator or reference fails in the sandbox; the text says why."""


@dataclass(frozen=True)
class CodeCheck:
    """What the sandboxed checks found for one code challenge (empty problems: sound)."""

    item_id: str
    problems: tuple[str, ...]


def _limits(base: Limits, item: CodeItem) -> Limits:
    return dataclasses.replace(
        base,
        wall_s=item.code.timeout_s,
        cpu_s=max(1, math.ceil(item.code.timeout_s)),
        memory_bytes=item.code.memory_mb * MIB,
    )


def _why(raw: Any, limits: Limits) -> str | None:
    """Return why a run ended badly (a limit, a signal, an exit status), or None."""
    if raw.timed_out or raw.signal == signal.SIGXCPU:
        return f"ran longer than {limits.wall_s:g} s (time limit)"
    if raw.memory_exceeded:
        return f"used more than {limits.memory_bytes // MIB} MiB (memory limit)"
    if raw.output_exceeded:
        return f"printed more than {limits.output_bytes:,} bytes (output limit)"
    if raw.result_truncated:
        return f"returned more than {limits.result_bytes:,} bytes of results"
    if raw.signal is not None:
        return f"was killed by signal {raw.signal}"
    return None


def _error_text(error: Any) -> str:
    if not isinstance(error, dict):
        return "failed"
    line = error.get("line")
    where = f" (line {line - 1})" if isinstance(line, int) and line > 1 else ""
    return f"raised {error.get('type')}: {error.get('message')}{where}"


def _sandbox_call(
    runner: SandboxRunner, limits: Limits, what: str, code: str, entrypoint: str,
    cases: list[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Run ``entrypoint`` of ``code`` on ``cases`` in the sandbox; return one record per case."""
    request = wire.encode({"code": code, "entrypoint": entrypoint, "device": "cpu",
                           "cases": [dict(c) for c in cases]})
    return _sandbox_call_result(runner.run(request, limits), limits, what, len(cases))


def _sandbox_call_result(raw: Any, limits: Limits, what: str, n_cases: int
                         ) -> list[dict[str, Any]]:
    why = _why(raw, limits)
    if why is not None:
        raise PackCodeError(f"{what} {why}")
    records, broken = decode_stream(raw.result, limits.result_bytes, n_cases + 1)
    if not records or not isinstance(records[0], dict):
        raise PackCodeError(f"{what} exited before it was loaded (status {raw.exit_code})")
    if not records[0].get("loaded"):
        raise PackCodeError(f"{what} did not load: {_error_text(records[0].get('error'))}")
    out = [r for r in records[1:] if isinstance(r, dict)]
    if broken is not None or len(out) != n_cases:
        raise PackCodeError(f"{what} stopped early ({broken or f'status {raw.exit_code}'})")
    for record in out:
        if not record.get("ok"):
            raise PackCodeError(f"{what} {_error_text(record.get('error'))}")
        if "grad_error" in record:
            raise PackCodeError(f"{what}: backward {_error_text(record['grad_error'])}")
    return out


def _case(args: list[Any]) -> Mapping[str, Any]:
    return {"args": args, "kwargs": {}, "grad": None, "check_inputs": False}


def generate_inputs(
    item: CodeItem, seed: int, runner: SandboxRunner, base: Limits, salt: int | None = None
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Run the pack's generator in the sandbox; return the hidden inputs it drew for ``seed``."""
    what = f"{item.id}: the generator"
    code = PRELUDE + item.code.tests.generator + _GENERATE
    salt = secrets.randbelow(2**31) if salt is None else salt
    (record,) = _sandbox_call(runner, _limits(base, item), what, code, "__tq_generate__",
                              [_case([seed, salt])])
    raw = record.get("output")
    if not isinstance(raw, list) or not raw:
        raise PackCodeError(f"{what}: cases(g) must return a non-empty list")
    if len(raw) > MAX_CASES:
        raise PackCodeError(f"{what}: {len(raw)} cases; at most {MAX_CASES}")
    out = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict) or not isinstance(entry.get("args"), list | tuple):
            raise PackCodeError(f"{what}: case {index} needs an 'args' list")
        kwargs = entry.get("kwargs", {})
        if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise PackCodeError(f"{what}: case {index} 'kwargs' must map str to values")
        for value in (*entry["args"], *kwargs.values()):
            if isinstance(value, wire.Unsupported):
                raise PackCodeError(f"{what}: case {index} holds a {value.type_name}, which "
                                    "cannot be sent to a submission")
        args = wire.decode_tensors(list(entry["args"]))
        out.append((tuple(args), dict(wire.decode_tensors(kwargs))))
    return out


def build_pack_challenge(
    item: CodeItem, runner: SandboxRunner, base: Limits, seed: int | None = None
) -> Challenge:
    """Build ``item``'s challenge: inputs and reference outputs made in the sandbox."""
    spec = item.code
    seed = spec.tests.seed if seed is None else seed
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be between 0 and {MAX_SEED}")
    if spec.requires:
        raise PackCodeError(f"{item.id}: a pack's challenge runs on the CPU; drop 'requires'")
    inputs = generate_inputs(item, seed, runner, base)
    limits = _limits(base, item)
    what = f"{item.id}: the reference solution"
    reference = PRELUDE + spec.solution
    records = _sandbox_call(runner, limits, what, reference, spec.entrypoint,
                            [{"args": list(a), "kwargs": k, "grad": None, "check_inputs": False}
                             for a, k in inputs])
    outputs = [detach_value(wire.decode_tensors(r.get("output"))) for r in records]
    grad = spec.checks.grad
    upstreams: list[torch.Tensor | None] = [None] * len(inputs)
    grads: list[tuple[torch.Tensor | None, ...]] = [()] * len(inputs)
    if grad is not None:
        gen = torch.Generator().manual_seed(grad.upstream_seed)
        cases = []
        for index, ((args, kwargs), output) in enumerate(zip(inputs, outputs, strict=True)):
            if not isinstance(output, torch.Tensor):
                raise PackCodeError(f"{what}: the gradient check needs a tensor result")
            upstream = torch.randn(output.shape, generator=gen, dtype=output.dtype)
            upstreams[index] = upstream
            probe = Case(args=args, kwargs=MappingProxyType(kwargs), expected=output,
                         upstream=upstream)
            for i in grad.wrt:
                if i >= len(args) or not isinstance(args[i], torch.Tensor):
                    raise PackCodeError(f"{item.id}: grad.wrt names argument {i}, not a tensor")
            cases.append(_request_case(probe, spec.checks))
        grad_records = _sandbox_call(runner, limits, what, reference, spec.entrypoint, cases)
        grads = [
            tuple(detach_value(wire.decode_tensors(g)) for g in r.get("grads") or [])
            for r in grad_records
        ]
    built = tuple(
        Case(args=args, kwargs=MappingProxyType(kwargs), expected=output,
             upstream=upstreams[i], expected_grads=grads[i])
        for i, ((args, kwargs), output) in enumerate(zip(inputs, outputs, strict=True))
    )
    return Challenge(
        id=item.id,
        version=item.version,
        seed=seed,
        entrypoint=spec.entrypoint,
        device="cpu",
        checks=spec.checks,
        cases=built,
        param_names=param_names(spec.solution, spec.entrypoint),
        requires=(),
        timeout_s=spec.timeout_s,
        memory_mb=spec.memory_mb,
        request_cases=tuple(_request_case(case, spec.checks) for case in built),
    )


def _shown(entry: Any) -> str:
    if isinstance(entry, dict) and "raised" in entry:
        return f"raised {entry['raised']}"
    if isinstance(entry, dict) and "value" in entry:
        value = entry["value"]
        if isinstance(value, wire.Unsupported):
            return f"<a {value.type_name}, which cannot be shown>"
        return repr(detach_value(wire.decode_tensors(value)))
    return "<nothing>"


def _normalise(text: str) -> str:
    return " ".join(text.split())


def check_pack_challenge(item: CodeItem, runner: SandboxRunner, base: Limits) -> CodeCheck:
    """Run the bank's checks on a pack challenge, all in the sandbox; return what failed."""
    try:
        challenge = build_pack_challenge(item, runner, base)
        again = generate_inputs(item, challenge.seed, runner, base,
                                salt=2**31 + secrets.randbelow(2**31))
    except PackCodeError as exc:
        return CodeCheck(item.id, (str(exc),))
    except wire.WireError as exc:
        return CodeCheck(item.id, (f"{item.id}: the generator's cases cannot be sent ({exc})",))
    problems = []
    first = [(list(c.args), dict(c.kwargs)) for c in challenge.cases]
    if wire.encode(first) != wire.encode([(list(a), k) for a, k in again]):
        problems.append(f"{item.id}: the generator is not deterministic: seed "
                        f"{challenge.seed} drew different cases twice (use the generator g)")
    limits = limits_for(base, challenge)
    for name, source, want_pass in (("reference solution", PRELUDE + item.code.solution, True),
                                    ("starter", item.code.starter, False)):
        raw = runner.run(challenge.request(source), limits)
        status, passed, message = judge(challenge, raw, limits)
        if want_pass and status is not Status.PASSED:
            problems.append(f"{item.id}: the {name} does not pass its hidden tests "
                            f"({status}, {passed}/{challenge.total}: {message})")
        if not want_pass and status is Status.PASSED:
            problems.append(f"{item.id}: the starter already passes the hidden tests")
    if item.code.examples:
        calls = [e.call for e in item.code.examples]
        try:
            (record,) = _sandbox_call(runner, _limits(base, item), f"{item.id}: the examples",
                                      PRELUDE + item.code.solution + _EXAMPLES,
                                      "__tq_examples__", [_case([calls])])
        except PackCodeError as exc:
            problems.append(str(exc))
        else:
            shown = record.get("output")
            shown = shown if isinstance(shown, list) else []
            for example, entry in zip(item.code.examples, shown, strict=False):
                # The value came back as data; its repr is made here, from decoded tensors.
                got = _shown(entry)
                if _normalise(got) != _normalise(example.result):
                    problems.append(f"{item.id}: example {example.call!r} gives {got!r} with "
                                    f"the reference, not {example.result!r}")
    return CodeCheck(item.id, tuple(problems))


def check_pack_card(card: ExplainCard, runner: SandboxRunner, base: Limits) -> CodeCheck:
    """Run a card's example in the sandbox: it must finish cleanly and print as promised."""
    what = f"{card.id}: the example"
    limits = dataclasses.replace(base, wall_s=5.0, cpu_s=5)
    code = PRELUDE + card.example + "\n\ndef __tq_done__():\n    return True\n"
    raw = runner.run(wire.encode({"code": code, "entrypoint": "__tq_done__", "device": "cpu",
                                  "cases": [dict(_case([]))]}), limits)
    try:
        _sandbox_call_result(raw, limits, what, 1)
    except PackCodeError as exc:
        return CodeCheck(card.id, (str(exc),))
    if card.expected_output is not None:
        printed = raw.stdout.decode("utf-8", "replace").strip()
        if printed != card.expected_output.strip():
            return CodeCheck(card.id, (f"{what} printed {printed[:300]!r}, not the "
                                       f"expected_output {card.expected_output.strip()[:300]!r}",))
    return CodeCheck(card.id, ())


class PackChallengeCache:
    """Hand out built pack challenges, each (pack version, item, version, seed) built once."""

    def __init__(self, runner: SandboxRunner, base: Limits | None = None,
                 max_entries: int = 256) -> None:
        self._runner = runner
        self._base = base or Limits()
        self._max = max_entries
        self._built: collections.OrderedDict[tuple[int, str, int, int], Challenge] = (
            collections.OrderedDict())
        self._lock = threading.Lock()

    def get(self, item: CodeItem, pack_version: int, seed: int | None = None) -> Challenge:
        """Return ``item``'s challenge for ``seed``, building it in the sandbox once."""
        key = (pack_version, item.id, item.version,
               item.code.tests.seed if seed is None else seed)
        with self._lock:
            built = self._built.get(key)
            if built is not None:
                self._built.move_to_end(key)
                return built
        built = build_pack_challenge(item, self._runner, self._base, key[3])
        log.info("built pack challenge %s v%d seed %d in the sandbox: %d hidden tests",
                 item.id, item.version, key[3], built.total)
        with self._lock:
            self._built[key] = built
            while len(self._built) > self._max:
                self._built.popitem(last=False)
        return built


@dataclass(frozen=True)
class PackReport:
    """The outcome of validating one pack file: the `pack validate --json` object, and more.

    ``problems`` are ``errors`` as objects (``line``, ``column``, ``item``, ``field``,
    ``message``), in the same order.
    """

    ok: bool
    errors: tuple[str, ...]
    items: int
    cards: int
    pack: Any = None  # content.packs.Pack when it parsed (valid or not)
    problems: tuple[Mapping[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the contract's object: ok, errors, problems, items, cards."""
        return {"ok": self.ok, "errors": list(self.errors),
                "problems": [dict(p) for p in self.problems], "items": self.items,
                "cards": self.cards}


# Which field of a code item a sandboxed check's problem is about, by its words.
_CHECKED_FIELDS = (("generator", "code.tests.generator"), ("example", "code.examples"),
                   ("starter", "code.starter"), ("reference", "code.solution"),
                   ("grad", "code.checks.grad"), ("requires", "code.requires"))


def validate_pack(
    data: bytes, bank: Any, runner: SandboxRunner | None, base: Limits | None = None,
    *, workers: int = 2, budget_s: float = 180.0,
    speed: Callable[[Any], list[str]] | None = None,
) -> PackReport:
    """Check a pack file as the bank is checked; its code runs only through ``runner``.

    ``runner`` None skips nothing silently: every code challenge is then reported as unchecked.
    The challenges share ``budget_s`` of wall time: once it is spent, the challenges not yet
    started are reported as unchecked, so a pack of slow or looping code cannot hold the
    sandbox for an hour (up to three runs of 30 s per challenge).
    """
    from concurrent.futures import ThreadPoolExecutor

    from content.packs import PackProblem, check_pack, item_prefix, parse_pack

    parsed = parse_pack(data)
    problems = list(parsed.problems)
    pack = parsed.pack
    if pack is None:
        return _report(problems, parsed.items, parsed.cards, None)
    problems += check_pack(pack, bank, parsed=parsed)
    prefix = item_prefix(pack.id)

    def sandboxed(item_id: str, text: str, card: bool) -> PackProblem:
        field = "example" if card else next(
            (name for word, name in _CHECKED_FIELDS if word in text.split(":", 1)[-1]), "code")
        return PackProblem("pack", parsed.place(item_id, field), text,
                           item=item_id.removeprefix(prefix), field_name=field)

    code_items = pack.code_items()
    runnable: list[CodeItem | ExplainCard] = [
        *code_items, *sorted(pack.cards.values(), key=lambda c: c.id)]
    if runner is None:
        problems += [PackProblem("pack", parsed.place(i.id), f"{i.id}: not checked (no sandbox)",
                                 item=i.id.removeprefix(prefix)) for i in runnable]
    else:
        deadline = time.monotonic() + budget_s

        def check(item: CodeItem | ExplainCard) -> CodeCheck:
            if time.monotonic() > deadline:
                return CodeCheck(item.id, (f"{item.id}: not checked: the pack's code "
                                           f"took more than {budget_s:g} s together",))
            if isinstance(item, ExplainCard):
                return check_pack_card(item, runner, base or Limits())
            return check_pack_challenge(item, runner, base or Limits())

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            checks = list(pool.map(check, runnable))
        for done in checks:
            card = done.item_id in pack.cards
            problems += [sandboxed(done.item_id, text, card) for text in done.problems]
    # Speed items: their solution must beat their reference by 2x, timed in the sandbox
    # (executors.speed.validation); without a timer each is reported as unchecked.
    for item in pack.speed_items():
        texts = (speed(item) if speed is not None
                 else [f"{item.id}: not checked (no speed timer)"])
        problems += [PackProblem("pack", parsed.place(item.id, "speed.solution"), text,
                                 item=item.id.removeprefix(prefix), field_name="speed.solution")
                     for text in texts]
    return _report(problems, parsed.items, parsed.cards, pack)


def _report(problems: list[Any], items: int, cards: int, pack: Any) -> PackReport:
    from content.packs import problem_json

    return PackReport(not problems, tuple(_problem_text(p) for p in problems), items, cards,
                      pack, tuple(problem_json(p) for p in problems))


def _problem_text(problem: Any) -> str:
    return f"{problem.location}: {problem.message}" if problem.location else problem.message
