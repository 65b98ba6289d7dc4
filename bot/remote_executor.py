"""Grade code answers on the executor service's replicas: the core's Executor port over HTTP.

The client (executors.service.client) needs no torch; this wrapper adds what the core needs:
``GradingUnavailable`` when no replica can take a run (the core then keeps the answer as
pending), and ``supports`` answered from the bank and from what the replicas report.

The replicas know only the shipped bank: a team pack's challenge (``p.<pack>.<item>``) is sent
with its definition, read from the bank at call time (the bank a workspace sees may change
while the bot runs), and built on the replica in its sandbox. ``check_pack`` validates a pack
file on a replica, for a bot that has no sandbox of its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from bot.core.kernel.errors import GradingUnavailable
from bot.core.kernel.ports import SpeedVerdictView, VerdictView
from content.loader import Bank
from content.schema import CodeItem
from executors.grading.reasons import MAX_QUOTE_CHARS, Reason
from executors.grading.verdict import Status, Verdict
from executors.service.client import ExecutorClient, NoReplicaAvailable, RunRefused
from executors.service.protocol import BadRunRequest, PackCheck, PackDefinition, pack_of
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
            definition = self._definition(challenge_id)
        except BadRunRequest as exc:  # an item too large to send: supports() says so too
            return self._rejected(challenge_id, seed,
                                  Reason("pack_unsendable", quote=str(exc)[:MAX_QUOTE_CHARS]))
        if definition is None and pack_of(challenge_id) is not None:
            # Removed from the workspace's packs since it was posted: nothing can build it.
            return self._rejected(challenge_id, seed, Reason("pack_gone"))
        try:
            return self.client.run(challenge_id, code, seed=seed, definition=definition)
        except NoReplicaAvailable as exc:
            log.warning("grading unavailable challenge=%s: %s", challenge_id,
                        inert(str(exc), Surface.LOG))
            raise GradingUnavailable(str(exc)) from exc

    @staticmethod
    def _rejected(challenge_id: str, seed: int | None, reason: Reason) -> Verdict:
        return Verdict(status=Status.REJECTED, passed_tests=0, total_tests=0, reason=reason,
                       challenge_id=challenge_id, seed=seed)

    def _definition(self, challenge_id: str) -> PackDefinition | None:
        """Return what a replica needs to build a team pack's challenge (None: a shipped one)."""
        pack_id = pack_of(challenge_id)
        if pack_id is None:
            return None
        # Read now, never kept: the pack may have a new version since the last run.
        item = self.bank.questions.get(challenge_id)
        if not isinstance(item, CodeItem):
            return None  # the replica answers that a pack challenge needs its definition
        data = item.model_dump(mode="json", by_alias=True)
        return PackDefinition.make(pack_id, self._pack_version(pack_id), data)

    def _pack_version(self, pack_id: str) -> int | None:
        """Return the version of ``pack_id`` the bank holds, when the bank says (for logs)."""
        versions = getattr(self.bank, "pack_versions", None)
        version = versions.get(pack_id) if isinstance(versions, dict) else None
        return version if isinstance(version, int) and version >= 1 else None

    def check_pack(self, data: bytes) -> PackCheck:
        """Validate a pack file on a replica: ``{"ok", "errors", "items", "cards"}``.

        Raise GradingUnavailable when no replica can take it (all down or busy); a refusal
        of the file itself is a report that it is not valid.
        """
        try:
            return self.client.check_pack(data)
        except NoReplicaAvailable as exc:
            log.warning("pack validation unavailable: %s", inert(str(exc), Surface.LOG))
            raise GradingUnavailable(str(exc)) from exc
        except RunRefused as exc:
            log.warning("pack validation refused: %s", inert(str(exc), Surface.LOG))
            return PackCheck(False, (f"the executor refused the pack: {exc}",), 0, 0)

    def supports(self, challenge_id: str) -> tuple[bool, str]:
        """Return whether the replicas can run the challenge (a CUDA one needs a GPU replica)."""
        item = self.bank.questions.get(challenge_id)
        if not isinstance(item, CodeItem):
            return False, f"{challenge_id} is not a code challenge"
        if pack_of(challenge_id) is not None:
            # Built on a replica from its definition, in the sandbox, on the CPU.
            if item.code.requires:
                return False, (f"challenge {challenge_id} is a team pack's: it runs on the "
                               "CPU only, and it asks for a GPU")
            try:
                self._definition(challenge_id)
            except BadRunRequest as exc:
                return False, f"challenge {challenge_id} cannot be sent to the executor: {exc}"
            return True, ""
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


class RemoteSpeedExecutor:
    """Time speed answers on the executor service's replicas: the SpeedExecutor port over HTTP.

    The verdict is read once by the client (its timing report checked by
    ``Verdict.from_json``); a refusal by every replica is ``GradingUnavailable``.
    """

    def __init__(self, client: ExecutorClient) -> None:
        self.client = client

    def speed(self, challenge_id: str, code: str, *, seed: int | None = None
              ) -> SpeedVerdictView:
        """Return the replicas' speed verdict; GradingUnavailable when none can take it."""
        try:
            return self.client.speed(challenge_id, code, seed=seed)
        except (NoReplicaAvailable, RunRefused) as exc:
            log.warning("speed timing unavailable challenge=%s: %s", challenge_id,
                        inert(str(exc), Surface.LOG))
            raise GradingUnavailable(str(exc)) from exc
