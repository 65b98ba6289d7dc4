"""Three `torchquiz executor serve` processes on 127.0.0.1, driven over real HTTP.

Each replica admits one run at a time and queues one more, so that "full" is cheap to reach.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from prometheus_client.parser import text_string_to_metric_families

from content.loader import load_bank
from executors.grading.verdict import Status, Verdict
from executors.service.client import ExecutorClient, RunRefused
from executors.service.protocol import MAX_BODY_BYTES, REPLAYED_HEADER
from tests.executors.replica_group import ReplicaGroup, gauge, get, metrics, runs

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

TOKEN = "replica-test-token-5b1f"
CHALLENGE = "code.one-hot"
SOLUTION = load_bank().questions[CHALLENGE].code.solution
# Sleeps at import, once per run, then passes: long enough to kill a replica under it.
SLOW = "import time\ntime.sleep(2.5)\n" + SOLUTION


@pytest.fixture(scope="module")
def replicas() -> Iterator[ReplicaGroup]:
    with ReplicaGroup(TOKEN, 3, max_parallel=1, max_queue=1) as group:
        yield group


def _connection(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)


def post(url: str, body: dict | bytes, token: str | None = TOKEN,
         ) -> tuple[int, dict[str, str], dict]:
    """POST a run without the client (no retries): status, headers, decoded body."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    connection = _connection(url)
    try:
        connection.request("POST", "/v1/runs", body=data, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())
    finally:
        connection.close()


def run_body(request_id: str, code: str = SOLUTION) -> dict:
    return {"challenge_id": CHALLENGE, "code": code, "request_id": request_id}


