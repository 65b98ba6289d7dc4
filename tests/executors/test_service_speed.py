"""Speed challenges over the executor service: POST /v1/speed, read once by the client.

The replica is in-process (its sandbox children descend from this test), its timer real; one
timed verdict, the refusals cost none.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.kernel.errors import GradingUnavailable
from bot.core.speed import read_report
from bot.remote_executor import RemoteSpeedExecutor
from content.loader import load_bank
from executors.engine import LocalExecutor
from executors.service.client import ExecutorClient
from executors.speed.executor import LocalSpeedExecutor
from executors.speed.supervisor import SpeedTimer
from executors.zygote.supervisor import Zygote
from tests.executors.http_service import TOKEN, InProcessService
from tests.support.speed import FASTER, ROW_NORMS, running_timer, speed_bank

pytestmark = [pytest.mark.sandbox]


@pytest.fixture(scope="module")
def speed_timer() -> Iterator[SpeedTimer]:
    with running_timer() as timer:
        yield timer


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory, sandbox_zygote: Zygote,
            speed_timer: SpeedTimer) -> Iterator[InProcessService]:
    bank = load_bank(speed_bank(Path(tmp_path_factory.mktemp("speed"))))
    with InProcessService(LocalExecutor(bank, sandbox_zygote),
                          speed=LocalSpeedExecutor(bank, timer=speed_timer)) as service:
        yield service


def _post(url: str, body: dict[str, object], token: str = TOKEN) -> tuple[int, str]:
    request = urllib.request.Request(  # noqa: S310 - the local replica
        f"{url}/v1/speed", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310 - local
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_a_speed_verdict_crosses_http_and_reads_once(replica: InProcessService):
    client = ExecutorClient([replica.url], TOKEN)
    try:
        verdict = RemoteSpeedExecutor(client).speed(ROW_NORMS, FASTER)
    finally:
        client.close()
    # What crossed is pinned, not how fast the answer was (the desk's tests rank faster ones).
    assert not verdict.fault, verdict.message
    reading = read_report(verdict.speed)
    assert reading is not None, verdict.speed
    assert (verdict.status == "passed") == reading.faster, verdict.message
    assert [s.shape for s in reading.shapes] == ["small", "tall", "drawn"]
    assert all(0 < s.low <= s.high for s in reading.shapes)


def test_an_unknown_speed_challenge_is_a_404_and_the_bot_hears_unavailable(
        replica: InProcessService):
    status, text = _post(replica.url, {"challenge_id": "speed.nope", "code": FASTER,
                                       "request_id": "r-unknown"})
    assert status == 404 and "no speed challenge" in text
    client = ExecutorClient([replica.url], TOKEN, patience_s=0.5)
    try:
        with pytest.raises(GradingUnavailable):
            RemoteSpeedExecutor(client).speed("speed.nope", FASTER)
    finally:
        client.close()


def test_speed_runs_need_the_token_and_a_well_formed_body(replica: InProcessService):
    assert _post(replica.url, {"challenge_id": ROW_NORMS, "code": FASTER,
                               "request_id": "r-token"}, token="wrong")[0] == 401
    assert _post(replica.url, {"challenge_id": ROW_NORMS, "request_id": "r-body"})[0] == 400
    too_big = {"challenge_id": ROW_NORMS, "code": "#" * 2_000_000, "request_id": "r-big"}
    assert _post(replica.url, too_big)[0] == 413


def test_a_replica_without_a_timer_refuses_speed_runs(sandbox_zygote: Zygote):
    with InProcessService(LocalExecutor(load_bank(), sandbox_zygote)) as service:
        status, text = _post(service.url, {"challenge_id": ROW_NORMS, "code": FASTER,
                                           "request_id": "r-none"})
    assert status == 404 and "times no speed challenge" in text
