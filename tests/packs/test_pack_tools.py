"""The bot's pack checker: the CLI's validation path, and the seam for a remote validator."""

from __future__ import annotations

import pytest

from bot.core.kernel.errors import GradingUnavailable
from bot.pack_tools import SandboxPackChecker, as_check
from executors.zygote.supervisor import Zygote
from tests.support.packs import choice_pack, code_item


@pytest.fixture
def no_local_sandbox(monkeypatch):
    def refuse(self):
        raise AssertionError("a local sandbox was started")

    monkeypatch.setattr(Zygote, "start", refuse)


def test_a_remote_validator_is_used_instead_of_a_local_sandbox(bank, no_local_sandbox):
    data = choice_pack().replace(b"items:\n", b"items:\n" + code_item().encode())
    asked: list[bytes] = []

    def remote(sent: bytes) -> dict:
        asked.append(sent)
        return {"ok": True, "errors": [], "items": 2, "cards": 0}

    check = SandboxPackChecker(bank, remote).check(data)
    assert asked == [data]
    assert (check.ok, check.pack_id, check.version, check.items) == (True, "team", 1, 2)
    assert check.text == data.decode() and check.document  # what the shelf stores


def test_a_remote_validators_errors_are_the_report(bank, no_local_sandbox):
    check = SandboxPackChecker(bank, lambda _: {"ok": False, "errors": ["line 9: no"],
                                                "items": 1, "cards": 0}).check(choice_pack())
    assert not check.ok and check.errors == ("line 9: no",)


def test_a_file_that_does_not_parse_starts_no_sandbox_and_says_where(bank, no_local_sandbox):
    check = SandboxPackChecker(bank).check(b"pack: [unclosed\n")
    assert not check.ok and check.errors[0].startswith("line ")
    assert check.pack_id == ""


def test_a_report_without_a_pack_is_never_ok():
    assert not as_check({"ok": True, "errors": [], "items": 0, "cards": 0}, b"not: a pack").ok


def test_replicas_that_cannot_validate_now_store_nothing_and_say_so(bank, no_local_sandbox):
    def down(_: bytes) -> dict:
        raise GradingUnavailable("no executor replica answers")

    check = SandboxPackChecker(bank, down).check(choice_pack())
    assert not check.ok and "try again later" in check.errors[0]


def test_the_remote_executors_own_report_type_is_read_as_it_comes(bank, no_local_sandbox):
    from executors.service.protocol import PackCheck as RemoteReport

    check = SandboxPackChecker(bank, lambda _: RemoteReport(True, (), 1, 0)).check(choice_pack())
    assert (check.ok, check.pack_id, check.items) == (True, "team", 1)
