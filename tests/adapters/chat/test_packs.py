"""Team packs from chat, on Discord and on Slack: /quiz-pack add, list, remove, export.

The real clients upload a file to their fake (a Discord attachment, a Slack file input), the
bot fetches it from the fake's file host and validates it as `torchquiz pack validate` does;
what is stored is read back through the core, per workspace.
"""

from __future__ import annotations

import pytest

from content.packs import MAX_PACK_BYTES
from tests.support.packs import choice_pack as pack
from tests.support.packs import code_item


def other_scope(d) -> str:
    return f"{d.platform}:T0THEIRS" if d.platform == "slack" else f"{d.platform}:4242"


def assert_inert_once(text: str) -> None:
    assert "@everyone" not in text and "@\u200beveryone" in text  # broken, still readable
    assert "**bold**" not in text
    assert "&amp;" not in text and "\\\\" not in text  # escaped once, not twice


def test_an_admins_valid_pack_is_stored_for_their_workspace_only(chat):
    async def scenario(d):
        stored = await d.add_pack("admin", "team.yaml", pack())
        assert stored.private and not stored.can_ping
        assert "Pack stored" in stored.text and "`team` version 1" in stored.text
        assert "/quiz-settings packs:bank,team" in stored.text  # how to use it
        assert_inert_once(stored.text)
        assert d.pack_ids(d.pack_scope()) == ["team"]
        assert d.pack_ids(other_scope(d)) == []
        listed = await d.pack("admin", "list")
        assert listed.private and "`team` v1" in listed.text
        assert_inert_once(listed.text)

    chat.run(scenario)


def test_another_workspaces_pack_is_not_listed_and_its_id_is_refused_without_saying_whose(chat):
    async def scenario(d):
        d.store_pack(pack("theirs", title="Theirs"), other_scope(d))
        listed = await d.pack("admin", "list")
        assert "theirs" not in listed.text and "No packs yet" in listed.text
        for verb in ("remove", "export"):
            refused = await d.pack("admin", verb, "theirs")
            assert "not one of this workspace's packs" in refused.text
            assert other_scope(d).split(":")[1] not in refused.text
        assert d.pack_ids(other_scope(d)) == ["theirs"]  # still theirs, still there
        taken = await d.add_pack("admin", "theirs.yaml", pack("theirs", version=2))
        assert "taken by another workspace" in taken.text
        assert other_scope(d).split(":")[1] not in taken.text
        assert d.pack_ids(d.pack_scope()) == []

    chat.run(scenario)


def test_export_sends_the_yaml_file_privately_and_remove_hides_the_pack(chat):
    async def scenario(d):
        await d.add_pack("admin", "team.yml", pack())
        exported = await d.pack("admin", "export", "team")
        assert exported.private and "team-v1.yaml" in exported.text
        assert d.exported(exported, "admin") == ("team-v1.yaml", pack())
        removed = await d.pack("admin", "remove", "team")
        assert "is removed" in removed.text
        assert d.pack_ids(d.pack_scope()) == []
        again = await d.pack("admin", "export", "team")
        assert "no pack `team`" in again.text

    chat.run(scenario)


def test_adding_and_removing_a_pack_from_chat_is_in_the_audit_log(chat):
    async def scenario(d):
        await d.add_pack("admin", "team.yaml", pack())
        await d.add_pack("admin", "team.yaml", pack(version=2))
        await d.pack("admin", "remove", "team")
        changes = d.quiz.audit.latest(*d.pack_scope().split(":", 1))
        assert [(c.action, c.target, c.before, c.after) for c in changes] == [
            ("pack_remove", "team", "v2", "removed"), ("pack_add", "team", "v1", "v2"),
            ("pack_add", "team", "none", "v1")]

    chat.run(scenario)


def test_a_member_who_is_no_admin_is_refused_before_any_byte_is_fetched(chat):
    async def scenario(d):
        # The platform may show the command to anyone; the desk asks what its server said.
        refused = await d.add_pack("alice", "team.yaml", pack())
        assert "Only admins" in refused.text and refused.private
        assert d.forms_opened() == 0 and d.downloads() == 0
        for verb in ("list", "export"):
            assert "Only admins" in (await d.pack("alice", verb,
                                                 "team" if verb == "export" else "")).text
        assert d.pack_ids(d.pack_scope()) == []

    chat.run(scenario)


BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]"
       for i in range(1, 10)]).encode()
BAD_FILES = {
    "yaml bomb": (BOMB, "YAML bomb"),
    "python tag": (pack().replace(b"  - id: q1", b"  - !!python/object:os.system {}\n  - id: q1"),
                   "python/object:os.system"),
    "invalid utf-8": (pack().replace(b"Is it?", b"Is \xff it?"), "byte 0xff at offset"),
    "two correct options": (pack(b_correct="true"), "exactly one choice must be correct"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_pack_file_gets_its_specific_error_with_its_place_and_stores_nothing(chat, case):
    data, expected = BAD_FILES[case]

    async def scenario(d):
        report = await d.add_pack("admin", "team.yaml", data)
        assert report.private and "Pack not valid: nothing stored" in report.text
        assert expected in report.text and "line " in report.text
        assert d.pack_ids(d.pack_scope()) == []

    chat.run(scenario)


def test_a_file_declared_over_the_limit_is_refused_without_fetching_it(chat):
    async def scenario(d):
        refused = await d.add_pack("admin", "team.yaml", pack(),
                                   declared_size=50 * 1024 * 1024)
        assert f"a pack may be at most {MAX_PACK_BYTES:,} bytes" in refused.text
        assert d.downloads() == 0 and d.pack_ids(d.pack_scope()) == []

    chat.run(scenario)


def test_a_file_bigger_than_it_claimed_is_refused_after_the_limit_plus_one_byte(chat):
    async def scenario(d):
        huge = pack() + b"#" * (2 * MAX_PACK_BYTES)
        refused = await d.add_pack("admin", "team.yaml", huge, declared_size=1000)
        assert f"That file is {MAX_PACK_BYTES + 1:,} bytes" in refused.text
        assert d.pack_ids(d.pack_scope()) == []

    chat.run(scenario)


def test_a_file_that_is_not_yaml_is_refused_politely(chat):
    async def scenario(d):
        refused = await d.add_pack("admin", "team.txt", pack())
        assert "name ends in .yaml or .yml" in refused.text
        assert d.downloads() == 0 and d.pack_ids(d.pack_scope()) == []

    chat.run(scenario)


def test_a_pack_with_a_code_challenge_is_checked_in_the_sandbox_then_stored(chat):
    async def scenario(d):
        data = pack().replace(b"items:\n", b"items:\n" + code_item().encode())
        stored = await d.add_pack("admin", "team.yaml", data)
        assert "Pack stored" in stored.text and "2 questions" in stored.text, stored.text
        assert d.pack_ids(d.pack_scope()) == ["team"]

    chat.run(scenario)


def test_a_pack_with_many_problems_shows_fifteen_and_counts_the_rest_within_limits(chat):
    head, item = pack(b_correct="true").split(b"items:\n")
    items = b"".join(item.replace(b"id: q1", f"id: q{i}".encode())
                     .replace(b"Is it?", b"Is it? " + b"*_<@1>" * 40) for i in range(20))

    async def scenario(d):
        report = await d.add_pack("admin", "team.yaml", head + b"items:\n" + items)
        assert "20 problems" in report.text and "15. line " in report.text
        assert "16. line " not in report.text and "and 5 more" in report.text
        assert not report.can_ping and d.pack_ids(d.pack_scope()) == []

    chat.run(scenario)
