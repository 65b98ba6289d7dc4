"""The web process's Prometheus metrics, in a registry of its own (as the chat processes').

Requests are counted by route pattern (``/channels/{channel}/board``), never by the path a
browser sent, so a scanner cannot grow the label set; sign-ins by outcome. Without
prometheus-client installed nothing is counted and ``/metrics`` says so.
"""

from __future__ import annotations

from typing import Any

try:
    from prometheus_client import (
        CONTENT_TYPE_LATEST,
        CollectorRegistry,
        Counter,
        Histogram,
        generate_latest,
    )
except ImportError:  # pragma: no cover - an image without prometheus-client
    CollectorRegistry = None  # type: ignore[assignment,misc]
    CONTENT_TYPE_LATEST = "text/plain; version=0.0.4; charset=utf-8"

# A page is a few queries: milliseconds; a board at 500 rows or a cold chart tens to hundreds.
PAGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
SIGN_INS = ("signed_in", "refused", "logout")


class WebMetrics:
    """Count the page's requests, their time, and sign-ins."""

    def __init__(self, registry: Any = None) -> None:
        self.enabled = CollectorRegistry is not None
        self.registry: Any = None
        if not self.enabled:
            return
        self.registry = registry if registry is not None else CollectorRegistry()
        on: dict[str, Any] = {"registry": self.registry}
        self._requests = Counter("torchquiz_web_requests", "Requests the web page answered",
                                 ["route", "method", "status"], **on)
        self._seconds = Histogram("torchquiz_web_request_seconds", "Time to answer a request",
                                  ["route"], buckets=PAGE_BUCKETS, **on)
        self._sign_ins = Counter("torchquiz_web_sign_ins", "Sign-in links used, refused; logouts",
                                 ["outcome"], **on)

    def request(self, route: str, method: str, status: int, seconds: float) -> None:
        """Count one answered request."""
        if self.enabled:
            self._requests.labels(route, method[:8], str(status)).inc()
            self._seconds.labels(route).observe(seconds)

    def sign_in(self, outcome: str) -> None:
        """Count a sign-in outcome (one of SIGN_INS)."""
        if self.enabled and outcome in SIGN_INS:
            self._sign_ins.labels(outcome).inc()

    def exposition(self) -> tuple[bytes, str]:
        """Return the text exposition and its content type."""
        if not self.enabled:
            return b"# prometheus-client is not installed\n", CONTENT_TYPE_LATEST
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
