#!/usr/bin/env bash
# Check the executor on a GPU machine: CUDA challenges, GPU red-team cases, latency figures.
#
# Run from anywhere on a machine with a CUDA build of torch (builds nothing, installs nothing):
#     PYTHON=python3 scripts/gpu_check.sh
# It runs, through LocalExecutor and the real zygote:
#   * every bank challenge with `requires: [cuda]` (reference passes, starter does not, every
#     fixture in tests/fixtures/submissions gets its `# expect:` verdict), plus a
#     small inline CUDA challenge written to a temporary content dir (always, so the red-team
#     cases have a known entrypoint even when the bank has CUDA challenges of its own);
#   * a result left on the CPU -> failed (device mismatch);
#   * GPU memory beyond the per-child fraction -> memory_limit;
#   * a kernel that never ends (torch.cuda._sleep) and a Python loop of kernels -> timeout;
#   * the reference again afterwards -> passed (the GPU recovered, nothing leaked);
#   * the first GPU verdict of a fresh executor, with its child forked on request and with a
#     child already waiting with its CUDA context made (the prewarm), side by side;
#   * latency p50/p95: sequential GPU runs, sequential CPU runs, and 64 GPU runs from 16 threads.
# Exit: 0 all checks passed; 1 a check failed; 2 a Python package is missing; 3 every check
# passed but only without the sandbox layers this machine lacks (listed in the output).
# Without CUDA it says so and exits 0: there is nothing to check.
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
BUDGET_S="${GPU_CHECK_BUDGET_S:-450}"  # stays under 8 minutes with start-up included

