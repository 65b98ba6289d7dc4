"""Send runs to the executor service's replicas: spread them, retry another, trust nothing back.

Standard library only (plus the Verdict), so the bot grades remotely without torch or aiohttp.

- Load is spread round-robin from a shared counter; a replica that just refused a connection
  is tried last for a few seconds. A URL whose name resolves to several addresses (compose
  `--scale executor=N`, a Kubernetes headless Service) counts as one replica per address;
  names are resolved again every half minute, so replicas that come and go are followed.
- A run is retried on another replica after a connection failure, a 503, a 5xx, a 401/403
  (a replica with the wrong token) or a 404 (a replica whose bank lacks the challenge, as in a
  rolling deploy). Every retry reuses the request id, so a replica that already ran it
  answers with its stored verdict. Nothing is retried once a verdict has arrived.
- When every replica said 503, the client waits as long as the shortest Retry-After (within
  its patience) and goes round again; when none could take the run it raises
  NoReplicaAvailable, which the bot turns into a pending answer.
- Every verdict is rebuilt with ``Verdict.from_json``: a body that is not exactly a verdict
  becomes a fault verdict (the member's try does not count), never a crash.
- A team pack's challenge travels with its definition (the replicas know only the shipped
  bank). A pack file is validated by ``check_pack`` (``POST /v1/packs/validate``), with the
  same retries; a body that is not exactly a report becomes a report that the pack is not valid.
"""

from __future__ import annotations

import dataclasses
import http.client
import ipaddress
import itertools
import json
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from executors.grading.verdict import Status, Verdict
from executors.service.protocol import (
    HEALTH_PATH,
    MAX_PACK_BYTES,
    PACKS_VALIDATE_PATH,
    RUNS_PATH,
    SPEED_PATH,
    PackCheck,
    PackDefinition,
    RunRequest,
)
from safetext.inert import Surface, inert

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 256 * 1024  # a verdict is a few KiB; anything far larger is not one
# A pack report lists at most 200 problems of at most 1,000 characters (the server bounds it).
MAX_REPORT_BYTES = 1024 * 1024
INVALID_VERDICT_MESSAGE = "the executor sent back something that is not a verdict; try again"
INVALID_REPORT_MESSAGE = ("the executor sent back something that is not a pack report; the "
                          "pack was not checked, try again")
# A pack's checks share a budget of 180 s on the replica (validate_pack); wait a little longer.
PACK_READ_TIMEOUT_S = 240.0
SPEED_READ_TIMEOUT_S = 300.0  # a speed verdict waits behind up to four others on a replica
_RETRY_STATUSES = {401, 403, 404, 500, 502, 503, 504}


class ExecutorClientError(Exception):
    """Base of the client's errors."""


class NoReplicaAvailable(ExecutorClientError):
    """Raise when no replica could take the run: all down, busy past patience, or refusing."""


class RunRefused(ExecutorClientError):
    """Raise when the service refused the request itself (400, 409, 413): a retry cannot help."""


Resolver = Callable[[str, int], list[tuple[str, int]]]
RESOLVE_EVERY_S = 30.0


@dataclass(frozen=True)
class Replica:
    """One executor service replica: its base URL, and the address it resolved to, if any."""

    url: str
    https: bool
    host: str
    port: int
    prefix: str  # a path the replica is mounted under behind a proxy, without the final /
    address: tuple[str, int] | None = None  # connect here; the Host header stays host:port

    @property
    def key(self) -> str:
        """Return a name for this replica in logs, errors and bookkeeping."""
        return f"{self.url} ({self.address[0]})" if self.address else self.url

    @classmethod
    def parse(cls, url: str) -> Replica:
        """Parse ``http://host:port[/prefix]`` (or https); ValueError for anything else."""
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) executor URL: {url!r}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return cls(url.strip().rstrip("/"), parts.scheme == "https", parts.hostname, port,
                   parts.path.rstrip("/"))


