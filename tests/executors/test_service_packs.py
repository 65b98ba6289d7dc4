"""Team packs on the executor service, without a sandbox: what a run with a definition must be,
what the replica refuses at its boundary, and what the client and the bot's wrapper send."""

from __future__ import annotations

import hashlib
import http.client
import http.server
import json
import threading
from urllib.parse import urlsplit

import pytest

from bot.remote_executor import RemoteExecutor
from content import packs
from content.loader import Bank
from executors.grading.challenges import UnknownChallenge
from executors.grading.verdict import Status, Verdict
from executors.service.client import ExecutorClient
from executors.service.protocol import (
    MAX_BODY_BYTES,
    MAX_DEFINITION_BYTES,
    MAX_PACK_BYTES,
    BadRunRequest,
    PackCheck,
    PackDefinition,
    RunRequest,
)
from tests.executors.builders import code_item
from tests.executors.http_service import InProcessService

SPEC = {"entrypoint": "f", "signature": "def f()", "starter": "def f():\n    ...\n",
        "solution": "def f():\n    return 1\n",
        "tests": {"generator": "def cases(g):\n    return [{'args': []}]\n"}}
PACK_ITEM = code_item(SPEC, "p.team.one", seed_refs=["000:0"])
SHIPPED = code_item(SPEC, "code.shipped")


def item_json(item=PACK_ITEM, **changes):
    return {**item.model_dump(mode="json", by_alias=True), **changes}


def body(request_id="r1", challenge_id="p.team.one", definition=None, **fields):
    data = {"challenge_id": challenge_id, "code": "def f():\n    return 1\n",
            "request_id": request_id, **fields}
    if definition is not None:
        data["definition"] = definition
    return data


def definition(item=None, pack_id="team", version=3):
    return {"pack": {"id": pack_id, "version": version},
            "item": item if item is not None else item_json()}


class RecordingEngine:
    """An engine that records what it was asked and passes everything."""

    def __init__(self, bank_items=(SHIPPED,)):
        self.items = {i.id: i for i in bank_items}
        self.runs = []
        self.checked = []

    def run(self, challenge_id, code, *, seed=None, item=None):
        self.runs.append((challenge_id, item))
        return Verdict(status=Status.PASSED, passed_tests=1, total_tests=1, message="",
                       challenge_id=challenge_id, seed=seed)

    def challenge_item(self, challenge_id):
        if challenge_id not in self.items:
            raise UnknownChallenge(challenge_id)
        return self.items[challenge_id]

    def check_pack(self, data, *, workers=2):
        self.checked.append(data)
        return PackCheck(b"bad" not in data, ("line 1, column 1: bad",) if b"bad" in data
                         else (), 1, 0)


@pytest.fixture
def engine():
    return RecordingEngine()


@pytest.fixture
def service(engine):
    with InProcessService(engine, check_pack=engine.check_pack) as running:
        yield running


def post(url, path, data, token, content_type="application/json"):
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        headers = {"Content-Type": content_type}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        connection.request("POST", path, body=raw, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())
    finally:
        connection.close()


def run(service, data):
    return post(service.url, "/v1/runs", data, service.token)


# ------------------------------------------------------------------ the protocol


def test_a_run_without_a_definition_keeps_the_fingerprint_old_replicas_computed():
    request = RunRequest("code.one-hot", "x = 1\n", "r", 7)
    old = hashlib.sha256(json.dumps(["code.one-hot", "x = 1\n", 7]).encode()).hexdigest()
    assert request.fingerprint() == old
    assert "definition" not in request.to_json()


def test_two_definitions_of_one_run_have_different_fingerprints():
    one = RunRequest.from_json(body(definition=definition()))
    other = RunRequest.from_json(body(definition=definition(
        item_json(code={**SPEC, "solution": "def f():\n    return 2\n"}))))
    again = RunRequest.from_json(body(definition=definition()))
    assert one.fingerprint() != other.fingerprint()
    assert one.fingerprint() == again.fingerprint()
    assert one.fingerprint() != RunRequest.from_json(body(challenge_id="p.team.one")).fingerprint()


@pytest.mark.parametrize(("data", "fragment"), [
    (body(challenge_id="code.shipped", definition=definition(item_json(id="code.shipped"))),
     "a shipped challenge takes no definition"),
    (body(definition=definition(item_json(id="p.team.other"))), "must be the run's challenge_id"),
    (body(definition=definition(pack_id="other")), "not the pack of"),
    (body(definition={"item": item_json()}), "exactly 'pack' and 'item'"),
    (body(definition=definition(version="3")), "version"),
    (body(definition=definition(item=[1])), "must be an object"),
])
def test_a_malformed_definition_names_what_is_wrong(data, fragment):
    with pytest.raises(BadRunRequest, match=fragment):
        RunRequest.from_json(data)


def test_the_pack_size_limit_is_the_pack_parsers_own():
    assert MAX_PACK_BYTES == packs.MAX_PACK_BYTES


