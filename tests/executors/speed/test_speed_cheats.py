"""Cheats from the kernel leaderboards' history: each gets an ordinary verdict, never a rank.

Every submission here is hostile and runs only through the real timer's sandbox. The row-norms
challenge's reference squares and sums in float64; its fast solution is one float32 reduction,
about 5 to 40 times faster.
"""

from __future__ import annotations

import pytest

from executors.grading.verdict import Status
from executors.speed.grader import SpeedGrader

pytestmark = pytest.mark.sandbox

REFERENCE_BODY = """
def _slow(x):
    wide = x.double()
    return (wide * wide).sum(dim=1).sqrt().float()
"""


def _grade(timer, item, code, seed=11):
    return SpeedGrader(timer).run(item, code, seed=seed)


def _not_ranked(verdict):
    """Say whether the verdict gives no rank: wrong, not faster, or held for an admin."""
    speed = verdict.speed
    return verdict.status is not Status.PASSED or speed is None or speed["held"]


CACHE = "import torch\n" + REFERENCE_BODY + """
_cache = {}

def row_norms(x):
    key = x.numpy().tobytes()
    if key not in _cache:
        _cache[key] = _slow(x)
    return _cache[key].clone()
"""

IMPORT_WORK = "import torch\n" + REFERENCE_BODY + """
_known = {}
for seed in range(40):   # guess the seeds and shapes, precompute at import
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(4096, 64, generator=g)
    _known[x.numpy().tobytes()] = torch.linalg.vector_norm(x, dim=1)

def row_norms(x):
    hit = _known.get(x.numpy().tobytes())
    return hit.clone() if hit is not None else _slow(x)
"""

PATCHED_TIMERS = "import time\nimport torch\n" + REFERENCE_BODY + """
for name in ("time", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
             "process_time", "process_time_ns", "thread_time"):
    setattr(time, name, lambda *a: 0)
torch.cuda.Event = lambda *a, **k: None
torch.cuda.synchronize = lambda *a, **k: None
torch.utils.benchmark = None

def row_norms(x):
    return _slow(x)
"""

BACKGROUND_THREAD = "import threading\nimport torch\n" + REFERENCE_BODY + """
def _spin():
    n = 0
    while True:
        n += 1

threading.Thread(target=_spin, daemon=True).start()

def row_norms(x):
    return torch.linalg.vector_norm(x, dim=1)
"""

BACKGROUND_PROCESS = "import os\nimport torch\n" + REFERENCE_BODY + """
if os.fork() == 0:
    n = 0
    while True:
        n += 1

def row_norms(x):
    return torch.linalg.vector_norm(x, dim=1)
"""

FIRST_CALLS = "import torch\n" + REFERENCE_BODY + """
_calls = 0

def row_norms(x):
    # Honest on the first calls (the ones a checker looks at), a cheap guess afterwards.
    global _calls
    _calls += 1
    return _slow(x) if _calls <= 3 else torch.zeros(x.shape[0])
"""

ONE_SHAPE = "import torch\n" + REFERENCE_BODY + """
def row_norms(x):
    if tuple(x.shape) == (4096, 64):
        return torch.linalg.vector_norm(x, dim=1)
    return _slow(x)
"""

WARM_PEEK = "import sys\nimport torch\n" + REFERENCE_BODY + """
_answer = None

def row_norms(x):
    # On the untimed warm-up call, look up the timed call's seed in the harness's frame and
    # compute that call's answer now, unseen; the timed call would only copy it.
    global _answer
    if _answer is None:
        frame = sys._getframe(1)
        raw, make = frame.f_locals.get("raw") or {}, frame.f_locals.get("make_inputs")
        seed = raw.get("seed") if isinstance(raw, dict) else None
        if isinstance(seed, int) and make is not None:
            (timed,) = make(torch.Generator().manual_seed(seed), **frame.f_locals["params"])
            _answer = _slow(timed)
        else:
            _answer = False
        return _slow(x)
    return _answer.clone() if _answer is not False else _slow(x)
"""

CALLED_EARLY = "import socket\nimport torch\n" + REFERENCE_BODY + """
_calls = 0

def row_norms(x):
    # On the timed call (the second in this process), say "called" on the harness's socket at
    # once, so the timer closes the window before the work starts; the work then runs while
    # the output is "being checked".
    global _calls
    _calls += 1
    if _calls == 2:
        sock = socket.socket(fileno=3)
        sock.send(b"called")
        sock.detach()
    return _slow(x)
"""

OUT_OF_STEP = "import socket\nimport torch\n" + REFERENCE_BODY + """
def row_norms(x):
    sock = socket.socket(fileno=3)
    sock.send(b"ready")   # not what the timer waits for now
    sock.detach()
    return _slow(x)
"""

