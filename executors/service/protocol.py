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
SPEED_PATH = "/v1/speed"  # a speed challenge timed against its reference (same body)
PACKS_VALIDATE_PATH = "/v1/packs/validate"
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
# A team pack's code item travels with its run (the replicas know only the shipped bank); its
# compact JSON may be this large. An item of the scaffold is about 2 KiB.
MAX_DEFINITION_BYTES = 256 * 1024
MAX_BODY_BYTES = 6 * MAX_CODE_BYTES + 4096 + MAX_DEFINITION_BYTES
# A pack file sent to be validated: content.packs.MAX_PACK_BYTES (a test keeps them equal).
MAX_PACK_BYTES = 1024 * 1024
MAX_CHALLENGE_ID_CHARS = 128
# Team pack items are namespaced ``p.<pack>.<local>`` (content.packs.PACK_PREFIX).
PACK_ITEM_PREFIX = "p."
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_PACK_ID = re.compile(r"[a-z0-9][a-z0-9-]{1,23}")


class BadRunRequest(ValueError):
    """Raise when a run request is not the documented JSON object."""


def pack_of(challenge_id: str) -> str | None:
    """Return the pack a ``p.<pack>.<local>`` id belongs to, or None for a shipped id."""
    if not challenge_id.startswith(PACK_ITEM_PREFIX):
        return None
    return challenge_id[len(PACK_ITEM_PREFIX):].split(".", 1)[0] or None