def test_a_pack_report_must_be_exactly_the_contracts_object():
    assert PackCheck.from_json({"ok": False, "errors": ["x"], "items": 1, "cards": 0}
                               ) == PackCheck(False, ("x",), 1, 0)
    for bad in ({"ok": True, "errors": ["x"], "items": 1, "cards": 0},
                {"ok": False, "errors": [], "items": 1, "cards": 0},
                {"ok": 1, "errors": [], "items": 1, "cards": 0},
                {"ok": True, "errors": [], "items": -1, "cards": 0},
                {"ok": True, "errors": [], "items": 1, "cards": 0, "more": 1}):
        with pytest.raises(ValueError):
            PackCheck.from_json(bad)


# ------------------------------------------------------------------ the replica's boundary


def test_a_pack_run_reaches_the_engine_with_the_item_built_from_its_definition(service, engine):
    status, _, verdict = run(service, body(definition=definition()))
    assert status == 200 and verdict["status"] == "passed"
    ((challenge_id, item),) = engine.runs
    assert challenge_id == "p.team.one" and item == PACK_ITEM


def test_a_shipped_run_from_an_old_client_is_graded_as_before(service, engine):
    status, _, _ = run(service, body(challenge_id="code.shipped"))
    assert status == 200 and engine.runs == [("code.shipped", None)]


@pytest.mark.parametrize(("data", "fragment"), [
    (body(), "must carry the item's definition"),
    (body(definition=definition(item_json(id="p.team.other"))), "challenge_id"),
    (body(challenge_id="code.shipped", definition=definition(item_json(id="code.shipped"))),
     "shipped challenge"),
    (body(definition=definition(item_json(version=0))), "version"),
    (body(definition=definition(item_json(kind="choice"))), "not a valid code item"),
])
def test_a_bad_pack_run_gets_a_clear_400_and_runs_nothing(service, engine, data, fragment):
    status, _, answer = run(service, data)
    assert status == 400 and fragment in answer["error"]
    assert engine.runs == []


def test_a_pack_id_the_replicas_bank_holds_takes_no_definition():
    engine = RecordingEngine(bank_items=(PACK_ITEM,))
    with InProcessService(engine) as service:
        status, _, answer = run(service, body(definition=definition()))
    assert status == 400 and "shipped bank" in answer["error"] and engine.runs == []


def test_a_definition_over_its_limit_is_refused_before_anything_runs(service, engine):
    padded = item_json(code={**SPEC, "solution": "def f():\n    return 1\n" + "#" * (
        MAX_DEFINITION_BYTES + 1)})
    status, _, answer = run(service, body(definition=definition(padded)))
    assert status == 400 and "the limit is 262,144" in answer["error"]
    assert engine.runs == []


def test_a_run_body_over_its_limit_gets_413(service, engine):
    padded = item_json(code={**SPEC, "solution": "#" * MAX_BODY_BYTES})
    status, _, _ = run(service, body(definition=definition(padded)))
    assert status == 413 and engine.runs == []


def test_a_body_nested_past_the_parsers_depth_is_a_400_not_a_crash(service):
    status, _, answer = post(service.url, "/v1/runs", b"[" * 200_000, service.token)
    assert status == 400 and "not JSON" in answer["error"]


def test_a_replayed_request_id_with_another_definition_is_a_conflict(service, engine):
    assert run(service, body("same", definition=definition()))[0] == 200
    other = definition(item_json(code={**SPEC, "solution": "def f():\n    return 2\n"}))
    status, _, _ = run(service, body("same", definition=other))
    assert status == 409 and len(engine.runs) == 1
    status, headers, _ = run(service, body("same", definition=definition()))
    assert status == 200 and headers.get("X-Torchquiz-Replayed") == "1"
    assert len(engine.runs) == 1


def test_pack_validation_needs_the_token(service, engine):
    status, headers, _ = post(service.url, "/v1/packs/validate", b"pack: {}", None,
                              "application/yaml")
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
    assert post(service.url, "/v1/packs/validate", b"pack: {}", "wrong",
                "application/yaml")[0] == 401
    assert engine.checked == []


def test_a_pack_over_a_mebibyte_gets_413_and_is_never_validated(service, engine):
    data = b"#" * (MAX_PACK_BYTES + 1)
    status, _, _ = post(service.url, "/v1/packs/validate", data, service.token,
                        "application/yaml")
    assert status == 413 and engine.checked == []


def test_a_replica_without_a_pack_checker_answers_404():
    with InProcessService(RecordingEngine()) as service:
        status, _, answer = post(service.url, "/v1/packs/validate", b"pack", service.token)
    assert status == 404 and "validates no packs" in answer["error"]


def test_a_report_with_thousands_of_errors_is_bounded():
    class Noisy(RecordingEngine):
        def check_pack(self, data, *, workers=2):
            return PackCheck(False, tuple(f"problem {i}: " + "x" * 5000 for i in range(900)),
                             500, 0)

    noisy = Noisy()
    with InProcessService(noisy, check_pack=noisy.check_pack) as service:
        status, _, answer = post(service.url, "/v1/packs/validate", b"pack", service.token)
    assert status == 200 and answer["ok"] is False and len(answer["errors"]) == 200
    assert all(len(e) <= 1000 for e in answer["errors"])
    assert answer["errors"][-1].startswith("… and 701 more problem(s)")


