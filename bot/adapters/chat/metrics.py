"""The Prometheus metrics of one chat process, in a registry of its own.

Each process (and each test) gets its own ``CollectorRegistry``: nothing is counted in
prometheus-client's global default, so two runtimes in one test never add up. The chat front
counts answers, grading time and guarded failures; the runtime wraps the platform's publisher
so every post the scheduler makes is counted where it happens, whatever the platform.
Without prometheus-client installed (it ships with the executor extra) nothing is counted and
``/metrics`` says so; the bot runs the same.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.core.kernel.messages import Message, Tone

try:
    from prometheus_client import (
        CONTENT_TYPE_LATEST,
        CollectorRegistry,
        Counter,
        Gauge,
        Histogram,
        generate_latest,
    )
except ImportError:  # pragma: no cover - the bot image without prometheus-client
    CollectorRegistry = None  # type: ignore[assignment,misc]
    CONTENT_TYPE_LATEST = "text/plain; version=0.0.4; charset=utf-8"

log = logging.getLogger(__name__)

# Seconds from an answer's arrival at the core to its verdict: a choice is milliseconds, code
# through the sandbox tens to hundreds, a remote executor under load seconds.
GRADING_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0)


class Metrics:
    """Count what one chat process does: answers, posts, grading time, errors, backlog."""

    def __init__(self, platform: str, registry: Any = None) -> None:
        self.platform = platform
        self.enabled = CollectorRegistry is not None
        self.registry: Any = None
        if not self.enabled:
            return
        self.registry = registry if registry is not None else CollectorRegistry()
        on: dict[str, Any] = {"registry": self.registry}
        self._answers = Counter("torchquiz_answers", "Answers recorded",
                                ["platform", "mode", "correct"], **on)
        self._posts = Counter("torchquiz_posts", "Posts published to a channel",
                              ["platform", "kind"], **on)
        self._grading = Histogram("torchquiz_grading_seconds",
                                  "Time from an answer reaching the core to its reply",
                                  ["platform", "mode"], buckets=GRADING_BUCKETS, **on)
        self._errors = Counter("torchquiz_errors", "Failures caught and apologised for",
                               ["platform", "what"], **on)
        self._pending = Gauge("torchquiz_pending_answers",
                              "Code answers waiting for an executor", ["platform"], **on)
        self._limited = Counter("torchquiz_rate_limited", "Requests refused by a rate limit",
                                ["platform", "what"], **on)

    def answer(self, mode: str, correct: bool) -> None:
        """Count one recorded answer."""
        if self.enabled:
            self._answers.labels(self.platform, mode, "true" if correct else "false").inc()

    def post(self, kind: str) -> None:
        """Count one post that went out: ``round``, ``reveal`` or ``board``."""
        if self.enabled:
            self._posts.labels(self.platform, kind).inc()

    def grading(self, mode: str, seconds: float) -> None:
        """Record how long one answer took from the core's door to its reply."""
        if self.enabled:
            self._grading.labels(self.platform, mode).observe(seconds)

    def error(self, what: str) -> None:
        """Count one failure the guard caught (``what``: the request kind or the job)."""
        if self.enabled:
            self._errors.labels(self.platform, what).inc()

    def pending(self, count: int) -> None:
        """Set how many code answers wait for an executor."""
        if self.enabled:
            self._pending.labels(self.platform).set(count)

    def rate_limited(self, what: str) -> None:
        """Count one request a rate limit refused."""
        if self.enabled:
            self._limited.labels(self.platform, what).inc()

    def exposition(self) -> tuple[bytes, str]:
        """Return the Prometheus text of every metric and its content type."""
        if self.registry is None:
            return b"# prometheus-client is not installed: no metrics\n", CONTENT_TYPE_LATEST
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


def correct(message: Message | None) -> bool:
    """Say whether the core's reply to a recorded answer is the right-answer one."""
    return message is not None and message.tone is Tone.SUCCESS


class CountingPublisher:
    """A platform publisher that counts each post it makes, for the scheduler to use.

    Only what went out is counted; a failure is counted as an error and raised again, so the
    scheduler's own handling (log, retry after the lease) is unchanged.
    """

    def __init__(self, publisher: Any, metrics: Metrics) -> None:
        self._publisher = publisher
        self._metrics = metrics

    def __getattr__(self, name: str) -> Any:
        # Whatever else the scheduler asks of the publisher (finding an earlier post...).
        return getattr(self._publisher, name)

    async def _counted(self, kind: str, call: Any, *args: Any) -> Any:
        try:
            result = await call(*args)
        except Exception:
            self._metrics.error(f"publish {kind}")
            raise
        self._metrics.post(kind)
        return result

    async def publish_round(self, post: Any) -> Any:
        """Post a new round (counted)."""
        return await self._counted("round", self._publisher.publish_round, post)

    async def publish_reveal(self, reveal: Any) -> Any:
        """Post a reveal (counted)."""
        return await self._counted("reveal", self._publisher.publish_reveal, reveal)

    async def publish_board(self, channel: Any, message: Any) -> Any:
        """Post a weekly board (counted)."""
        return await self._counted("board", self._publisher.publish_board, channel, message)

    async def deliver_private(self, delivery: Any) -> Any:
        """Deliver a graded pending answer: it was recorded, so count it as an answer."""
        self._metrics.answer("code", correct(getattr(delivery, "message", None)))
        try:
            return await self._publisher.deliver_private(delivery)
        except Exception:
            self._metrics.error("deliver")
            raise