def resolve_all(host: str, port: int) -> list[tuple[str, int]]:
    """Return every address ``host`` resolves to, in a stable order (empty when it does not)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return []
    return sorted({(str(info[4][0]), port) for info in infos})


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def parse_urls(text: str) -> list[str]:
    """Split a comma-separated URL list (``TORCHQUIZ_EXECUTOR_URLS``), dropping empty items."""
    return [Replica.parse(u).url for u in text.split(",") if u.strip()]


@dataclass(frozen=True)
class _Answer:
    status: int
    body: bytes
    retry_after: float | None
    engine_ms: float | None = None  # what the replica's engine took (Server-Timing)


class _Unreachable(Exception):
    """A connection to one replica failed before or while it answered."""


class ExecutorClient:
    """Run submissions on the executor service; safe to call from many threads at once."""

    def __init__(
        self,
        urls: Sequence[str],
        token: str,
        *,
        connect_timeout_s: float = 2.0,
        read_timeout_s: float = 120.0,
        patience_s: float = 20.0,
        down_for_s: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        resolve: Resolver = resolve_all,
    ) -> None:
        if not urls:
            raise ValueError("the executor client needs at least one URL")
        self._configured = [Replica.parse(u) for u in urls]
        self._resolve = resolve
        self._expanded: list[Replica] = []
        self._resolved_at = float("-inf")
        self._token = token
        self._connect_timeout_s = connect_timeout_s
        self._read_timeout_s = read_timeout_s
        self._patience_s = patience_s
        self._down_for_s = down_for_s
        self._sleep = sleep
        self._clock = clock
        self._turn = itertools.count()
        self._down_until: dict[str, float] = {}
        self._local = threading.local()  # one keep-alive connection per thread and replica

    @property
    def replicas(self) -> list[Replica]:
        """Return the replicas now: each URL, once per address its name resolves to."""
        now = self._clock()
        if now - self._resolved_at >= RESOLVE_EVERY_S:
            expanded: list[Replica] = []
            for replica in self._configured:
                # https needs the name for its certificate, and an IP is already an address.
                found = [] if replica.https or _is_ip(replica.host) else self._resolve(
                    replica.host, replica.port)
                expanded += [dataclasses.replace(replica, address=a) for a in found] or [replica]
            self._expanded, self._resolved_at = expanded, now
        return list(self._expanded)

    # ---------------------------------------------------------------- runs
    def run(
        self, challenge_id: str, code: str, *, seed: int | None = None,
        request_id: str | None = None, definition: PackDefinition | None = None,
    ) -> Verdict:
        """Return the verdict of ``code``; NoReplicaAvailable when no replica could take it.

        ``definition`` carries a team pack's code item, for a ``p.<pack>.<item>`` challenge.
        """
        run = RunRequest(challenge_id, code, request_id or uuid.uuid4().hex, seed, definition)
        body = _encode(run.to_json())
        replica, answer = self._exchange(RUNS_PATH, body, f"run {run.request_id}")
        self._local.engine_ms = answer.engine_ms
        return self._verdict(replica, run, answer.body)

    def speed(self, challenge_id: str, code: str, *, seed: int | None = None,
              request_id: str | None = None) -> Verdict:
        """Return the speed verdict of ``code`` (``POST /v1/speed``).

        NoReplicaAvailable when no replica could take it. The verdict is read once, here
        (``Verdict.from_json`` checks its timing report); one that does not read is a fault.
        """
        run = RunRequest(challenge_id, code, request_id or uuid.uuid4().hex, seed, None)
        replica, answer = self._exchange(
            SPEED_PATH, _encode(run.to_json()), f"speed run {run.request_id}",
            read_timeout_s=max(self._read_timeout_s, SPEED_READ_TIMEOUT_S))
        return self._verdict(replica, run, answer.body)

    def check_pack(self, data: bytes) -> PackCheck:
        """Validate a pack file on a replica; NoReplicaAvailable when none could take it.

        A file over the size limit is answered here, as ``pack validate`` words it, without
        sending it; an answer that is not exactly a report is a report that the pack is not
        valid (nothing of it was stored anywhere).
        """
        if len(data) > MAX_PACK_BYTES:
            return PackCheck(False, (f"pack: the file is {len(data):,} bytes; a pack may be at "
                                     f"most {MAX_PACK_BYTES:,} bytes",), 0, 0)
        replica, answer = self._exchange(PACKS_VALIDATE_PATH, data, "a pack validation",
                                         content_type="application/yaml",
                                         read_timeout_s=PACK_READ_TIMEOUT_S,
                                         max_response=MAX_REPORT_BYTES)
        try:
            return PackCheck.from_json(json.loads(answer.body))
        except ValueError as exc:
            log.error("invalid pack report from %s: %s", replica.key,
                      inert(str(exc), Surface.LOG))
            return PackCheck(False, (INVALID_REPORT_MESSAGE,), 0, 0)

    def _exchange(
        self, path: str, body: bytes, what: str, *, content_type: str = "application/json",
        read_timeout_s: float | None = None, max_response: int = MAX_RESPONSE_BYTES,
    ) -> tuple[Replica, _Answer]:
        """POST ``body`` to one replica after another until one answers 200."""
        deadline = self._clock() + self._patience_s
        problems: list[str] = []
        while True:
            waits: list[float] = []
            for replica in self._order():
                try:
                    answer = self._request(replica, "POST", path, body,
                                           content_type=content_type,
                                           read_timeout_s=read_timeout_s,
                                           max_response=max_response)
                except _Unreachable as exc:
                    self._down_until[replica.key] = self._clock() + self._down_for_s
                    problems.append(f"{replica.key}: {exc}")
                    continue
                if answer.status == 200:
                    self._down_until.pop(replica.key, None)
                    return replica, answer
                if answer.status in _RETRY_STATUSES:
                    problems.append(f"{replica.key}: HTTP {answer.status} {_error(answer.body)}")
                    if answer.retry_after is not None:
                        waits.append(answer.retry_after)
                    continue
                raise RunRefused(f"{replica.key} refused {what}: HTTP "
                                 f"{answer.status} {_error(answer.body)}")
            left = deadline - self._clock()
            if not waits or left <= 0:
                break
            self._sleep(min(min(waits), left))
        summary = "; ".join(problems[-len(self._expanded):])
        raise NoReplicaAvailable(f"no executor replica took {what}: {summary}")

    def _order(self) -> list[Replica]:
        """Return the replicas to try, round-robin, the ones that just failed last."""
        replicas = self.replicas
        start = next(self._turn) % len(replicas)
        rotated = replicas[start:] + replicas[:start]
        now = self._clock()
        return sorted(rotated, key=lambda r: self._down_until.get(r.key, 0.0) > now)

    def _verdict(self, replica: Replica, run: RunRequest, body: bytes) -> Verdict:
        try:
            return Verdict.from_json(json.loads(body))
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            log.error("invalid verdict from %s for run %s: %s", replica.key, run.request_id,
                      inert(str(exc), Surface.LOG))
            return Verdict(status=Status.ERROR, passed_tests=0, total_tests=0,
                           message=INVALID_VERDICT_MESSAGE, challenge_id="", seed=run.seed,
                           fault=True)

    def last_engine_ms(self) -> float | None:
        """Return what the engine took for this thread's last verdict (for the benchmark)."""
        value: float | None = getattr(self._local, "engine_ms", None)
        return value

    # ---------------------------------------------------------------- health
    def health(self) -> list[tuple[str, dict[str, Any] | None]]:
        """Return each replica's /healthz answer (None when it could not be reached)."""
        found: list[tuple[str, dict[str, Any] | None]] = []
        for replica in self.replicas:
            try:
                answer = self._request(replica, "GET", HEALTH_PATH, None)
                data = json.loads(answer.body)
                found.append((replica.key, data if isinstance(data, dict) else None))
            except (_Unreachable, ValueError):
                found.append((replica.key, None))
        return found

    # ---------------------------------------------------------------- HTTP
    def _request(
        self, replica: Replica, method: str, path: str, body: bytes | None, *,
        content_type: str = "application/json", read_timeout_s: float | None = None,
        max_response: int = MAX_RESPONSE_BYTES,
    ) -> _Answer:
        headers = {"Authorization": f"Bearer {self._token}", "Accept": "application/json",
                   "Host": _host_header(replica)}
        if body is not None:
            headers["Content-Type"] = content_type
        for fresh in (False, True):
            connection, reused = self._connection(replica, fresh)
            try:
                if read_timeout_s is not None and connection.sock is not None:
                    connection.sock.settimeout(read_timeout_s)
                connection.request(method, replica.prefix + path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read(max_response + 1)
                if read_timeout_s is not None and connection.sock is not None:
                    connection.sock.settimeout(self._read_timeout_s)
            except (OSError, http.client.HTTPException) as exc:
                self._forget(replica)
                # A kept-alive connection the replica closed while idle fails like a dead
                # replica; try once more on a new connection before calling it unreachable.
                # Not after a timeout: the replica is alive but slow, and waiting twice on it
                # would double the member's wait.
                if reused and not fresh and not isinstance(exc, TimeoutError):
                    continue
                raise _Unreachable(type(exc).__name__ + (f": {exc}" if str(exc) else "")) from exc
            if response.will_close or len(data) > max_response:
                self._forget(replica)
            return _Answer(response.status, data[:max_response],
                           _retry_after(response.getheader("Retry-After")),
                           _engine_ms(response.getheader("Server-Timing")))
        raise AssertionError("unreachable")

    def _pool(self) -> dict[str, http.client.HTTPConnection]:
        pool: dict[str, http.client.HTTPConnection] | None = getattr(self._local, "pool", None)
        if pool is None:
            pool = self._local.pool = {}
        return pool

    def _connection(
        self, replica: Replica, fresh: bool
    ) -> tuple[http.client.HTTPConnection, bool]:
        pool = self._pool()
        existing = pool.get(replica.key)
        if existing is not None and not fresh:
            return existing, True
        cls = http.client.HTTPSConnection if replica.https else http.client.HTTPConnection
        host, port = replica.address or (replica.host, replica.port)
        connection = cls(host, port, timeout=self._connect_timeout_s)
        try:
            connection.connect()
        except OSError as exc:
            raise _Unreachable(type(exc).__name__ + f": {exc}") from exc
        if connection.sock is not None:
            # Connecting may take the short timeout; a verdict may take a submission's limit.
            connection.sock.settimeout(self._read_timeout_s)
            connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pool[replica.key] = connection
        return connection, False

    def _forget(self, replica: Replica) -> None:
        connection = self._pool().pop(replica.key, None)
        if connection is not None:
            connection.close()

    def close(self) -> None:
        """Close this thread's connections (others close when their threads end)."""
        pool = self._pool()
        for connection in pool.values():
            connection.close()
        pool.clear()


def _host_header(replica: Replica) -> str:
    host = f"[{replica.host}]" if ":" in replica.host else replica.host
    return f"{host}:{replica.port}"


def _encode(body: dict[str, Any]) -> bytes:
    try:
        return json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8; as \\u escapes the replica's precheck rejects them.
        return json.dumps(body, ensure_ascii=True).encode("ascii")


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return min(60.0, max(0.0, float(value)))
    except ValueError:
        return 1.0  # an HTTP date or garbage: wait a little, not forever


def _engine_ms(value: str | None) -> float | None:
    for metric in (value or "").split(","):
        name, _, params = metric.strip().partition(";")
        if name == "engine" and params.startswith("dur="):
            try:
                return float(params[4:])
            except ValueError:
                return None
    return None


def _error(body: bytes) -> str:
    try:
        message = json.loads(body).get("error", "")
    except (ValueError, AttributeError):
        message = body[:200].decode("utf-8", "replace")
    return inert(str(message), Surface.LOG, limit=200)
