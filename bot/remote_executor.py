"""Grade code answers on the executor service's replicas: the core's Executor port over HTTP.

The client (executors.service.client) needs no torch; this wrapper adds what the core needs:
``GradingUnavailable`` when no replica can take a run (the core then keeps the answer as
pending), and ``supports`` answered from the bank and from what the replicas report.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from bot.core.errors import GradingUnavailable
from bot.core.ports import VerdictView
from content.loader import Bank
from content.schema import CodeItem
from executors.service.client import ExecutorClient, NoReplicaAvailable
from safetext.inert import Surface, inert

log = logging.getLogger(__name__)

CAPABILITY_TTL_S = 60.0


class RemoteExecutor:
    """Run submissions through an ExecutorClient; safe to call from many threads."""

    def __init__(
        self,
        client: ExecutorClient,
        bank: Bank,
        *,
        capability_ttl_s: float = CAPABILITY_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.bank = bank
        self._ttl_s = capability_ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._cuda: bool | None = None
        self._checked_at = float("-inf")

    def run(self, challenge_id: str, code: str, *, seed: int | None = None) -> VerdictView:
        """Return the replicas' verdict; GradingUnavailable when none can take the run."""
        try:
            return self.client.run(challenge_id, code, seed=seed)
        except NoReplicaAvailable as exc:
            log.warning("grading unavailable challenge=%s: %s", challenge_id,
                        inert(str(exc), Surface.LOG))
            raise GradingUnavailable(str(exc)) from exc

    def supports(self, challenge_id: str) -> tuple[bool, str]:
        """Return whether the replicas can run the challenge (a CUDA one needs a GPU replica)."""
        item = self.bank.questions.get(challenge_id)
        if not isinstance(item, CodeItem):
            return False, f"{challenge_id} is not a code challenge"
        if "cuda" in item.code.requires and self._replicas_have_cuda() is False:
            return False, (f"challenge {challenge_id} needs a CUDA GPU, and no executor "
                           "replica has one")
        # Unknown (no replica answered): say yes; the run then waits as a pending answer.
        return True, ""

    def _replicas_have_cuda(self) -> bool | None:
        with self._lock:
            if self._clock() - self._checked_at < self._ttl_s:
                return self._cuda
            ready = [h for _, h in self.client.health() if h and h.get("status") == "ready"]
            self._cuda = any(h.get("cuda") is True for h in ready) if ready else None
            self._checked_at = self._clock()
            return self._cuda

    def close(self) -> None:
        """Close the calling thread's connections."""
        self.client.close()
