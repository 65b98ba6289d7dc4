"""What the executor service and its client agree on: paths, headers, limits, request checks.

Standard library only: the bot imports this through the client without torch or aiohttp.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

RUNS_PATH = "/v1/runs"
HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"
TOKEN_ENV = "TORCHQUIZ_EXECUTOR_TOKEN"  # noqa: S105 - the variable's name, not a secret
URLS_ENV = "TORCHQUIZ_EXECUTOR_URLS"
# The port `executor serve` listens on when --port is not given, and the one its probe asks.
PORT_ENV = "TORCHQUIZ_EXECUTOR_PORT"
DEFAULT_PORT = 8080
# Set on a verdict the replica already had for this request id: it was not run again.
REPLAYED_HEADER = "X-Torchquiz-Replayed"

# The engine rejects code over 16 KiB with a verdict; the body may carry that code JSON-escaped
# (a \uXXXX escape is 6 bytes per character), plus the other fields.
MAX_CODE_BYTES = 16 * 1024
MAX_BODY_BYTES = 6 * MAX_CODE_BYTES + 4096
MAX_CHALLENGE_ID_CHARS = 128
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


class BadRunRequest(ValueError):
    """Raise when a run request is not the documented JSON object."""


@dataclass(frozen=True)
class RunRequest:
    """One run as the client sends it: ``POST /v1/runs`` with this JSON body."""

    challenge_id: str
    code: str
    request_id: str
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON body."""
        body: dict[str, Any] = {
            "challenge_id": self.challenge_id, "code": self.code, "request_id": self.request_id,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        return body

    @classmethod
    def from_json(cls, data: Any) -> RunRequest:
        """Check a decoded body field by field; BadRunRequest names the first bad one."""
        if not isinstance(data, dict):
            raise BadRunRequest("the body must be a JSON object")
        unknown = sorted(set(data) - {"challenge_id", "code", "request_id", "seed"})
        if unknown:
            raise BadRunRequest(f"unknown fields: {', '.join(unknown)[:200]}")
        challenge_id = data.get("challenge_id")
        if type(challenge_id) is not str or not 0 < len(challenge_id) <= MAX_CHALLENGE_ID_CHARS:
            raise BadRunRequest("challenge_id must be a non-empty string")
        code = data.get("code")
        if type(code) is not str:
            raise BadRunRequest("code must be a string")
        request_id = data.get("request_id")
        if type(request_id) is not str or not _REQUEST_ID.fullmatch(request_id):
            raise BadRunRequest("request_id must be 1-128 characters of A-Z a-z 0-9 . _ : -")
        seed = data.get("seed")
        if seed is not None and (type(seed) is not int or not 0 <= seed < 2**63):
            raise BadRunRequest("seed must be null or a non-negative 63-bit integer")
        return cls(challenge_id, code, request_id, seed)

    def fingerprint(self) -> str:
        """Return a digest of what a repeated request id must match to be the same run."""
        # A digest, not the code: the ledger keeps thousands of these for an hour.
        text = json.dumps([self.challenge_id, self.code, self.seed], ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()
