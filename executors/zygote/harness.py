"""Run one submission against its test inputs, inside the sandbox, and stream the results.

Request (wire-encoded)::

    {"code": str, "entrypoint": str, "device": "cpu" | "cuda",
     "cases": [{"args": [...], "kwargs": {...},
                "grad": {"wrt": [arg index, ...], "upstream": tensor} | None,
                "check_inputs": bool}, ...]}

Records written to ``result_fd``, each ``wire.frame``-d (4-byte big-endian length + wire data):
first ``{"loaded": True}`` or ``{"loaded": False, "error": ERROR}``, then per case
``{"case": i, "ok": True, "output": value, "grads": [...], "inputs_after": [...]}`` (the last
two only when asked; ``"grad_error": ERROR`` replaces ``grads`` when backward raised) or
``{"case": i, "ok": False, "error": ERROR}``, where ERROR is
``{"type": str, "message": str, "memory": bool, "line": int | None}``. A stream that stops
mid-frame or before the last case means the run was killed or the user code exited early.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import traceback
import types
from dataclasses import dataclass
from typing import Any

from executors.grading import wire

SUBMISSION_FILENAME = "<submission>"
MESSAGE_CAP = 500
REQUEST_MAX_DEPTH = 32
_MEMORY_MARKERS = ("can't allocate memory", "out of memory", "cannot allocate memory")


class RequestError(ValueError):
    """Reject a request that does not have the documented shape (a grader bug, not a user's)."""


@dataclass(frozen=True)
class Case:
    """Hold one test case as decoded, still free of torch objects."""

    args: list[Any]
    kwargs: dict[str, Any]
    wrt: list[int] | None
    upstream: Any
    check_inputs: bool


@dataclass(frozen=True)
class Request:
    """Hold a decoded harness request."""

    code: str
    entrypoint: str
    device: str
    cases: list[Case]


def parse_request(data: bytes, *, max_bytes: int) -> Request:
    """Decode and validate a request without importing torch."""
    raw = wire.decode(data, max_bytes=max_bytes, max_depth=REQUEST_MAX_DEPTH, max_items=10**6)
    if not isinstance(raw, dict):
        raise RequestError("request must be a dict")
    code, entrypoint, device = raw.get("code"), raw.get("entrypoint"), raw.get("device", "cpu")
    if not isinstance(code, str) or not isinstance(entrypoint, str) or not entrypoint:
        raise RequestError("code and entrypoint must be strings")
    if device not in ("cpu", "cuda"):
        raise RequestError("device must be cpu or cuda")
    cases_raw = raw.get("cases")
    if not isinstance(cases_raw, list):
        raise RequestError("cases must be a list")
    cases = []
    for item in cases_raw:
        if not isinstance(item, dict):
            raise RequestError("each case must be a dict")
        args, kwargs = item.get("args", []), item.get("kwargs", {})
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise RequestError("args must be a list and kwargs a dict")
        grad = item.get("grad")
        wrt, upstream = None, None
        if grad is not None:
            if not isinstance(grad, dict) or not isinstance(grad.get("wrt"), list):
                raise RequestError("grad must be {'wrt': [...], 'upstream': tensor}")
            wrt = grad["wrt"]
            if not all(type(i) is int and 0 <= i < len(args) for i in wrt):
                raise RequestError("grad.wrt must index args")
            upstream = grad.get("upstream")
        cases.append(Case(args, kwargs, wrt, upstream, bool(item.get("check_inputs", False))))
    return Request(code, entrypoint, device, cases)


def _clean(text: str) -> str:
    """Escape lone surrogates, which the trusted side refuses as not valid Unicode."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _describe(exc: BaseException) -> dict[str, Any]:
    # The user controls the exception object: every step that calls into it is guarded.
    try:
        type_name = type(exc).__name__
    except Exception:
        type_name = "Exception"
    try:
        text = str(exc)
    except Exception:
        text = ""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    message = (lines[-1] if lines else "")[:MESSAGE_CAP]
    line_no = None
    try:
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == SUBMISSION_FILENAME:
                line_no = frame.lineno
    except Exception:  # noqa: S110 - a line number is a nicety; never fail on it
        pass
    memory = isinstance(exc, MemoryError) or type_name == "OutOfMemoryError"
    memory = memory or any(marker in text.lower() for marker in _MEMORY_MARKERS)
    return {"type": _clean(str(type_name)[:100]), "message": _clean(message), "memory": memory,
            "line": line_no}


class _Writer:
    """Write framed records; a record that cannot be encoded becomes an error record."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, record: dict[str, Any]) -> None:
        try:
            payload = wire.encode(record)
        except Exception as exc:
            fallback: dict[str, Any] = {
                "ok": False,
                "error": {"type": "WireError", "message": f"result not encodable: {exc}"[:500],
                          "memory": False, "line": None},
            }  # fmt: skip
            if "case" in record:
                fallback["case"] = record["case"]
            else:
                fallback = {"loaded": False, "error": fallback["error"]}
            payload = wire.encode(fallback)
        view = memoryview(wire.frame(payload))
        while view:
            written = os.write(self.fd, view)
            view = view[written:]


def _load(code: str) -> types.ModuleType:
    module = types.ModuleType("submission")
    module.__dict__["__builtins__"] = __builtins__
    compiled = compile(code, SUBMISSION_FILENAME, "exec", dont_inherit=True)
    exec(compiled, module.__dict__)  # noqa: S102 - this is the job: inside the sandbox only
    return module


def _run_case(fn: Any, case: Case, device: str, index: int) -> dict[str, Any]:
    import torch

    args = wire.decode_tensors(case.args, device=device)
    kwargs = wire.decode_tensors(case.kwargs, device=device)
    output = fn(*args, **kwargs)
    record: dict[str, Any] = {"case": index, "ok": True, "output": output}
    if case.wrt is not None:
        # A failing backward is reported next to the output: the output may still be right.
        try:
            upstream = wire.decode_tensors(case.upstream, device=device)
            if not isinstance(output, torch.Tensor):
                raise TypeError("the entrypoint must return a tensor for the gradient check")
            torch.autograd.backward(output, upstream)
            record["grads"] = [
                args[i].grad if isinstance(args[i], torch.Tensor) else None for i in case.wrt
            ]
        except BaseException as exc:
            record["grad_error"] = _describe(exc)
    if case.check_inputs:
        record["inputs_after"] = list(args)
    return record


def _fresh_stdio() -> None:
    # The inherited sys.stdout may hold a buffer from the zygote's life; start clean, line
    # buffered so output printed before a timeout still reaches the user.
    for fd, name in ((1, "stdout"), (2, "stderr")):
        stream = io.TextIOWrapper(
            io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
            line_buffering=True,
        )  # fmt: skip
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        # User code may have replaced or closed them.
        with contextlib.suppress(Exception):
            stream.flush()


# What this child's device preparation came to: set once, before the request arrives.
_prepared_device: str | None = None
_device_error: str | None = None


def prepare_device(device: str, gpu_memory_fraction: float, cuda: Any = None) -> None:
    """Create this child's CUDA context and cuBLAS handle now, while it waits for a request.

    A CUDA context costs hundreds of milliseconds, and the first matrix product another round
    for cuBLAS: paid here, inside the sandbox and under the run's memory fraction, a GPU verdict
    does not wait for them. Never raises: a failure is kept and the run reports it, so a
    child on a machine whose GPU went away still answers with a clear record.
    """
    global _prepared_device, _device_error
    if device != "cuda" or _prepared_device == device:
        return
    try:
        if cuda is None:
            import torch

            cuda = torch.cuda
        if not cuda.is_available():
            raise RuntimeError("CUDA is unavailable on this executor")
        cuda.init()
        cuda.set_per_process_memory_fraction(gpu_memory_fraction)
        cuda.current_blas_handle()  # creates the context on the current device, then cuBLAS
        cuda.synchronize()
    except Exception as exc:
        _device_error = str(exc) or type(exc).__name__
    else:
        _prepared_device = device


def setup_device(device: str, gpu_memory_fraction: float) -> None:
    """Make sure the device is prepared (usually already done while waiting); raise if not."""
    if device != "cuda":
        return
    if _device_error is None:
        prepare_device(device, gpu_memory_fraction)
    if _prepared_device != device:
        raise RuntimeError(_device_error or "CUDA is unavailable on this executor")


def run(request: Request, result_fd: int, *, gpu_memory_fraction: float = 0.25) -> int:
    """Load the submission, run every case, stream one record per case; return an exit code."""
    _fresh_stdio()
    sys.dont_write_bytecode = True
    writer = _Writer(result_fd)
    try:
        setup_device(request.device, gpu_memory_fraction)
        module = _load(request.code)
        fn = module.__dict__.get(request.entrypoint)
        if not callable(fn):
            raise NameError(f"no function named {request.entrypoint!r}")
    except BaseException as exc:
        writer.write({"loaded": False, "error": _describe(exc)})
        _flush_stdio()
        return 0
    writer.write({"loaded": True})
    for index, case in enumerate(request.cases):
        try:
            record = _run_case(fn, case, request.device, index)
        except BaseException as exc:
            record = {"case": index, "ok": False, "error": _describe(exc)}
        writer.write(record)
    _flush_stdio()
    return 0


def run_bytes(
    data: bytes, result_fd: int, *, device: str = "cpu", gpu_memory_fraction: float = 0.25
) -> int:
    """Parse a request and run it in a child prepared for ``device``; a bad request is a record."""
    try:
        request = parse_request(data, max_bytes=len(data))
        if request.device != device:
            raise RequestError(f"request for {request.device} reached a {device} sandbox")
    except (wire.WireError, RequestError) as exc:
        _fresh_stdio()
        _Writer(result_fd).write({"loaded": False, "error": _describe(exc)})
        return 2
    return run(request, result_fd, gpu_memory_fraction=gpu_memory_fraction)


def main(request: bytes, result_fd: int, *, max_bytes: int = 64 * 1024 * 1024) -> int:
    """Decode a request and run it; used by the sandbox child and by tests."""
    return run(parse_request(request, max_bytes=max_bytes), result_fd)
