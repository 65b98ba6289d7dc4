"""Serve the engine over HTTP: runs, pack validations, /healthz and /metrics (aiohttp).

The HTTP layer only admits, bounds and remembers work; ``LocalExecutor.run`` does the rest on
a small thread pool, exactly as in-process. The order of checks on a run request is the order
of what each costs: the token (nothing is read without it), the declared size (nothing
oversized is read), readiness, the body (a team pack's definition checked against the bank's
schema), the request id (a repeat never runs again), and last the queue bound (a full queue
answers 503 with Retry-After instead of piling up work). A pack validation takes minutes, not
milliseconds: one at a time per replica, on a thread of its own; a second one gets 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web
from pydantic import ValidationError

from content.schema import CodeItem
from executors.grading.challenges import ChallengeBuildError, UnknownChallenge
from executors.grading.verdict import Verdict, fault_verdict
from executors.service.ledger import RequestLedger, Seen
from executors.service.metrics import CONTENT_TYPE, ServiceMetrics
from executors.service.pack_validations import PackChecker, PackValidations
from executors.service.protocol import (
    HEALTH_PATH,
    MAX_BODY_BYTES,
    MAX_PACK_BYTES,
    METRICS_PATH,
    PACKS_VALIDATE_PATH,
    REPLAYED_HEADER,
    RUNS_PATH,
    SPEED_PATH,
    BadRunRequest,
    RunRequest,
    pack_of,
)
from executors.zygote.reports import LayerStatus
from executors.zygote.supervisor import ZygoteError
from safetext.inert import Surface, inert

log = logging.getLogger(__name__)

MAX_RETRY_AFTER_S = 30


class Engine(Protocol):
    """What the service needs of the executor (``LocalExecutor`` satisfies it)."""

    def run(self, challenge_id: str, code: str | bytes, *, seed: int | None = None,
            item: CodeItem | None = None) -> Verdict:
        """Grade one submission; user failures are verdicts, infrastructure faults raise."""
        ...

    def challenge_item(self, challenge_id: str) -> CodeItem:
        """Return the bank item of a challenge (UnknownChallenge when there is none)."""
        ...


class SpeedEngine(Protocol):
    """What the service needs of the speed timer (``LocalSpeedExecutor`` satisfies it)."""

    def knows(self, challenge_id: str) -> bool:
        """Say whether ``challenge_id`` is a speed challenge this replica times."""
        ...

    def speed(self, challenge_id: str, code: str, *, seed: int | None = None) -> Verdict:
        """Time ``code`` against the challenge's reference; a user failure is a verdict."""
        ...


# The timer is one CPU: one speed verdict at a time per replica, a few waiting behind it.
SPEED_QUEUE = 4
SPEED_ESTIMATE_S = 8.0  # a verdict's usual time, for Retry-After


@dataclass(frozen=True)
class ServiceLimits:
    """How much work one replica admits at once."""

    max_parallel: int = 2  # runs in the sandbox at once (the zygote's own parallelism)
    max_queue: int = 64  # admitted runs waiting for a slot; beyond this, 503
    max_body_bytes: int = MAX_BODY_BYTES  # a run request
    max_pack_bytes: int = MAX_PACK_BYTES  # a pack file to validate

    def __post_init__(self) -> None:
        if (self.max_parallel < 1 or self.max_queue < 0 or self.max_body_bytes < 1024
                or self.max_pack_bytes < 1024):
            raise ValueError(f"invalid service limits: {self}")


@dataclass
class Readiness:
    """Whether the replica takes runs, and what its sandbox reported."""

    state: str = "starting"  # starting -> ready -> down (the zygote died), or failed
    reason: str = "warming up the sandbox"
    layers: dict[str, LayerStatus] = field(default_factory=dict)
    cuda: bool = False
    challenges: int = 0

    @property
    def ready(self) -> bool:
        """Return whether runs are admitted."""
        return self.state == "ready"

    def to_json(self) -> dict[str, Any]:
        """Return the /healthz body."""
        return {
            "status": self.state, "reason": self.reason, "cuda": self.cuda,
            "challenges": self.challenges,
            "layers": {name: s.active for name, s in self.layers.items()},
        }  # fmt: skip