def wait_for(predicate, what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def test_runs_are_spread_over_every_replica(replicas):
    before = [runs(u) for u in replicas.urls]
    client = ExecutorClient(replicas.urls, TOKEN)
    verdicts = [client.run(CHALLENGE, SOLUTION) for _ in range(6)]
    after = [runs(u) for u in replicas.urls]
    assert [v.status for v in verdicts] == [Status.PASSED] * 6
    deltas = [a - b for a, b in zip(after, before, strict=True)]
    assert sum(deltas) == 6 and min(deltas) >= 1, deltas


def test_a_replica_killed_mid_run_is_retried_on_another_and_ran_once_there(replicas):
    client = ExecutorClient(replicas.urls, TOKEN)
    before = [runs(u) for u in replicas.urls]
    result: dict[str, Verdict] = {}
    worker = threading.Thread(target=lambda: result.update(v=client.run(CHALLENGE, SLOW)))
    worker.start()
    busy: list[int] = []

    def someone_runs_it() -> bool:
        busy[:] = [i for i, u in enumerate(replicas.urls)
                   if gauge(u, "torchquiz_executor_runs_in_flight") == 1]
        return bool(busy)

    wait_for(someone_runs_it, "the slow run to start on a replica")
    victim = busy[0]
    replicas.procs[victim].kill()
    worker.join(60)
    assert result["v"].status is Status.PASSED
    survivors = [i for i in range(3) if i != victim]
    assert sum(runs(replicas.urls[i]) - before[i] for i in survivors) == 1
    replicas.replace(victim)


def test_without_the_token_nothing_runs_and_the_id_stays_unused(replicas):
    url = replicas.urls[0]
    before = runs(url)
    status, headers, body = post(url, run_body("auth-1"), token=None)
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
    assert post(url, run_body("auth-1"), token=TOKEN[:-1] + "x")[0] == 401
    assert runs(url) == before
    status, headers, body = post(url, run_body("auth-1"))
    assert status == 200 and REPLAYED_HEADER not in headers and body["status"] == "passed"


def test_an_oversized_body_gets_413_from_its_headers_alone(replicas):
    parts = urlsplit(replicas.urls[0])
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(b"POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
                     b"Content-Length: 50000000\r\n\r\n")
        # No body is ever sent: an answer proves the server did not wait to read it.
        assert sock.recv(4096).split(b"\r\n")[0] == b"HTTP/1.1 413 Request Entity Too Large"


def test_a_chunked_body_over_the_limit_gets_413(replicas):
    connection = _connection(replicas.urls[0])
    chunks = (b"x" * 65536 for _ in range(MAX_BODY_BYTES // 65536 + 2))
    connection.request("POST", "/v1/runs", body=chunks, encode_chunked=True,
                       headers={"Authorization": f"Bearer {TOKEN}"})
    assert connection.getresponse().status == 413


def test_code_over_the_size_limit_is_a_rejected_verdict_not_a_413(replicas):
    status, _, body = post(replicas.urls[0], run_body("big-code", "#" * 20_000 + "\n"))
    assert status == 200 and body["status"] == "rejected" and "limit" in body["message"]


def test_a_full_replica_answers_503_and_the_client_goes_to_another(replicas):
    first, second = replicas.urls[0], replicas.urls[1]
    with ThreadPoolExecutor(2) as pool:
        # One run in the sandbox and one in the queue fill a replica of 1 + 1.
        slow = [pool.submit(post, first, run_body(f"fill-{i}", SLOW)) for i in range(2)]
        wait_for(lambda: gauge(first, "torchquiz_executor_runs_in_flight") == 1
                 and gauge(first, "torchquiz_executor_queue_depth") == 1, "a full replica")
        status, headers, body = post(first, run_body("one-too-many"))
        assert status == 503 and int(headers["Retry-After"]) >= 1, body
        before = runs(second)
        verdict = ExecutorClient([first, second], TOKEN).run(CHALLENGE, SOLUTION)
        assert verdict.status is Status.PASSED and runs(second) == before + 1
        assert [f.result()[0] for f in slow] == [200, 200]
    refused = metrics(first)["torchquiz_executor_refused_requests_total"]
    assert refused[(("reason", "busy"),)] >= 2


def test_a_repeated_request_id_returns_the_stored_verdict_without_running(replicas):
    url = replicas.urls[2]
    first = post(url, run_body("repeat-1"))
    before = runs(url)
    again = post(url, run_body("repeat-1"))
    assert again[0] == 200 and again[1][REPLAYED_HEADER] == "1" and again[2] == first[2]
    assert runs(url) == before
    client = ExecutorClient([url], TOKEN)
    assert client.run(CHALLENGE, SOLUTION, request_id="repeat-1") == Verdict.from_json(first[2])
    assert runs(url) == before


def test_a_request_id_reused_for_other_code_is_refused(replicas):
    url = replicas.urls[2]
    assert post(url, run_body("reuse-1"))[0] == 200
    assert post(url, run_body("reuse-1", SOLUTION + "\n# changed\n"))[0] == 409
    with pytest.raises(RunRefused):
        ExecutorClient([url], TOKEN).run(CHALLENGE, SOLUTION + "\n#x\n", request_id="reuse-1")


def test_metrics_parse_as_prometheus_text_with_every_documented_series(replicas):
    url = replicas.urls[0]
    post(url, run_body("metrics-1"))
    text = get(url, "/metrics")[1].decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    expected = {
        "torchquiz_executor_runs": "counter",
        "torchquiz_executor_verdict_seconds": "histogram",
        "torchquiz_executor_queue_depth": "gauge",
        "torchquiz_executor_warm_children": "gauge",
        "torchquiz_executor_sandbox_faults": "counter",
        "torchquiz_executor_refused_requests": "counter",
        "torchquiz_executor_ready": "gauge",
    }
    assert {name: families[name].type for name in expected} == expected
    statuses = {s.labels["status"] for s in families["torchquiz_executor_runs"].samples}
    assert statuses == {str(s) for s in Status}
    count = next(s for s in families["torchquiz_executor_verdict_seconds"].samples
                 if s.name.endswith("_count"))
    assert count.value >= 1
    assert gauge(url, "torchquiz_executor_ready") == 1


def test_healthz_reports_every_layer_on_when_ready(replicas):
    status, body = get(replicas.urls[1], "/healthz")
    report = json.loads(body)
    assert status == 200 and report["status"] == "ready"
    assert report["layers"] and all(report["layers"].values())