def canonical_json(value: Any) -> bytes:
    """Return ``value`` as compact, key-sorted UTF-8 JSON: what a definition's digest covers."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")


@dataclass(frozen=True)
class PackDefinition:
    """A team pack's code item sent with its run: the item as JSON, its pack id and version.

    Only the shape is checked here (standard library); the replica validates ``item`` against
    the bank's schema before anything is built from it.
    """

    pack_id: str
    pack_version: int | None
    item: dict[str, Any]
    digest: str = ""  # sha256 of canonical_json(item); filled in by from_json/make

    @classmethod
    def make(cls, pack_id: str, pack_version: int | None, item: dict[str, Any]
             ) -> PackDefinition:
        """Return a definition with its digest (BadRunRequest when it is over the limit)."""
        encoded = canonical_json(item)
        if len(encoded) > MAX_DEFINITION_BYTES:
            raise BadRunRequest(f"the definition is {len(encoded):,} bytes of JSON; the limit "
                                f"is {MAX_DEFINITION_BYTES:,}")
        return cls(pack_id, pack_version, item, hashlib.sha256(encoded).hexdigest())

    def to_json(self) -> dict[str, Any]:
        """Return the ``definition`` field of a run body."""
        return {"pack": {"id": self.pack_id, "version": self.pack_version}, "item": self.item}

    @classmethod
    def from_json(cls, data: Any, challenge_id: str) -> PackDefinition:
        """Check the ``definition`` field of a run for ``challenge_id``; BadRunRequest says why."""
        pack_id = pack_of(challenge_id)
        if pack_id is None:
            raise BadRunRequest(f"challenge_id {challenge_id[:80]!r} is not a team pack's "
                                "(p.<pack>.<item>): a shipped challenge takes no definition")
        if not isinstance(data, dict) or set(data) != {"pack", "item"}:
            raise BadRunRequest("definition must be an object with exactly 'pack' and 'item'")
        pack, item = data["pack"], data["item"]
        if not isinstance(pack, dict) or set(pack) != {"id", "version"}:
            raise BadRunRequest("definition.pack must be an object with 'id' and 'version'")
        if type(pack["id"]) is not str or not _PACK_ID.fullmatch(pack["id"]):
            raise BadRunRequest("definition.pack.id must be a pack id")
        version = pack["version"]
        if version is not None and (type(version) is not int or not 1 <= version <= 10**6):
            raise BadRunRequest("definition.pack.version must be null or 1 to 1,000,000")
        if pack["id"] != pack_id:
            raise BadRunRequest(f"definition.pack.id {pack['id']!r} is not the pack of "
                                f"{challenge_id[:80]!r}")
        if not isinstance(item, dict):
            raise BadRunRequest("definition.item must be an object (the code item)")
        if item.get("id") != challenge_id:
            raise BadRunRequest("definition.item.id must be the run's challenge_id")
        try:
            return cls.make(pack_id, version, item)
        except (ValueError, UnicodeEncodeError) as exc:  # NaN, lone surrogates
            if isinstance(exc, BadRunRequest):
                raise
            raise BadRunRequest("definition.item is not plain JSON") from None


@dataclass(frozen=True)
class RunRequest:
    """One run as the client sends it: ``POST /v1/runs`` with this JSON body.

    ``definition`` is only for a team pack's challenge (``p.<pack>.<item>``), which the
    replicas cannot know: it carries the item, and older clients never send it.
    """

    challenge_id: str
    code: str
    request_id: str
    seed: int | None = None
    definition: PackDefinition | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON body."""
        body: dict[str, Any] = {
            "challenge_id": self.challenge_id, "code": self.code, "request_id": self.request_id,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        if self.definition is not None:
            body["definition"] = self.definition.to_json()
        return body

    @classmethod
    def from_json(cls, data: Any) -> RunRequest:
        """Check a decoded body field by field; BadRunRequest names the first bad one."""
        if not isinstance(data, dict):
            raise BadRunRequest("the body must be a JSON object")
        unknown = sorted(set(data) - {"challenge_id", "code", "request_id", "seed",
                                      "definition"})
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
        definition = None
        if data.get("definition") is not None:
            definition = PackDefinition.from_json(data["definition"], challenge_id)
        return cls(challenge_id, code, request_id, seed, definition)

    def fingerprint(self) -> str:
        """Return a digest of what a repeated request id must match to be the same run."""
        # A digest, not the code: the ledger keeps thousands of these for an hour. A run
        # without a definition keeps the digest it always had; one with a definition adds
        # the definition's, so two definitions never share a verdict.
        parts: list[Any] = [self.challenge_id, self.code, self.seed]
        if self.definition is not None:
            parts.append(self.definition.digest)
        text = json.dumps(parts, ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class PackCheck:
    """What ``POST /v1/packs/validate`` answers: the ``pack validate --json`` object."""

    ok: bool
    errors: tuple[str, ...]
    items: int
    cards: int
    # The errors as objects: line, column, item, field, message (an older replica sends none).
    problems: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the contract's object: ok, errors, problems, items, cards."""
        return {"ok": self.ok, "errors": list(self.errors),
                "problems": [dict(p) for p in self.problems], "items": self.items,
                "cards": self.cards}

    @classmethod
    def from_json(cls, data: Any) -> PackCheck:
        """Rebuild a report from a replica's answer; ValueError unless it is exactly one."""
        keys = {"ok", "errors", "items", "cards"}
        if not isinstance(data, dict) or not keys <= set(data) <= {*keys, "problems"}:
            raise ValueError("not a pack report object")
        ok, errors, items, cards = data["ok"], data["errors"], data["items"], data["cards"]
        if type(ok) is not bool or not isinstance(errors, list):
            raise ValueError("a pack report needs a boolean 'ok' and a list of 'errors'")
        if not all(type(e) is str for e in errors) or ok == bool(errors):
            raise ValueError("a pack report's errors must be strings, and none when ok")
        if any(type(n) is not int or n < 0 for n in (items, cards)):
            raise ValueError("a pack report counts items and cards with integers")
        return cls(ok, tuple(errors), items, cards, _problems(data.get("problems", [])))


_PROBLEM_KEYS = ("line", "column", "item", "field", "message")


def _problems(value: Any) -> tuple[dict[str, Any], ...]:
    """Return a report's problem objects, each with exactly the contract's keys and types."""
    if not isinstance(value, list) or not all(isinstance(p, dict) for p in value):
        raise ValueError("a pack report's problems must be a list of objects")
    out = []
    for problem in value:
        line, column, item, field, message = (problem.get(k) for k in _PROBLEM_KEYS)
        if (any(v is not None and type(v) is not int for v in (line, column))
                or any(v is not None and type(v) is not str for v in (item, field))
                or type(message) is not str):
            raise ValueError("a pack problem has integer line and column, text otherwise")
        out.append(dict(zip(_PROBLEM_KEYS, (line, column, item, field, message), strict=True)))
    return tuple(out)