# ------------------------------------------------------------------ the client and the bot


def test_the_bot_sends_the_items_definition_read_from_the_bank_at_call_time(service, engine):
    bank = Bank(questions={PACK_ITEM.id: PACK_ITEM, SHIPPED.id: SHIPPED})
    executor = RemoteExecutor(ExecutorClient([service.url], service.token), bank)
    assert executor.run(PACK_ITEM.id, "def f():\n    return 1\n").status is Status.PASSED
    # A new version of the pack replaces the item in the live bank: the next run sends it.
    changed = code_item({**SPEC, "solution": "def f():\n    return 2\n"}, "p.team.one",
                        version=2, seed_refs=["000:0"])
    bank.questions[PACK_ITEM.id] = changed
    executor.run(PACK_ITEM.id, "def f():\n    return 1\n")
    executor.run(SHIPPED.id, "def f():\n    return 1\n")
    assert [item for _, item in engine.runs] == [PACK_ITEM, changed, None]


def test_supports_answers_for_pack_items_too():
    gpu = code_item({**SPEC, "requires": ["cuda"]}, "p.team.gpu", seed_refs=["000:0"])
    bank = Bank(questions={PACK_ITEM.id: PACK_ITEM, gpu.id: gpu})
    executor = RemoteExecutor(ExecutorClient(["http://127.0.0.1:9"], "t", patience_s=0), bank)
    assert executor.supports(PACK_ITEM.id) == (True, "")
    ok, why = executor.supports(gpu.id)
    assert not ok and "CPU only" in why
    assert executor.supports("p.team.missing")[0] is False


def test_check_pack_returns_the_replicas_report(service, engine):
    executor = RemoteExecutor(ExecutorClient([service.url], service.token), Bank())
    assert executor.check_pack(b"pack: fine") == PackCheck(True, (), 1, 0)
    assert executor.check_pack(b"pack: bad") == PackCheck(False, ("line 1, column 1: bad",), 1, 0)
    assert engine.checked == [b"pack: fine", b"pack: bad"]


def test_a_pack_over_the_limit_is_answered_without_being_sent(service, engine):
    client = ExecutorClient([service.url], service.token)
    report = client.check_pack(b"x" * (MAX_PACK_BYTES + 1))
    assert not report.ok and "a pack may be at most 1,048,576 bytes" in report.errors[0]
    assert engine.checked == []


class _Liar(http.server.BaseHTTPRequestHandler):
    """A "replica" that answers a validation with something that is not a report."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        answer = json.dumps({"ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def test_an_answer_that_is_not_a_report_is_a_pack_that_is_not_valid():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Liar)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = ExecutorClient([f"http://127.0.0.1:{server.server_address[1]}"], "token")
        report = client.check_pack(b"pack: x")
    finally:
        server.shutdown()
    assert not report.ok and "not a pack report" in report.errors[0]


def test_a_definition_too_large_to_send_is_a_rejected_verdict_not_a_crash(service, engine):
    huge = code_item({**SPEC, "solution": "def f():\n    return 1\n" + "#" * (
        MAX_DEFINITION_BYTES + 1)}, "p.team.huge", seed_refs=["000:0"])
    executor = RemoteExecutor(ExecutorClient([service.url], service.token),
                              Bank(questions={huge.id: huge}))
    assert executor.supports(huge.id)[0] is False
    verdict = executor.run(huge.id, "def f():\n    return 1\n")
    assert verdict.status is Status.REJECTED and engine.runs == []


def test_a_definition_is_made_with_its_digest():
    made = PackDefinition.make("team", None, item_json())
    assert len(made.digest) == 64 and made.to_json()["pack"] == {"id": "team", "version": None}


def test_the_engine_takes_a_supplied_item_only_for_a_pack_id_its_bank_lacks():
    from executors.engine import LocalExecutor

    class NeverRuns:
        def run(self, request, limits):
            raise AssertionError("nothing may run")

        def close(self):
            pass

    engine = LocalExecutor(Bank(questions={SHIPPED.id: SHIPPED}), NeverRuns(),
                           cuda_available=False)
    with pytest.raises(ValueError, match="team pack item"):
        engine.run("p.team.other", "x = 1\n", item=PACK_ITEM)
    with pytest.raises(ValueError, match="team pack item"):
        engine.run(SHIPPED.id, "x = 1\n", item=SHIPPED)


def test_a_pack_item_gone_from_the_bank_is_a_rejected_verdict_without_a_request(service, engine):
    executor = RemoteExecutor(ExecutorClient([service.url], service.token), Bank())
    verdict = executor.run("p.team.gone", "def f():\n    return 1\n")
    assert verdict.status is Status.REJECTED and "no longer available" in verdict.message
    assert engine.runs == []
