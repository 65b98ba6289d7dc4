"""``torchquiz executor health``: exit 0 when a replica is ready; cheap enough for HEALTHCHECK.

Standard library only: a probe that imported torch would take seconds on a busy machine and
time out, marking a healthy replica unhealthy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import urllib.error
import urllib.request
from typing import TextIO

from executors.service.protocol import DEFAULT_PORT, HEALTH_PATH, PORT_ENV


def default_port() -> int:
    """Return TORCHQUIZ_EXECUTOR_PORT, or 8080."""
    return int(os.environ.get(PORT_ENV) or DEFAULT_PORT)


def probe(url: str, timeout_s: float, out: TextIO) -> int:
    """Print the replica's /healthz answer; return 0 when it is ready."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + HEALTH_PATH, timeout=timeout_s) as reply:  # noqa: S310 - an operator's URL
            out.write(reply.read().decode("utf-8", "replace") + "\n")
            return 0
    except urllib.error.HTTPError as exc:
        with contextlib.suppress(OSError):
            out.write(exc.read().decode("utf-8", "replace") + "\n")
    except (OSError, ValueError) as exc:
        out.write(json.dumps({"status": "unreachable", "reason": str(exc)}) + "\n")
    return 1


def main(argv: list[str], *, stdout: TextIO | None = None) -> int:
    """Run the probe with ``argv`` (after ``health``); return the exit code."""
    parser = argparse.ArgumentParser(prog="torchquiz executor health")
    parser.add_argument("--url", default=f"http://127.0.0.1:{default_port()}",
                        help=f"the replica (default: this host, port ${PORT_ENV} or 8080)")
    parser.add_argument("--timeout-s", type=float, default=3.0)
    args = parser.parse_args(argv)
    return probe(args.url, args.timeout_s, stdout or sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
