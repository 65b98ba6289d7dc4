"""Team packs on the executor service over real HTTP, with the real sandbox: a pack challenge
graded from the definition its run carries, hostile pack code contained on the replica, and a
pack validated where the bot has no sandbox of its own."""

from __future__ import annotations

import json
import os
import threading
import time
import uuid

import pytest

from bot.cli import main
from bot.remote_executor import RemoteExecutor
from content.loader import load_bank
from content.packs import SCAFFOLD, parse_pack, with_packs
from executors.engine import LocalExecutor
from executors.grading import challenges
from executors.grading.pack_challenges import build_pack_challenge, validate_pack
from executors.grading.verdict import Status
from executors.service.client import ExecutorClient, NoReplicaAvailable, RunRefused
from executors.service.protocol import TOKEN_ENV, URLS_ENV, PackCheck
from tests.executors.http_service import InProcessService
from tests.executors.replica_group import metrics
from tests.support.executors import assert_nothing_left
from tests.support.packs import PACK_LIMITS, code_item, pack_text

pytestmark = pytest.mark.sandbox

SOLUTION = "def double(x):\n    return x * 2\n"
STARTER = "def double(x):\n    return x\n"


@pytest.fixture(autouse=True)
def no_trusted_exec(monkeypatch):
    # The service runs in this process: its trusted side must never run a pack's code.
    def refuse(source, filename):
        raise AssertionError(f"pack code reached the trusted side: {filename}")

    monkeypatch.setattr(challenges, "_exec_trusted", refuse)


@pytest.fixture(scope="module")
def service(zygote):
    # The replica as `executor serve` builds it: the shipped bank only, and the pack builder.
    bank = load_bank()
    engine = LocalExecutor(bank, zygote, cuda_available=False, base_limits=PACK_LIMITS,
                           pack_builder=build_pack_challenge)

    def check_pack(data):
        return validate_pack(data, bank, zygote, PACK_LIMITS)

    with InProcessService(engine, check_pack=check_pack) as running:
        yield running


def bot_side(service, *items):
    """Return the bot's remote executor, its bank holding a pack of ``items``."""
    pack = parse_pack(pack_text(*items)).pack if items else None
    bank = with_packs(load_bank(), [pack] if pack else [])
    return RemoteExecutor(ExecutorClient([service.url], service.token), bank), pack


def test_a_pack_challenge_is_graded_remotely_right_and_wrong(service):
    executor, _ = bot_side(service, code_item())
    right = executor.run("p.team.double", SOLUTION)
    wrong = executor.run("p.team.double", STARTER)
    assert (right.status, right.passed_tests, right.total_tests) == (Status.PASSED, 3, 3)
    assert wrong.status is Status.FAILED and not wrong.fault
    assert executor.supports("p.team.double") == (True, "")


def test_a_pack_generator_never_runs_in_the_service_process(service):
    marker = f"/tmp/torchquiz-remote-marker-{uuid.uuid4().hex}"
    generator = (
        "import os\n\n\ndef cases(g):\n"
        f"    open({marker!r}, 'w').write(str(os.getpid()))\n"
        "    return [{'args': [os.getpid()]}]\n"
    )
    executor, _ = bot_side(service, code_item(
        generator=generator, solution="def double(x):\n    return x\n", item_id="pid"))
    # The hidden input is the pid the generator saw, the expected output that same pid: had
    # the generator run in this process (the service's), returning our pid would pass.
    ours = executor.run("p.team.pid", f"def double(x):\n    return {os.getpid()}\n")
    echo = executor.run("p.team.pid", "def double(x):\n    return x\n")
    assert ours.status is Status.FAILED and echo.status is Status.PASSED
    assert not os.path.exists(marker)  # its file went to the run's private tmpfs


