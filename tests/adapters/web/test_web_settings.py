"""The admin's desk: the settings form (chat's own checks and messages) and the audit log."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.bootstrap import library
from bot.core.desk import Desk
from bot.core.kernel.models import ChannelDefaults
from bot.core.quiz import build_quiz
from content.loader import load_bank
from content.packs import parse_pack
from db.store_packs import PackStore
from tests.adapters.web.support import BASE, csrf_of, link, serve, sign_in, who
from tests.packs.scoped import pack_yaml
from tests.support.core import BANK

ADA = who("ada", admin=True, name="Ada")
FORM = {"time": "09:00", "tz": "UTC", "lang": "en", "topics": "", "difficulty": "",
        "enabled": "on", "leaderboard": "fri 16", "packs": "bank"}


def _post(quiz, path, fields, identity=ADA, *, token=True):
    """Sign in, open the settings page, post ``fields`` with its token; return status and page."""
    signin = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, signin)
        page = await client.get("/")
        data = dict(fields)
        if token:
            data["csrf"] = csrf_of(await page.text())
        response = await client.post(path, data=data, allow_redirects=False)
        return response.status, await response.text()

    return serve(quiz, scenario)


def test_the_form_starts_from_the_stored_values(quiz, channel):
    signin = link(quiz, ADA)

    async def scenario(client):
        await sign_in(client, signin)
        return await (await client.get(f"/channels/{channel.id}/settings")).text()

    html = serve(quiz, scenario)
    assert 'id="set-time" name="time" value="09:00"' in html
    assert 'name="leaderboard" value="fri 16"' in html
    assert '<label for="set-tz">' in html and 'aria-describedby="hint-tz"' in html


def test_the_form_holds_the_live_settings_and_an_admin_turns_live_points_on(quiz, channel):
    # The form lacked live_hosts and live_on_board: the page showed them but could not set them.
    signin = link(quiz, ADA)

    async def scenario(client):
        await sign_in(client, signin)
        return await (await client.get(f"/channels/{channel.id}/settings")).text()

    html = serve(quiz, scenario)
    assert '<select id="set-live_hosts" name="live_hosts">' in html
    assert '<select id="set-live_on_board" name="live_on_board">' in html
    assert '<option value="off" selected>' in html.split('id="set-live_on_board"')[1]
    status, html = _post(quiz, f"/channels/{channel.id}/settings",
                         {**FORM, "live_hosts": "anyone", "live_on_board": "on"})
    assert status == 200 and "Settings saved." in html
    stored = quiz.rounds.store.get_channel(channel.id)
    assert stored.live_on_board and stored.live_anyone


def test_an_admin_changes_the_post_time_and_chat_sees_it(quiz, channel):
    status, html = _post(quiz, f"/channels/{channel.id}/settings", {**FORM, "time": "07:30"})
    assert status == 200 and "Settings saved." in html
    assert quiz.rounds.store.get_channel(channel.id).post_time == dt.time(7, 30)
    chat = Desk(quiz).settings(ADA, "", "", {})
    assert ("time", "07:30") in chat.message.fields


def test_a_refused_value_gets_chats_own_message_and_changes_nothing(quiz, channel):
    status, html = _post(quiz, f"/channels/{channel.id}/settings", {**FORM, "time": "25:00"})
    chat = Desk(quiz).settings(ADA, "", "", {"time": "25:00"}).message.body
    assert status == 422 and chat in html.replace("&#39;", "'")
    assert 'value="25:00"' in html  # shown back to correct it
    assert quiz.rounds.store.get_channel(channel.id).post_time == dt.time(9, 0)
    assert quiz.audit.latest("slack", "W1") == []


def test_a_form_saved_unchanged_changes_and_logs_nothing(quiz, channel):
    status, html = _post(quiz, f"/channels/{channel.id}/settings", FORM)
    assert status == 200 and "Nothing changed." in html
    assert quiz.audit.latest("slack", "W1") == []


def test_a_member_may_not_post_the_form(quiz, channel):
    status, html = _post(quiz, f"/channels/{channel.id}/settings", {**FORM, "time": "07:30"},
                         who("bob"))
    assert status == 403 and "Only the workspace&#39;s admins" in html
    assert quiz.rounds.store.get_channel(channel.id).post_time == dt.time(9, 0)


def test_the_form_without_its_csrf_token_is_refused(quiz, channel):
    status, _ = _post(quiz, f"/channels/{channel.id}/settings", {**FORM, "time": "07:30"},
                      token=False)
    assert status == 403
    assert quiz.rounds.store.get_channel(channel.id).post_time == dt.time(9, 0)


def test_another_workspaces_channel_cannot_be_set(quiz, channel):
    other = quiz.rounds.channel("slack", "C9", "W2", ChannelDefaults(name="elsewhere"))
    status, html = _post(quiz, f"/channels/{other.id}/settings", {**FORM, "time": "07:30"})
    assert status == 404 and "elsewhere" not in html
    assert quiz.rounds.store.get_channel(other.id).post_time == dt.time(9, 0)


def test_an_oversized_form_is_refused_as_chat_refuses_a_long_line(quiz, channel):
    status, html = _post(quiz, f"/channels/{channel.id}/settings",
                         {**FORM, "topics": "autograd," * 150})
    assert status == 422 and "1000" in html


def test_every_change_is_in_the_audit_log_from_the_page_and_from_chat(quiz, channel):
    _post(quiz, f"/channels/{channel.id}/settings", {**FORM, "time": "07:30"})
    Desk(quiz).settings(who("cy", admin=True, name="<b>Cy</b>"), "", "", {"leaderboard": "mon 9"})
    quiz.rounds.channel("slack", "C9", "W2", ChannelDefaults(name="elsewhere"))
    Desk(quiz).settings(who("eve", workspace="W2", channel="C9", admin=True), "", "",
                        {"time": "06:00"})
    signin = link(quiz, ADA)

    async def scenario(client):
        await sign_in(client, signin)
        response = await client.get("/audit")
        return response.status, await response.text()

    status, html = serve(quiz, scenario)
    assert status == 200
    assert "time=09:00" in html and "time=07:30" in html and "Ada" in html
    assert "leaderboard=fri 16" in html and "leaderboard=mon 9" in html
    assert "&lt;b&gt;Cy&lt;/b&gt;" in html and "<b>Cy" not in html
    assert "Eve" not in html and "06:00" not in html  # another workspace's log


@pytest.mark.parametrize("path", ["/audit"])
def test_a_member_gets_403_on_the_audit_log(quiz, channel, path):
    signin = link(quiz, who("bob"))

    async def scenario(client):
        await sign_in(client, signin)
        response = await client.get(path)
        return response.status

    assert serve(quiz, scenario) == 403


def _items(quiz, identity, *posts):
    """Sign in, open /items, then post each (path, with_token); return every status and page."""
    signin = link(quiz, identity)

    async def scenario(client):
        await sign_in(client, signin)
        page = await client.get("/items")
        seen = [(page.status, await page.text())]
        token = csrf_of(seen[0][1]) if page.status == 200 else ""
        for path, with_token in posts:
            response = await client.post(path, data={"csrf": token} if with_token else {})
            seen.append((response.status, await response.text()))
        return seen

    return serve(quiz, scenario)


def test_an_admin_sees_each_items_numbers_and_unpauses_a_paused_one(quiz, channel, clock):
    quiz.rounds.store.pause_items([("t.text-detach", 1)], "suspect_key", clock.now())
    (status, page), (unpaused, after) = _items(quiz, ADA, ("/items/t.text-detach/unpause", True))
    assert status == 200 and "t.text-detach" in page and "Unpause t.text-detach" in page
    assert unpaused == 200 and "Unpause t.text-detach" not in after
    assert quiz.rounds.store.paused_items() == set()
    [change] = quiz.audit.latest("slack", "W1")
    assert (change.action, change.target, change.actor_name) == ("unpause", "t.text-detach", "Ada")


def test_unpausing_needs_the_right_the_token_and_an_item_the_workspace_sees(quiz, channel, clock):
    quiz.rounds.store.pause_items([("t.text-detach", 1)], "suspect_key", clock.now())
    [(member_page, _), (member_post, _)] = _items(
        quiz, who("bob"), ("/items/t.text-detach/unpause", False))
    [_, (forged, _), (unknown, _)] = _items(
        quiz, ADA, ("/items/t.text-detach/unpause", False), ("/items/team-x:q1/unpause", True))
    assert (member_page, member_post, forged, unknown) == (403, 403, 403, 404)
    assert quiz.rounds.store.paused_items() == {("t.text-detach", 1)}


def test_an_admin_pauses_an_item_by_hand_and_the_log_keeps_before_and_after(quiz, channel):
    (status, page), (paused, after) = _items(quiz, ADA, ("/items/t.text-detach/pause", True))
    assert status == 200 and 'aria-label="Pause t.text-detach">Pause</button>' in page
    assert paused == 200 and "(version 1) is paused" in after
    assert "Unpause t.text-detach" in after
    assert quiz.rounds.store.paused_items() == {("t.text-detach", 1)}
    [change] = quiz.audit.latest("slack", "W1")
    assert (change.action, change.target, change.actor_name, change.before, change.after) == (
        "pause", "t.text-detach", "Ada", "active", "paused")


def test_pausing_needs_the_right_the_token_and_an_item_the_workspace_sees(quiz, channel):
    [_, (member_post, _)] = _items(
        quiz, who("bob"), ("/items/t.text-detach/pause", False))
    [_, (member_token, _)] = _items(
        quiz, who("bob"), ("/items/t.text-detach/pause", True))
    [_, (forged, _), (unknown, _), (other, _)] = _items(
        quiz, ADA, ("/items/t.text-detach/pause", False), ("/items/team-x:q1/pause", True),
        ("/items/nothing-here/pause", True))
    assert (member_post, member_token, forged, unknown, other) == (403, 403, 403, 404, 404)
    assert quiz.rounds.store.paused_items() == set()
    assert quiz.audit.latest("slack", "W1") == []


def test_another_workspaces_pack_item_answers_404_to_pause(store, clock, engine):
    shelf = PackStore(engine)
    for pack_id, scope in (("ours", "slack:W1"), ("theirs", "slack:W2")):
        pack = parse_pack(pack_yaml(pack_id)).pack
        shelf.add(pack.id, 1, scope, pack.header.title, ("en",), pack.text, pack.document)
    quiz = build_quiz(store, library(load_bank(BANK), engine), clock, web_url=BASE)
    quiz.rounds.channel("slack", "C1", "W1", ChannelDefaults(name="general"))
    [_, (theirs, _), (ours, _)] = _items(
        quiz, ADA, ("/items/p.theirs.one/pause", True), ("/items/p.ours.one/pause", True))
    assert (theirs, ours) == (404, 200)
    assert quiz.rounds.store.paused_items() == {("p.ours.one", 1)}
