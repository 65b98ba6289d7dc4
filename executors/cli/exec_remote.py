"""``torchquiz exec`` through the executor service when ``TORCHQUIZ_EXECUTOR_URLS`` is set.

Imports nothing that needs torch, aiohttp or prometheus-client: the bot image grades here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TextIO

from content.loader import Bank
from content.schema import CodeItem
from executors.grading.verdict import Verdict, fault_verdict
from executors.service.client import ExecutorClient, ExecutorClientError, parse_urls
from executors.service.protocol import TOKEN_ENV, BadRunRequest, PackDefinition, pack_of
from safetext.inert import Surface, inert

log = logging.getLogger(__name__)


def run_remote(
    urls: str,
    bank: Bank,
    challenge_id: str,
    seed: int | None,
    sources: list[tuple[str, bytes]],
    emit: Callable[[str, Verdict], None],
    err: TextIO,
) -> bool:
    """Grade each file on the service and emit its verdict; False when it cannot start."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    item = bank.questions.get(challenge_id)
    if not isinstance(item, CodeItem):
        err.write(f"torchquiz exec: no code challenge {challenge_id!r}\n")
        return False
    if not token:
        err.write(f"torchquiz exec: {TOKEN_ENV} must be set to grade through the service\n")
        return False
    try:
        client = ExecutorClient(parse_urls(urls), token)
    except ValueError as exc:
        err.write(f"torchquiz exec: {exc}\n")
        return False
    definition = None
    pack_id = pack_of(challenge_id)
    if pack_id is not None:
        # The replicas know only the shipped bank: the pack's item travels with each run and
        # is built on the replica, in its sandbox.
        try:
            definition = PackDefinition.make(pack_id, None, item.model_dump(mode="json",
                                                                            by_alias=True))
        except BadRunRequest as exc:
            err.write(f"torchquiz exec: the challenge cannot be sent to the service: {exc}\n")
            client.close()
            return False
    for name, code in sources:
        # Bytes that are not UTF-8 travel as lone surrogates; the replica's precheck refuses them.
        text = code.decode("utf-8", "surrogateescape")
        try:
            verdict = client.run(challenge_id, text, seed=seed, definition=definition)
        except ExecutorClientError as exc:
            err.write(f"torchquiz exec: {inert(name, one_line=True)}: the executor service "
                      f"failed: {inert(str(exc), one_line=True)}\n")
            log.error("exec fault on %s: %s", inert(name, Surface.LOG),
                      inert(str(exc), Surface.LOG))
            verdict = fault_verdict(item.id, item.version, seed)
        emit(name, verdict)
    client.close()
    return True