HOSTILE = {
    "forks": ("import os\n\n\ndef cases(g):\n    while True:\n        os.fork()\n",
              "the generator"),
    "loops": ("def cases(g):\n    while True:\n        pass\n", "the generator ran longer than"),
    "reads the environment": (
        "import os\n\n\ndef cases(g):\n"
        "    raise RuntimeError('secret=' + str(os.environ.get('TORCHQUIZ_SECRET')))\n",
        "RuntimeError: secret=None"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_definition_is_contained_and_fails_clearly(service, name, monkeypatch):
    monkeypatch.setenv("TORCHQUIZ_SECRET", "s3cr3t-remote-pack-value")
    generator, reason = HOSTILE[name]
    executor, _ = bot_side(service, code_item(generator=generator, item_id="hostile"))
    verdict = executor.run("p.team.hostile", SOLUTION)
    # The pack is broken, not the member's answer: a fault verdict (the try does not count).
    assert verdict.fault and verdict.status is Status.ERROR
    assert "team pack's challenge cannot be built" in verdict.message
    assert reason in verdict.message and "s3cr3t" not in verdict.message
    assert_nothing_left()
    # The replica still grades afterwards.
    sound, _ = bot_side(service, code_item())
    assert sound.run("p.team.double", SOLUTION).status is Status.PASSED


def test_a_replayed_request_id_with_another_definition_never_reuses_the_verdict(service):
    executor, _ = bot_side(service, code_item())
    changed, _ = bot_side(service, code_item(solution="def double(x):\n    return x * 3\n"))
    first = executor.client.run("p.team.double", SOLUTION, request_id="replay-def",
                                definition=executor._definition("p.team.double"))
    assert first.status is Status.PASSED
    with pytest.raises(RunRefused, match="409"):
        changed.client.run("p.team.double", SOLUTION, request_id="replay-def",
                           definition=changed._definition("p.team.double"))
    # Under a fresh id the other definition is graded on its own: triple is the reference.
    assert changed.run("p.team.double", SOLUTION).status is Status.FAILED


def test_a_pack_is_validated_on_the_replica(service):
    executor, _ = bot_side(service)
    before = metrics(service.url)["torchquiz_executor_pack_validations_total"]
    assert executor.check_pack(SCAFFOLD.encode()) == PackCheck(True, (), 3, 0)
    starter_passes = pack_text(code_item(starter="def double(x):\n    return x + x\n"))
    report = executor.check_pack(starter_passes)
    assert not report.ok and report.errors[0].endswith(
        "p.team.double: the starter already passes the hidden tests")
    after = metrics(service.url)["torchquiz_executor_pack_validations_total"]
    assert after[(("result", "valid"),)] == before[(("result", "valid"),)] + 1
    assert after[(("result", "not_valid"),)] == before[(("result", "not_valid"),)] + 1


def test_a_second_validation_while_one_runs_gets_503_retry_after(service):
    looping = pack_text(code_item(generator="def cases(g):\n    while True:\n        pass\n"))
    client = ExecutorClient([service.url], service.token)
    first: list[PackCheck] = []
    worker = threading.Thread(target=lambda: first.append(client.check_pack(looping)))
    worker.start()
    deadline = time.monotonic() + 60
    while not service.service._packs.busy and time.monotonic() < deadline:
        time.sleep(0.02)
    impatient = ExecutorClient([service.url], service.token, patience_s=0)
    with pytest.raises(NoReplicaAvailable, match="503"):
        impatient.check_pack(SCAFFOLD.encode())
    worker.join(120)
    assert not first[0].ok and "ran longer than" in first[0].errors[0]


def test_pack_validate_and_add_use_the_replicas_when_urls_are_set(service, tmp_path,
                                                                  monkeypatch, capsys):
    monkeypatch.setenv("TORCHQUIZ_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.delenv("TORCHQUIZ_DATABASE_URL", raising=False)
    monkeypatch.setenv(URLS_ENV, service.url)
    monkeypatch.setenv(TOKEN_ENV, service.token)
    file = tmp_path / "pack.yaml"
    file.write_bytes(SCAFFOLD.encode())
    before = metrics(service.url)["torchquiz_executor_pack_validations_total"]
    assert main(["pack", "validate", str(file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "ok": True, "errors": [], "problems": [], "items": 3, "cards": 0}
    assert main(["pack", "add", str(file), "--workspace", "console:local"]) == 0
    assert "stored pack my-team version 1" in capsys.readouterr().out
    after = metrics(service.url)["torchquiz_executor_pack_validations_total"]
    assert after[(("result", "valid"),)] == before[(("result", "valid"),)] + 2
    monkeypatch.setenv(TOKEN_ENV, "not-the-token")
    assert main(["pack", "validate", str(file), "--json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)["errors"]
    assert "no executor replica could validate the pack" in error and "401" in error
