"""The executor service's Prometheus metrics, in a registry of its own (never the global one)."""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from executors.grading.verdict import Status

CONTENT_TYPE = CONTENT_TYPE_LATEST
# From a warm verdict (~20 ms) to a submission that hits its 10 s time limit behind a queue.
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
REFUSAL_REASONS = ("unauthorized", "too_large", "bad_request", "busy", "not_ready", "conflict",
                   "unknown_challenge")  # fmt: skip
FAULT_KINDS = ("grading", "sandbox", "speed")


class ServiceMetrics:
    """Count runs by status, time verdicts, and expose queue depth and warm children."""

    def __init__(self) -> None:
        # A registry per service: tests start several in one process, and nothing global leaks.
        self.registry = CollectorRegistry()
        r = self.registry
        self.runs = Counter("torchquiz_executor_runs", "Runs that produced a verdict, by status",
                            ["status"], registry=r)
        self.latency = Histogram(
            "torchquiz_executor_verdict_seconds",
            "Time from admitting a run to its verdict, queueing included",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.queue_depth = Gauge("torchquiz_executor_queue_depth",
                                 "Admitted runs waiting for a free sandbox slot", registry=r)
        self.in_flight = Gauge("torchquiz_executor_runs_in_flight",
                               "Runs executing in the sandbox now", registry=r)
        self.warm_children = Gauge(
            "torchquiz_executor_warm_children",
            "Pre-forked sandbox children waiting for a run (the template's children not running)",
            registry=r,
        )
        self.faults = Counter(
            "torchquiz_executor_sandbox_faults",
            "Runs the executor itself failed: grading (a fault verdict) or sandbox (no verdict)",
            ["kind"], registry=r,
        )
        self.refused = Counter("torchquiz_executor_refused_requests",
                               "Run requests answered without running, by reason",
                               ["reason"], registry=r)
        self.replayed = Counter("torchquiz_executor_replayed_verdicts",
                                "Verdicts returned again for a repeated request id", registry=r)
        self.pack_validations = Counter(
            "torchquiz_executor_pack_validations",
            "Team packs validated (POST /v1/packs/validate), by result", ["result"], registry=r)
        self.ready = Gauge("torchquiz_executor_ready",
                           "1 when warm and every isolation layer passed its check", registry=r)
        # Every series exists from the first scrape, so rates and alerts need no special case.
        for status in Status:
            self.runs.labels(status=str(status))
        for kind in FAULT_KINDS:
            self.faults.labels(kind=kind)
        for reason in REFUSAL_REASONS:
            self.refused.labels(reason=reason)
        for result in ("valid", "not_valid"):
            self.pack_validations.labels(result=result)

    def watch_warm_children(self, count: Callable[[], float]) -> None:
        """Read the warm-children gauge from ``count`` at every scrape."""
        self.warm_children.set_function(count)

    def render(self) -> bytes:
        """Return every metric in the Prometheus text format."""
        return generate_latest(self.registry)