READ_REFERENCE = """import gc, os
import torch

needle = "(wide * " + "wide).sum(dim=1)"
found = []
# Walked inside a function: at module level the loop's own names would be new keys of the
# globals dict it is walking.
def strings_holding(text):
    for obj in gc.get_objects():
        for value in (list(obj.values()) if isinstance(obj, dict) else ()):
            if isinstance(value, str) and value is not text and text in value:
                yield value
if any(True for _ in strings_holding(needle)):
    found.append("memory")
for root in ("/",):
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "usr", "lib", "lib64",
                                                "site-packages", ".venv", ".pyenv")]
        for name in files:
            path = os.path.join(dirpath, name)
            if name.startswith("speed") or "questions" in path or "fixtures" in path:
                found.append(path)
print("found:", sorted(set(found)) or "nothing")

def row_norms(x):
    out = torch.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i].dot(x[i]).sqrt()
    return out
"""

CHANGE_REFERENCE = """import torch

# Make what the reference uses burn CPU (about a tenth of a second a call), hoping it reaches
# the reference's process too: the reference would then look a hundred times slower.
def _burn(*a, **k):
    n = 0
    for _ in range(2_000_000):
        n += 1

_sqrt = torch.Tensor.sqrt
torch.Tensor.sqrt = lambda self: (_burn(), _sqrt(self))[1]
_double = torch.Tensor.double
torch.Tensor.double = lambda self, *a, **k: (_burn(), _double(self, *a, **k))[1]

def row_norms(x):
    return torch.linalg.vector_norm(x, dim=1)
"""

@pytest.mark.parametrize("code", [CACHE, IMPORT_WORK, PATCHED_TIMERS, FIRST_CALLS, ONE_SHAPE,
                                  WARM_PEEK, CALLED_EARLY],
                         ids=["cache-keyed-by-input", "work-at-import", "patched-timers",
                              "honest-first-calls", "fast-path-for-one-shape",
                              "answer-worked-out-during-the-warm-up", "called-said-early"])
def test_a_cheat_that_stays_correct_is_not_faster(speed_timer, row_norms, code):
    verdict = _grade(speed_timer, row_norms, code)
    assert verdict.status is Status.FAILED, verdict.message
    assert verdict.speed is not None and verdict.speed["faster"] is False
    assert verdict.passed_tests == verdict.total_tests  # correct at every call, just not fast


@pytest.mark.parametrize("code", [BACKGROUND_THREAD, BACKGROUND_PROCESS],
                         ids=["thread", "child-process"])
def test_work_beside_the_call_is_counted_by_the_kernel(speed_timer, row_norms, code):
    verdict = _grade(speed_timer, row_norms, code)
    assert _not_ranked(verdict), verdict.message
    if verdict.speed is not None:  # timed: the spinner's CPU time made it slow, not fast
        assert verdict.speed["faster"] is False


def test_a_view_of_the_input_is_refused(speed_timer, row_norms):
    code = ("import torch\n\ndef row_norms(x):\n    x[:, 0] = torch.linalg.vector_norm(x, dim=1)\n"
            "    return x[:, 0]\n")
    verdict = _grade(speed_timer, row_norms, code)
    assert verdict.status is Status.FAILED and "shares memory with an input" in verdict.message


def test_a_tensor_subclass_is_refused(speed_timer, row_norms):
    code = ("import torch\n\nclass Lazy(torch.Tensor):\n    pass\n\n"
            "def row_norms(x):\n    return torch.linalg.vector_norm(x, dim=1).as_subclass(Lazy)\n")
    verdict = _grade(speed_timer, row_norms, code)
    assert verdict.status is Status.FAILED and "subclass" in verdict.message


def test_nan_or_inf_does_not_slip_through_the_tolerance(speed_timer, row_norms):
    code = ("import torch\n\ndef row_norms(x):\n    out = torch.linalg.vector_norm(x, dim=1)\n"
            "    out[0] = float('nan')\n    out[1] = float('inf')\n    return out\n")
    verdict = _grade(speed_timer, row_norms, code)
    assert verdict.status is Status.FAILED and "NaN or inf" in verdict.message


def test_the_reference_cannot_be_read_from_the_sandbox(speed_timer, row_norms):
    verdict = _grade(speed_timer, row_norms, READ_REFERENCE)
    assert "found: nothing" in verdict.stdout, (verdict.stdout, verdict.message)
    assert verdict.speed is not None and verdict.speed["faster"] is False, verdict.message


def test_patching_torch_does_not_reach_the_reference(speed_timer, row_norms):
    verdict = _grade(speed_timer, row_norms, CHANGE_REFERENCE)
    # The reference ran in other children, unpatched: each of its calls took milliseconds, not
    # the tenth of a second that the two patched methods would have added to it.
    assert verdict.speed is not None, verdict.message
    assert all(s["reference_ms"] < 50 for s in verdict.speed["shapes"]), verdict.speed


def test_code_that_talks_out_of_step_to_the_timer_is_stopped_at_once(speed_timer, row_norms):
    verdict = _grade(speed_timer, row_norms, OUT_OF_STEP)
    # Stopped when it spoke, not left to run into the call's time limit.
    assert verdict.status is Status.ERROR and "out of step" in verdict.message, verdict.message
