"""Packs are stored with their history; a workspace sees only its own and the shared ones."""

from __future__ import annotations

import pytest

from db.store_packs import EVERY_WORKSPACE, PackRefused, PackStore


@pytest.fixture
def packs(engine, clock):
    return PackStore(engine, clock=clock)


def add(packs, pack_id="team", version=1, scope="slack:T1", text="pack: v1\n"):
    return packs.add(pack_id, version, scope, "Team", ("en",), text)


def test_a_workspace_never_sees_another_workspaces_pack(packs):
    add(packs, "ours", scope="slack:T1")
    add(packs, "theirs", scope="slack:T2")
    add(packs, "shared", scope=EVERY_WORKSPACE)
    assert [p.pack_id for p in packs.latest("slack:T1")] == ["ours", "shared"]
    assert [p.pack_id for p in packs.latest("slack:T2")] == ["shared", "theirs"]
    assert packs.versions("theirs", "slack:T1") == []
    assert [p.pack_id for p in packs.latest()] == ["ours", "shared", "theirs"]


def test_a_pack_id_of_another_workspace_is_refused_and_nothing_stored(packs):
    add(packs, "team", scope="slack:T1")
    with pytest.raises(PackRefused, match="belongs to another workspace"):
        add(packs, "team", version=2, scope="discord:99")
    assert [(p.scope, p.version) for p in packs.versions("team")] == [("slack:T1", 1)]


def test_a_new_version_keeps_the_history(packs):
    add(packs, version=1, text="one")
    add(packs, version=2, text="two")
    assert [(p.version, p.text) for p in packs.versions("team")] == [(1, "one"), (2, "two")]
    assert [p.version for p in packs.latest("slack:T1")] == [2]


def test_the_same_version_twice_is_refused(packs):
    add(packs, version=3)
    with pytest.raises(PackRefused, match="already has version 3"):
        add(packs, version=3, text="changed")


def test_remove_hides_but_keeps_history_and_only_for_its_owner(packs):
    add(packs, "team", scope="slack:T1")
    assert not packs.remove("team", "slack:T2")
    assert packs.remove("team", "slack:T1")
    assert packs.latest("slack:T1") == []
    assert [p.removed for p in packs.versions("team")] == [True]