if ! cuda_line=$("$PY" -c '
import torch
print("yes" if torch.cuda.is_available() else "no", torch.__version__, torch.version.cuda)
' 2>&1); then
    echo "gpu_check: cannot import torch with $PY: ${cuda_line##*$'\n'}" >&2
    exit 2
fi
if [[ "$cuda_line" != yes* ]]; then
    read -r _ torch_version cuda_version <<<"$cuda_line"
    echo "gpu_check: CUDA is not available here (torch $torch_version, built for CUDA" \
         "$cuda_version); nothing to check. Run this on a GPU machine."
    exit 0
fi

missing=$("$PY" - <<'EOF'
import importlib.util
need = ["yaml", "pydantic", "pyseccomp"]
print(" ".join(n for n in need if importlib.util.find_spec(n) is None))
EOF
)
if [[ -n "$missing" && "$missing" != "pyseccomp" ]]; then
    echo "gpu_check: missing Python packages: $missing (carry them as wheels)" >&2
    exit 2
fi
[[ "$missing" == *pyseccomp* ]] && echo "gpu_check: pyseccomp missing: the seccomp layer will be off"

export PYTHONUNBUFFERED=1
exec timeout --kill-after=10 "$BUDGET_S" "$PY" - <<'EOF'
import logging
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from content.loader import Bank, load_bank
from executors.cli.exec_command import content_root
from executors.isolation.limits import Limits
from executors.engine import LocalExecutor
from executors.grading.verdict import Status
from executors.zygote.supervisor import SandboxUnavailable, Zygote

logging.basicConfig(level=logging.WARNING)
REPO = Path.cwd()  # the script cds to the repository root before starting Python
INLINE_ID = "code.gpu-check-scaled-add"
INLINE = {
    "id": INLINE_ID,
    "version": 1,
    "kind": "code",
    "topics": ["devices"],
    "difficulty": 1,
    "seed_refs": ["000:1"],
    "prompt": {"en": "Return x + alpha * y on the GPU.", "zh-CN": "在 GPU 上返回 x + alpha * y。"},
    "explanation": {"en": "Inline GPU check.", "zh-CN": "内置 GPU 检查。"},
    "code": {
        "entrypoint": "scaled_add",
        "signature": "def scaled_add(x, y, alpha)",
        "starter": "def scaled_add(x, y, alpha):\n    ...\n",
        "solution": "def scaled_add(x, y, alpha):\n    return x + alpha * y\n",
        "tests": {
            "seed": 7,
            "generator": (
                "import torch\n"
                "def cases(g):\n"
                "    out = []\n"
                "    for n in (4, 1000, 65536):\n"
                "        out.append({'args': [torch.randn(n, generator=g),"
                " torch.randn(n, generator=g), 0.5]})\n"
                "    return out\n"
            ),
        },
        "requires": ["cuda"],
        "timeout_s": 10,
        "memory_mb": 2048,
    },
}
HEADER = "import torch\n\ndef scaled_add(x, y, alpha):\n"


def body(text):
    return HEADER + "".join("    " + line + "\n" for line in text.strip().splitlines())


def main():
    started = time.monotonic()
    bank = load_bank(content_root())
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "questions").mkdir()
        (Path(tmp) / "questions" / "gpu-check.yaml").write_text(
            yaml.safe_dump({"items": [INLINE]}, allow_unicode=True), encoding="utf-8"
        )
        extra = load_bank(Path(tmp))
    merged = Bank(questions={**bank.questions, **extra.questions}, cards=bank.cards)
    cuda_items = [i for i in merged.code_items() if "cuda" in i.code.requires]
    cpu_items = [i for i in merged.code_items() if "cuda" not in i.code.requires]
    print(f"bank: {len(cuda_items)} CUDA challenges ({', '.join(i.id for i in cuda_items)}), "
          f"{len(cpu_items)} CPU")

    limits = Limits()
    degraded = ""
    zygote = Zygote(limits, max_parallel=8)
    try:
        zygote.start()
    except SandboxUnavailable as exc:
        degraded = str(exc)
        print(f"WARNING: {degraded}")
        print("WARNING: continuing WITHOUT those layers to check the GPU path")
        zygote = Zygote(limits, insecure=True, max_parallel=8)
        zygote.start()
    off = [name for name, s in zygote.layers().items() if not s.active]
    print(f"sandbox layers off: {', '.join(off) or 'none'}")

    failures = []

    class NoWarm:
        """The zygote without its warm(): a GPU child is forked only when a request comes."""

        def __init__(self, inner):
            self.inner = inner

        def run(self, request, limits):
            return self.inner.run(request, limits)

        def close(self):
            self.inner.close()

    def first_gpu_verdict(label, warm):
        fresh = Zygote(limits, insecure=bool(degraded), max_parallel=2)
        fresh.start()
        with LocalExecutor(merged, fresh if warm else NoWarm(fresh), cuda_available=True) as ex:
            time.sleep(5)  # the same pause for both; the warm one makes its context meanwhile
            t = time.monotonic()
            v = ex.run(INLINE_ID, INLINE["code"]["solution"])
            ms = (time.monotonic() - t) * 1000
            waited = fresh.timelines_recent[-1].get("waited_for_setup", float("nan"))
            print(f"first GPU verdict, {label:<28} {ms:7.0f} ms  (waited for its child "
                  f"{waited:6.0f} ms)  {v.status}")
            if v.status is not Status.PASSED:
                failures.append(f"first GPU verdict, {label}")

    first_gpu_verdict("child forked on request", warm=False)
    first_gpu_verdict("child waiting, context made", warm=True)

    def check(name, challenge_id, code, want, fragment=""):
        t = time.monotonic()
        v = executor.run(challenge_id, code)
        ms = (time.monotonic() - t) * 1000
        ok = (v.status is want if isinstance(want, Status) else v.status not in want) and (
            fragment in v.message
        )
        print(f"{'OK  ' if ok else 'FAIL'} {name:<44} {v.status:<12} {v.passed_tests}/"
              f"{v.total_tests} {ms:7.0f} ms  {v.message[:110]}")
        if not ok:
            failures.append(name)
            if v.stderr:
                print("     stderr:", v.stderr[-400:].replace("\n", "\n     "))
        return v

    with LocalExecutor(merged, zygote, cuda_available=True) as executor:
        submissions = REPO / "tests" / "fixtures" / "submissions"
        for item in cuda_items:
            check(f"{item.id} reference", item.id, item.code.solution, Status.PASSED)
            check(f"{item.id} starter", item.id, item.code.starter, {Status.PASSED})
            # Every fixture of a challenge that requires cuda: the CPU suite cannot grade them.
            for path in sorted((submissions / item.id).glob("*.py")):
                source = path.read_text(encoding="utf-8")
                if path.name.startswith("correct_"):
                    check(f"{item.id}/{path.name}", item.id, source, Status.PASSED)
                    continue
                status, _, fragment = source.splitlines()[0].removeprefix("# expect: ").partition(" ")
                check(f"{item.id}/{path.name}", item.id, source, Status(status), fragment.strip())
        frac = limits.gpu_memory_fraction
        check("result left on the CPU", INLINE_ID, body("return (x + alpha * y).cpu()"),
              Status.FAILED, "device mismatch")
        check(f"GPU memory beyond the {frac:.0%} fraction", INLINE_ID, body(f"""
total = torch.cuda.get_device_properties(0).total_memory
hog = torch.empty(int(total * {min(0.95, frac + 0.35)}), dtype=torch.uint8, device=x.device)
return x + alpha * y + hog[:1].float()
"""), Status.MEMORY_LIMIT)
        check("a kernel that never ends", INLINE_ID, body("""
torch.cuda._sleep(10**13)
torch.cuda.synchronize()
return x + alpha * y
"""), Status.TIMEOUT)
        check("a loop of kernels that never ends", INLINE_ID, body("""
while True:
    x = x * 1.0000001
    torch.cuda.synchronize()
"""), Status.TIMEOUT)
        check("reference after the red-team runs", INLINE_ID, INLINE["code"]["solution"],
              Status.PASSED)

        def latency(label, challenge_id, code, n, threads=1):
            def one(_):
                t = time.monotonic()
                v = executor.run(challenge_id, code)
                return (time.monotonic() - t) * 1000, v.status

            with ThreadPoolExecutor(max_workers=threads) as pool:
                results = list(pool.map(one, range(n)))
            times = sorted(ms for ms, _ in results)
            bad = sum(status is not Status.PASSED for _, status in results)
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            print(f"latency {label:<40} n={n:<3} threads={threads:<2} "
                  f"p50 {statistics.median(times):6.0f} ms  p95 {p95:6.0f} ms  not passed: {bad}")
            if bad:
                failures.append(f"latency {label}")

        latency("GPU, sequential", INLINE_ID, INLINE["code"]["solution"], 20)
        if cpu_items:
            latency(f"CPU ({cpu_items[0].id}), sequential", cpu_items[0].id,
                    cpu_items[0].code.solution, 20)
        latency("GPU, concurrent", INLINE_ID, INLINE["code"]["solution"], 64, threads=16)
    print(f"gpu_check: {len(failures)} failed in {time.monotonic() - started:.0f} s"
          + (f": {', '.join(failures)}" if failures else ""))
    if failures:
        return 1
    return 3 if degraded or off else 0


sys.exit(main())
EOF
