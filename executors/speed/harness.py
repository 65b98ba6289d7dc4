"""Make one call of a speed challenge inside the sandbox and write its one record.

Request (wire-encoded)::

    {"speed": 1, "code": str, "entrypoint": str, "inputs": str, "params": {name: int},
     "warm_seed": int, "noop": bool, "device": "cpu"}

The child that runs this is fresh (forked from the warm template for this call alone), so no
cache, thread or patch of an earlier call exists. It makes its inputs with ``make_inputs`` and
a seeded generator and calls the entrypoint (``noop``: a function that does nothing, to
measure the fixed cost). The steps, each a message on the request socket:

1. one untimed call on inputs of ``warm_seed`` (the first use of an op in a fresh process is
   not what a challenge measures), then "warm" to the timer;
2. the timer sends "seed" and the timed call's seed: the child makes those inputs and a copy
   of them, then says "ready". The seed reaches the child only now, after every line of the
   submission that could run before the timed call has run, so no earlier call can work out
   the timed inputs and compute their answer unseen;
3. "go" from the timer: the timed call, then "called";
4. "on" from the timer: the output is checked and one record written to the result pipe:
   ``{"ok": True, "output": value, "in_bytes": int}`` or ``{"ok": False, "error": ERROR}``
   (the ERROR of the code harness).

The time is not measured here: the timer reads the run's cgroup before it says go, when
"called" is in (the call's window: nothing but the call and one small send) and when the
record is in (the rest: checking and encoding). Code that says "called" itself, early, only
moves its work into the rest, which the grader charges to it (executors.speed.grader).
"""

from __future__ import annotations

import socket
import struct
import sys
import types
from typing import Any

from executors.grading import wire
from executors.zygote import harness
from executors.zygote.child import REQUEST_FD

INPUTS_FILENAME = "<inputs>"


class SpeedError(Exception):
    """Refuse an output the grader must not accept (an alias of an input, a changed input)."""


def _module(name: str, code: str, filename: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__["__builtins__"] = __builtins__
    exec(compile(code, filename, "exec", dont_inherit=True), module.__dict__)  # noqa: S102
    return module


def _tensors(value: Any) -> list[Any]:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _tensors(item)]
    return []


def _storage_span(tensor: Any) -> tuple[int, int]:
    storage = tensor.untyped_storage()
    start = int(storage.data_ptr())
    return start, start + int(storage.nbytes())


def check_output(output: Any, inputs: list[Any], before: list[Any]) -> None:
    """Refuse an output that shares memory with an input, or an input the call changed."""
    import torch

    if not isinstance(output, torch.Tensor | list | tuple | int | float) or isinstance(
        output, bool
    ):
        raise SpeedError(f"the entrypoint returned {type(output).__name__}; return a tensor, "
                         "a tuple of tensors or a number")
    for out in _tensors(output):
        if type(out) is not torch.Tensor:
            raise SpeedError("the entrypoint returned a tensor subclass; return a plain tensor")
        if out.layout is not torch.strided or out.is_meta:
            raise SpeedError("the entrypoint returned a tensor that holds no values")
        lo, hi = _storage_span(out)
        for arg in inputs:
            a_lo, a_hi = _storage_span(arg)
            if lo < a_hi and a_lo < hi and hi > lo:
                raise SpeedError("the result shares memory with an input (a view or the input "
                                 "itself); return a new tensor")
    for arg, copy in zip(inputs, before, strict=True):
        same = (torch.allclose(arg, copy, rtol=0.0, atol=0.0, equal_nan=True)
                if arg.is_floating_point() or arg.is_complex() else torch.equal(arg, copy))
        if arg.shape != copy.shape or arg.dtype != copy.dtype or not same:
            raise SpeedError("the entrypoint changed its input; leave the inputs as they are")


SEED = struct.Struct("<q")


def _expect(sock: socket.socket, word: bytes) -> bytes:
    """Wait for the timer's next message, which starts with ``word``; return what follows."""
    message = sock.recv(64)
    if not message.startswith(word):
        raise harness.RequestError(f"the timer did not say {word.decode()}")
    return message[len(word):]


def _noop(*_args: Any) -> None:
    return None


def run(raw: dict[str, Any], result_fd: int) -> int:
    """Make the inputs, call the entrypoint once, check it, write the record."""
    import torch

    writer = harness._Writer(result_fd)
    sock = socket.socket(fileno=REQUEST_FD)
    try:
        for name in ("code", "entrypoint", "inputs"):
            if not isinstance(raw.get(name), str):
                raise harness.RequestError(f"{name} must be a string")
        params = raw.get("params")
        if not isinstance(params, dict):
            raise harness.RequestError("params must be a dict")
        make_inputs = _module("inputs", raw["inputs"], INPUTS_FILENAME).make_inputs
        if raw.get("noop"):
            fn: Any = _noop
        else:
            module = _module("submission", raw["code"], harness.SUBMISSION_FILENAME)
            fn = module.__dict__.get(raw["entrypoint"])
            if not callable(fn):
                raise NameError(f"no function named {raw['entrypoint']!r}")
        warm_seed = raw.get("warm_seed")
        if type(warm_seed) is int:
            fn(*make_inputs(torch.Generator().manual_seed(warm_seed), **params))
        harness._flush_stdio()
        sock.send(b"warm")
        (seed,) = SEED.unpack(_expect(sock, b"seed"))
        args = tuple(make_inputs(torch.Generator().manual_seed(seed), **params))
        inputs = [a for a in args if isinstance(a, torch.Tensor)]
        before = [a.clone() for a in inputs]
        sock.send(b"ready")
        _expect(sock, b"go")
        output = fn(*args)
        sock.send(b"called")
        _expect(sock, b"on")
        if not raw.get("noop"):
            check_output(output, inputs, before)
        in_bytes = sum(int(a.nbytes) for a in inputs)
        record: dict[str, Any] = {"ok": True, "output": output, "in_bytes": in_bytes}
    except BaseException as exc:
        record = {"ok": False, "error": harness._describe(exc)}
    finally:
        sock.close()
    writer.write(record)
    harness._flush_stdio()
    return 0


def run_bytes(data: bytes, result_fd: int, *, device: str = "cpu",
              gpu_memory_fraction: float = 0.25) -> int:
    """Parse a speed request and run it (the child's entry, in place of the code harness)."""
    harness._fresh_stdio()
    sys.dont_write_bytecode = True
    try:
        raw = wire.decode(data, max_bytes=len(data), max_depth=8, max_items=1000)
        if not isinstance(raw, dict) or raw.get("speed") != 1:
            raise harness.RequestError("not a speed request")
        if raw.get("device", "cpu") != device or device != "cpu":
            raise harness.RequestError(f"a speed request for {raw.get('device')!r} reached a "
                                       f"{device} sandbox")
    except (wire.WireError, harness.RequestError) as exc:
        harness._Writer(result_fd).write({"ok": False, "error": harness._describe(exc)})
        return 2
    return run(raw, result_fd)
