"""The service's parts without a sandbox: the request ledger, readiness, request checks, client."""

from __future__ import annotations

import asyncio
import http.server
import json
import socket
import threading
from typing import ClassVar

import pytest

from executors.grading.verdict import Status
from executors.service.client import ExecutorClient, NoReplicaAvailable, parse_urls
from executors.service.ledger import RequestLedger, Seen
from executors.service.protocol import BadRunRequest, RunRequest
from executors.service.server import ExecutorService
from executors.zygote.reports import LayerStatus
from tests.executors.http_service import InProcessService


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _ledger_run(coro):
    return asyncio.run(coro)


def test_a_finished_request_id_is_replayed_and_a_different_run_under_it_conflicts():
    async def scenario():
        ledger = RequestLedger()
        assert ledger.claim("r1", "a").seen is Seen.NEW
        ledger.finish("r1", b"{}")
        return ledger.claim("r1", "a"), ledger.claim("r1", "b").seen

    done, other = _ledger_run(scenario())
    assert (done.seen, done.verdict, other) == (Seen.DONE, b"{}", Seen.CONFLICT)


def test_a_second_request_while_the_first_runs_waits_for_its_verdict():
    async def scenario():
        ledger = RequestLedger()
        ledger.claim("r1", "a")
        waiting = ledger.claim("r1", "a")
        ledger.finish("r1", b"verdict")
        return waiting.seen, await waiting.pending

    assert _ledger_run(scenario()) == (Seen.RUNNING, b"verdict")


def test_request_ids_are_forgotten_after_the_ttl_and_beyond_the_capacity():
    async def scenario():
        ticks = Ticks()
        ledger = RequestLedger(ttl_s=3600, capacity=2, clock=ticks)
        for rid in ("a", "b", "c"):
            ledger.claim(rid, rid)
            ledger.finish(rid, rid.encode())
        kept = len(ledger)
        first_gone = ledger.claim("a", "a").seen
        ticks.now = 3601
        old_gone = ledger.claim("b", "b").seen
        return kept, first_gone, old_gone, len(ledger)

    # "a" was dropped for capacity; an hour later "b" and "c" expired (only the new claims stay).
    assert _ledger_run(scenario()) == (2, Seen.NEW, Seen.NEW, 2)


def test_an_abandoned_request_id_may_run_again():
    async def scenario():
        ledger = RequestLedger()
        ledger.claim("r1", "a")
        ledger.abandon("r1", RuntimeError("the sandbox failed"))
        return ledger.claim("r1", "a").seen

    assert _ledger_run(scenario()) is Seen.NEW


@pytest.mark.parametrize(("body", "fragment"), [
    ([], "JSON object"),
    ({"challenge_id": "", "code": "x", "request_id": "r"}, "challenge_id"),
    ({"challenge_id": "c", "code": 3, "request_id": "r"}, "code"),
    ({"challenge_id": "c", "code": "x", "request_id": "has space"}, "request_id"),
    ({"challenge_id": "c", "code": "x", "request_id": "r", "seed": -1}, "seed"),
    ({"challenge_id": "c", "code": "x", "request_id": "r", "seed": True}, "seed"),
    ({"challenge_id": "c", "code": "x", "request_id": "r", "extra": 1}, "unknown"),
])
def test_a_malformed_run_request_names_its_bad_field(body, fragment):
    with pytest.raises(BadRunRequest, match=fragment):
        RunRequest.from_json(body)


def test_the_fingerprint_keeps_no_code_and_tells_runs_apart():
    one = RunRequest("c", "x" * 10_000, "r", 1)
    assert len(one.fingerprint()) == 64
    assert one.fingerprint() != RunRequest("c", "x" * 10_000, "r", 2).fingerprint()


def test_a_replica_refuses_to_serve_with_a_layer_off():
    service = ExecutorService("token")
    with pytest.raises(ValueError, match="seccomp"):
        service.attach(object(), {"seccomp": LayerStatus(False, "off")},  # type: ignore[arg-type]
                       cuda=False, challenges=0)
    assert not service.readiness.ready


def test_a_warming_replica_is_not_healthy_and_its_runs_get_503_retry_after():
    with InProcessService(None) as service:
        client = ExecutorClient([service.url], service.token, patience_s=0)
        health = client.health()
        with pytest.raises(NoReplicaAvailable, match="503"):
            client.run("code.x", "def f(): pass\n")
    assert health == [(service.url, {"status": "starting", "reason": "warming up the sandbox",
                                     "cuda": False, "challenges": 0, "layers": {}})]


def test_the_client_waits_out_retry_after_within_its_patience():
    ticks, slept = Ticks(), []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        ticks.now += seconds

    with InProcessService(None) as service:
        client = ExecutorClient([service.url], service.token, patience_s=2.5, sleep=sleep,
                                clock=ticks)
        with pytest.raises(NoReplicaAvailable):
            client.run("code.x", "def f(): pass\n")
    # Retry-After says 1 s: two waits of a second, then the half second left of 2.5.
    assert slept == [1.0, 1.0, 0.5]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_no_replica_available_when_none_accepts_a_connection():
    urls = [f"http://127.0.0.1:{_closed_port()}" for _ in range(3)]
    client = ExecutorClient(urls, "token", patience_s=30)
    with pytest.raises(NoReplicaAvailable) as raised:
        client.run("code.x", "def f(): pass\n")
    assert all(url in str(raised.value) for url in urls)


class _Liar(http.server.BaseHTTPRequestHandler):
    """A "replica" that answers 200 with something that is not a verdict."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"status": "passed", "passed_tests": 9, "total_tests": 1}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_body_that_is_not_exactly_a_verdict_becomes_a_fault_verdict():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Liar)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = ExecutorClient([f"http://127.0.0.1:{server.server_address[1]}"], "token")
        verdict = client.run("code.x", "def f(): pass\n")
    finally:
        server.shutdown()
    assert verdict.fault and verdict.status is Status.ERROR and verdict.passed_tests == 0


def test_the_url_list_is_comma_separated_and_checked():
    assert parse_urls(" http://a:1/, https://b ,") == ["http://a:1", "https://b"]
    with pytest.raises(ValueError, match="not an http"):
        parse_urls("ftp://a")


class _Counting(http.server.BaseHTTPRequestHandler):
    """A replica that answers every run with a fixed verdict and counts what it got."""

    seen: ClassVar[list] = []

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).seen.append((self.server.server_address[1], self.headers["Host"]))
        body = json.dumps({"status": "passed", "passed_tests": 1, "total_tests": 1,
                           "message": "", "stdout": "", "stderr": "", "duration_ms": 1,
                           "challenge_id": "code.x", "challenge_version": 1}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_one_name_that_resolves_to_several_replicas_spreads_over_all_of_them():
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counting) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    ports = sorted(server.server_address[1] for server in servers)
    asked = []

    def resolve(host, port):  # what Docker's DNS answers for a service scaled to two
        asked.append((host, port))
        return [("127.0.0.1", p) for p in ports]

    _Counting.seen = []
    ticks = Ticks()
    try:
        client = ExecutorClient(["http://executor:8080"], "t", resolve=resolve, clock=ticks)
        for _ in range(4):
            assert client.run("code.x", "x").passed
        ticks.now += 31
        client.run("code.x", "x")
    finally:
        for server in servers:
            server.shutdown()
    assert sorted(port for port, _ in _Counting.seen[:4]) == sorted(ports * 2)
    assert {host for _, host in _Counting.seen} == {"executor:8080"}
    assert asked == [("executor", 8080)] * 2  # resolved again after half a minute
