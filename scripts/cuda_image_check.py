"""Build the executor image with the default (CUDA) torch from the package index and try it.

    .venv/bin/python scripts/cuda_image_check.py OUT_DIR

As root, on the throwaway engine of scripts/docker-test-engine.sh (started and stopped here).
It builds a local Debian base (no registry is reachable from these machines), then the
executor target with TORCH_INDEX_URL unset, so pip takes the CUDA build of torch==TORCH_VERSION
from the index, records the build time and the image size, runs the image as documented on
this GPU-less machine, grades a CPU challenge over HTTP and checks that a CUDA challenge is
refused with a clear message. Prints one JSON object; exit 0 when every check held.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from content.loader import load_bank  # noqa: E402
from executors.service.client import ExecutorClient  # noqa: E402
from tests.deploy import images  # noqa: E402
from tests.deploy.test_container import _free_port, _health, documented_flags  # noqa: E402

TAG = "torchquiz-executor:cuda-check"
TOKEN = "cuda-image-check-token"  # noqa: S105 - a throwaway container on loopback
CPU_CHALLENGE = "code.one-hot"


def _engine(out: Path) -> str:
    host = subprocess.run([str(REPO / "scripts/docker-test-engine.sh"), "start", str(out)],  # noqa: S603
                          capture_output=True, text=True, check=True).stdout.strip()
    os.environ["TORCHQUIZ_TEST_DOCKER_HOST"] = host
    return host


def _build(out: Path, log: Path) -> float:
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        work = Path(tmp)
        images.build_base(work, log)
        context = work / "context"
        images.export_context(context, None)
        images.BUILD_TIMEOUT_S = 3600  # the CUDA wheels are a few GB from the index
        return images.build_image(TAG, context, {
            "BOT_BASE_IMAGE": images.BASE_TAG, "EXECUTOR_BASE_IMAGE": images.BASE_TAG,
            "TORCH_VERSION": images.torch_pin()}, log)


def _try(figures: dict[str, Any]) -> bool:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    name = f"torchquiz-cuda-check-{os.getpid()}"
    started = time.monotonic()
    images.docker("run", "-d", "--name", name, "--network", "host", *documented_flags(),
                  "-e", f"TORCHQUIZ_EXECUTOR_TOKEN={TOKEN}", "-e",
                  f"TORCHQUIZ_EXECUTOR_PORT={port}", TAG, "--host", "127.0.0.1", "--user",
                  "torchquiz")
    try:
        status: tuple[int, dict[str, Any]] = (0, {})
        while time.monotonic() - started < 600:
            status = _health(url)
            if status[0] == 200:
                break
            time.sleep(2)
        figures["ready_s"] = round(time.monotonic() - started, 1)
        figures["healthz"] = status
        bank = load_bank()
        cuda = next(c for c in bank.code_items() if "cuda" in c.code.requires)
        client = ExecutorClient([url], TOKEN, read_timeout_s=120)
        cpu = client.run(CPU_CHALLENGE, bank.question(CPU_CHALLENGE).code.solution,
                         request_id="cuda-check-cpu")
        gpu = client.run(cuda.id, cuda.code.solution, request_id="cuda-check-gpu")
        figures["cpu_verdict"] = {"status": cpu.status, "passed": cpu.passed_tests,
                                  "total": cpu.total_tests}
        figures["cuda_verdict"] = {"challenge": cuda.id, "status": gpu.status,
                                   "message": gpu.message}
        figures["torch_in_image"] = images.docker(
            "exec", name, "/opt/venv/bin/python", "-c",
            "import torch; print(torch.__version__, torch.version.cuda, "
            "torch.cuda.is_available())").stdout.strip()
        return (status[0] == 200 and cpu.status == "passed"
                and gpu.status in ("rejected", "error") and "CUDA" in gpu.message)
    finally:
        tail = images.docker("logs", "--tail", "20", name, check=False)
        figures["logs_tail"] = tail.stderr[-2000:]
        images.docker("rm", "-f", name, check=False)


def main(out_dir: str) -> int:
    """Build, measure, try; print the figures as one JSON object."""
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    log = out / "cuda-build.log"
    _engine(out / "engine")
    figures: dict[str, Any] = {}
    try:
        figures["build_s"] = round(_build(out, log), 1)
        figures["size_mb"] = round(images.image_mb(TAG), 1)
        figures["ok"] = _try(figures)
    finally:
        stop = [str(REPO / "scripts/docker-test-engine.sh"), "stop", str(out / "engine")]
        subprocess.run(stop, check=False, capture_output=True)  # noqa: S603 - our own script
    print(json.dumps(figures, indent=2, default=str))
    return 0 if figures.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "var/cuda-check"))