class ExecutorService:
    """Hold one replica's state: token, engine, queue bound, request ledger, metrics."""

    def __init__(
        self,
        token: str,
        limits: ServiceLimits | None = None,
        *,
        ledger: RequestLedger | None = None,
        metrics: ServiceMetrics | None = None,
    ) -> None:
        if not token:
            raise ValueError("the executor service needs a bearer token")
        self._token = token.encode()
        self.limits = limits or ServiceLimits()
        self.ledger = ledger or RequestLedger()
        self.metrics = metrics or ServiceMetrics()
        self.readiness = Readiness()
        self._engine: Engine | None = None
        self._check_pack: PackChecker | None = None
        self._alive: Callable[[], bool] = lambda: True
        self._pool = ThreadPoolExecutor(self.limits.max_parallel, thread_name_prefix="run")
        self._slots: asyncio.Semaphore | None = None
        self._admitted = 0
        self._running = 0
        self._latency_s = 0.05  # a moving average of recent verdicts, for Retry-After
        self._idle = asyncio.Event()
        self._idle.set()
        self._packs = PackValidations()
        self._speed: SpeedEngine | None = None
        self._speed_pool = ThreadPoolExecutor(1, thread_name_prefix="speed")
        self._speed_admitted = 0

    # ---------------------------------------------------------------- lifecycle
    def attach(self, engine: Engine, layers: dict[str, LayerStatus], *, cuda: bool,
               challenges: int, alive: Callable[[], bool] | None = None,
               check_pack: PackChecker | None = None, speed: SpeedEngine | None = None) -> None:
        """Start admitting runs on a warm engine whose every layer passed.

        ``alive`` says whether the sandbox process still runs; when a run fails and it does
        not, the replica reports itself down so that its orchestrator replaces it.
        ``check_pack`` validates pack files (without it, validations get 404); ``speed`` times
        speed challenges (without it, ``POST /v1/speed`` gets 404).
        """
        off = sorted(name for name, s in layers.items() if not s.active)
        if off:
            raise ValueError(f"refusing to serve with isolation layers off: {', '.join(off)}")
        self._engine = engine
        self._check_pack = check_pack
        self._speed = speed
        self._alive = alive or (lambda: True)
        self.readiness = Readiness("ready", "", dict(layers), cuda, challenges)
        self.metrics.ready.set(1)
        log.info("executor service ready: %d challenges, cuda %s", challenges, cuda)

    def fail(self, state: str, reason: str) -> None:
        """Stop admitting runs and say why on /healthz."""
        self.readiness = Readiness(state, reason, self.readiness.layers, self.readiness.cuda,
                                   self.readiness.challenges)
        self.metrics.ready.set(0)

    @property
    def running(self) -> int:
        """Return how many runs are executing in the sandbox now."""
        return self._running

    async def drain(self, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) for admitted runs to finish, then stop the pool."""
        self.fail("stopping", "the replica is shutting down")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout_s)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._speed_pool.shutdown(wait=False, cancel_futures=True)
        self._packs.shutdown()

    def app(self) -> web.Application:
        """Return the aiohttp application serving this replica."""
        # client_max_size also stops a chunked body (no Content-Length) at the larger limit;
        # each handler then holds its body to its own.
        app = web.Application(client_max_size=max(self.limits.max_body_bytes,
                                                  self.limits.max_pack_bytes))
        app.router.add_post(RUNS_PATH, self._runs)
        app.router.add_post(PACKS_VALIDATE_PATH, self._validate_pack)
        app.router.add_post(SPEED_PATH, self._speed_runs)
        app.router.add_get(HEALTH_PATH, self._health)
        app.router.add_get(METRICS_PATH, self._metrics)
        return app

    # ---------------------------------------------------------------- handlers
    async def _health(self, request: web.Request) -> web.Response:
        status = 200 if self.readiness.ready else 503
        return web.json_response(self.readiness.to_json(), status=status)

    async def _metrics(self, request: web.Request) -> web.Response:
        self.metrics.queue_depth.set(self._admitted - self._running)
        self.metrics.in_flight.set(self._running)
        return web.Response(body=self.metrics.render(), headers={"Content-Type": CONTENT_TYPE})

    def _authorized(self, request: web.Request) -> bool:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        # compare_digest: the time taken does not tell how much of a guess was right.
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(),
                                                                   self._token)

    def _refuse(self, reason: str, status: int, message: str,
                headers: dict[str, str] | None = None) -> web.Response:
        self.metrics.refused.labels(reason=reason).inc()
        return web.json_response({"error": message}, status=status, headers=headers)

    def _busy(self, reason: str, message: str) -> web.Response:
        return self._refuse(reason, 503, message, {"Retry-After": str(self._retry_after())})

    def _retry_after(self) -> int:
        waiting = max(0, self._admitted - self._running) + 1
        estimate = waiting * self._latency_s / self.limits.max_parallel
        return max(1, min(MAX_RETRY_AFTER_S, math.ceil(estimate)))

    async def _admitted_body(self, request: web.Request, limit: int
                             ) -> bytes | web.Response:
        """Return the body, or the refusal: token, size (from the headers first), readiness."""
        if not self._authorized(request):
            return self._refuse("unauthorized", 401, "missing or wrong bearer token",
                                {"WWW-Authenticate": 'Bearer realm="torchquiz-executor"'})
        declared = request.content_length
        if declared is not None and declared > limit:
            # Answered from the headers alone; the body is never read.
            return self._refuse("too_large", 413, f"the body is over {limit} bytes")
        if not self.readiness.ready or self._engine is None:
            return self._busy("not_ready", f"not ready: {self.readiness.reason}")
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return self._refuse("too_large", 413, f"the body is over {limit} bytes")
        if len(body) > limit:  # chunked, under the app's larger limit
            return self._refuse("too_large", 413, f"the body is over {limit} bytes")
        return body

    async def _runs(self, request: web.Request) -> web.Response:
        body = await self._admitted_body(request, self.limits.max_body_bytes)
        if isinstance(body, web.Response):
            return body
        assert self._engine is not None  # noqa: S101 - _admitted_body checked readiness
        try:
            run = RunRequest.from_json(json.loads(body))
            item = self._pack_item(self._engine, run)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            # BadRunRequest, and JSON errors (a body nested deeper than the parser recurses).
            message = str(exc) if isinstance(exc, BadRunRequest) else "the body is not JSON"
            return self._refuse("bad_request", 400, message)
        lookup = self.ledger.claim(run.request_id, run.fingerprint())
        if lookup.seen is Seen.CONFLICT:
            return self._refuse("conflict", 409, "this request_id was used for another run")
        if lookup.seen is Seen.DONE:
            return self._replay(lookup.verdict)
        if lookup.seen is Seen.RUNNING and lookup.pending is not None:
            try:
                return self._replay(await asyncio.shield(lookup.pending))
            except _NoVerdict as exc:
                return exc.response()
        if self._admitted >= self.limits.max_parallel + self.limits.max_queue:
            message = "the queue is full; try another replica or retry later"
            self.ledger.abandon(run.request_id, _NoVerdict(503, message, retry_after=1))
            return self._busy("busy", message)
        return await self._admit(run, self._engine, item)

    @staticmethod
    def _pack_item(engine: Engine, run: RunRequest) -> CodeItem | None:
        """Return the team pack item a run carries, checked; BadRunRequest says what is wrong."""
        if run.definition is None:
            if pack_of(run.challenge_id) is not None:
                raise BadRunRequest(
                    f"challenge {inert(run.challenge_id, one_line=True)} is a team pack's: "
                    "this executor knows only the shipped bank, so the run must carry the "
                    "item's definition (a client that predates team packs cannot grade them)")
            return None
        try:
            item = CodeItem.model_validate(run.definition.item)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise BadRunRequest(
                f"definition.item is not a valid code item: {exc.error_count()} problem(s), "
                f"first at {inert(where, one_line=True, limit=120)}: "
                f"{inert(first['msg'], one_line=True, limit=200)}") from None
        try:
            engine.challenge_item(run.challenge_id)
        except UnknownChallenge:
            return item
        raise BadRunRequest(f"challenge {inert(run.challenge_id, one_line=True)} is in the "
                            "shipped bank: a definition is only for a team pack's challenge")

    def _replay(self, verdict: bytes) -> web.Response:
        self.metrics.replayed.inc()
        return _verdict_response(verdict, {REPLAYED_HEADER: "1"})

    async def _admit(self, run: RunRequest, engine: Engine, item: CodeItem | None
                     ) -> web.Response:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limits.max_parallel)
        self._admitted += 1
        self._idle.clear()
        started = time.monotonic()
        try:
            async with self._slots:
                self._running += 1
                try:
                    verdict, engine_s = await asyncio.get_running_loop().run_in_executor(
                        self._pool, functools.partial(self._timed_grade, engine, run, item))
                finally:
                    self._running -= 1
        except _NoVerdict as exc:
            self.ledger.abandon(run.request_id, exc)
            return exc.response()
        except BaseException:
            # A bug or a shutdown: whoever waits on this id gets a 500, a retry may run it.
            self.ledger.abandon(run.request_id, _NoVerdict(500, "internal error"))
            raise
        finally:
            self._admitted -= 1
            if self._admitted == 0 and not self._packs.busy:
                self._idle.set()
        elapsed = time.monotonic() - started
        self._latency_s = 0.8 * self._latency_s + 0.2 * elapsed
        self.metrics.latency.observe(elapsed)
        self.metrics.runs.labels(status=str(verdict.status)).inc()
        if verdict.fault:
            self.metrics.faults.labels(kind="grading").inc()
        encoded = json.dumps(verdict.to_json(), ensure_ascii=False).encode()
        self.ledger.finish(run.request_id, encoded)
        # What the engine itself took: a client subtracts it to see what HTTP costs.
        return _verdict_response(encoded, {"Server-Timing": f"engine;dur={engine_s * 1000:.3f}"})

    def _timed_grade(self, engine: Engine, run: RunRequest, item: CodeItem | None
                     ) -> tuple[Verdict, float]:
        started = time.perf_counter()
        verdict = self._grade(engine, run, item)
        return verdict, time.perf_counter() - started

    def _grade(self, engine: Engine, run: RunRequest, item: CodeItem | None) -> Verdict:
        """Run on a pool thread: the verdict, or _NoVerdict with the HTTP answer to give."""
        try:
            if item is None:  # an engine that predates pack items need not know the keyword
                return engine.run(run.challenge_id, run.code, seed=run.seed)
            return engine.run(run.challenge_id, run.code, seed=run.seed, item=item)
        except UnknownChallenge:
            self.metrics.refused.labels(reason="unknown_challenge").inc()
            name = inert(run.challenge_id, one_line=True)
            raise _NoVerdict(404, f"no code challenge {name}") from None
        except ChallengeBuildError as exc:
            # The bank's own generator failed, or a pack's (in the sandbox): the same on every
            # replica, so a verdict (fault: the member's try does not count).
            log.error("challenge %s cannot be built: %s", inert(run.challenge_id, Surface.LOG),
                      inert(str(exc), Surface.LOG))
            if item is not None:
                return fault_verdict(item.id, item.version, run.seed, message=(
                    "this team pack's challenge cannot be built, so nothing was graded; "
                    f"tell the pack's authors: {inert(str(exc), one_line=True, limit=300)}"))
            shipped = engine.challenge_item(run.challenge_id)
            return fault_verdict(shipped.id, shipped.version, run.seed)
        except ZygoteError as exc:
            # No verdict: the sandbox itself failed. 503 sends the client to another replica.
            self.metrics.faults.labels(kind="sandbox").inc()
            log.error("run %s failed in the sandbox: %s", run.request_id,
                      inert(str(exc), Surface.LOG))
            if not self._alive():
                self.fail("down", "the sandbox process died")
            message = "the sandbox failed; try another replica"
            raise _NoVerdict(503, message, retry_after=1) from None

    # ---------------------------------------------------------------- speed
    async def _speed_runs(self, request: web.Request) -> web.Response:
        """Time a speed answer: the run body of /v1/runs (no definition), one at a time."""
        body = await self._admitted_body(request, self.limits.max_body_bytes)
        if isinstance(body, web.Response):
            return body
        speed = self._speed
        if speed is None:
            return self._refuse("bad_request", 404, "this replica times no speed challenge")
        try:
            run = RunRequest.from_json(json.loads(body))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            message = str(exc) if isinstance(exc, BadRunRequest) else "the body is not JSON"
            return self._refuse("bad_request", 400, message)
        if run.definition is not None:
            return self._refuse("bad_request", 400, "a speed run carries no definition")
        if not speed.knows(run.challenge_id):
            self.metrics.refused.labels(reason="unknown_challenge").inc()
            return self._refuse("unknown_challenge", 404, "no speed challenge "
                                f"{inert(run.challenge_id, one_line=True, limit=120)}")
        lookup = self.ledger.claim(run.request_id, run.fingerprint())
        if lookup.seen is Seen.CONFLICT:
            return self._refuse("conflict", 409, "this request_id was used for another run")
        if lookup.seen is Seen.DONE:
            return self._replay(lookup.verdict)
        if lookup.seen is Seen.RUNNING and lookup.pending is not None:
            try:
                return self._replay(await asyncio.shield(lookup.pending))
            except _NoVerdict as exc:
                return exc.response()
        if self._speed_admitted >= 1 + SPEED_QUEUE:
            message = "the speed timer's queue is full; try another replica or retry later"
            self.ledger.abandon(run.request_id, _NoVerdict(503, message, retry_after=1))
            wait = math.ceil(SPEED_ESTIMATE_S * self._speed_admitted)
            return self._refuse("busy", 503, message,
                                {"Retry-After": str(min(MAX_RETRY_AFTER_S, wait))})
        self._speed_admitted += 1
        self._idle.clear()
        try:
            verdict = await asyncio.get_running_loop().run_in_executor(
                self._speed_pool, functools.partial(speed.speed, run.challenge_id, run.code,
                                                    seed=run.seed))
        except BaseException:
            self.ledger.abandon(run.request_id, _NoVerdict(500, "internal error"))
            raise
        finally:
            self._speed_admitted -= 1
            if self._admitted == 0 and self._speed_admitted == 0 and not self._packs.busy:
                self._idle.set()
        self.metrics.runs.labels(status=str(verdict.status)).inc()
        if verdict.fault:
            self.metrics.faults.labels(kind="speed").inc()
        encoded = json.dumps(verdict.to_json(), ensure_ascii=False).encode()
        self.ledger.finish(run.request_id, encoded)
        return _verdict_response(encoded)

    # ---------------------------------------------------------------- packs
    async def _validate_pack(self, request: web.Request) -> web.Response:
        body = await self._admitted_body(request, self.limits.max_pack_bytes)
        if isinstance(body, web.Response):
            return body
        check = self._check_pack
        if check is None:
            return self._refuse("bad_request", 404, "this replica validates no packs")
        if self._packs.busy:
            return self._refuse("busy", 503, "this replica is validating another pack; retry "
                                "later or on another replica",
                                {"Retry-After": str(self._packs.retry_after())})
        self._idle.clear()
        started = time.monotonic()
        try:
            answer = await self._packs.validate(check, body)
        except ZygoteError as exc:
            self.metrics.faults.labels(kind="sandbox").inc()
            log.error("pack validation failed in the sandbox: %s", inert(str(exc), Surface.LOG))
            if not self._alive():
                self.fail("down", "the sandbox process died")
            return self._busy("busy", "the sandbox failed; try another replica")
        finally:
            if self._admitted == 0:
                self._idle.set()
        self.metrics.pack_validations.labels(
            result="valid" if answer.ok else "not_valid").inc()
        log.info("validated a pack of %d bytes in %.1f s: %s, %d problem(s)", len(body),
                 time.monotonic() - started, "valid" if answer.ok else "not valid",
                 len(answer.errors))
        return web.json_response(answer.to_json(), dumps=_dumps)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class _NoVerdict(Exception):
    """Carry the HTTP answer of a run that ended without a verdict (to every waiter)."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message
        self.retry_after = retry_after

    def response(self) -> web.Response:
        """Return a fresh response (one response object can be sent only once)."""
        headers = {"Retry-After": str(self.retry_after)} if self.retry_after else None
        return web.json_response({"error": self.message}, status=self.status, headers=headers)


def _verdict_response(body: bytes, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=body, content_type="application/json", charset="utf-8",
                        headers=headers)
