"""The settings form's kinds field: chat's own parser and messages (issue 28's daily rounds)."""

from __future__ import annotations

from bot.core.desk import Desk
from tests.adapters.web.test_web_settings import ADA, FORM, _post


def test_an_admin_adds_speed_rounds_from_the_page_and_chat_sees_it(quiz, channel):
    status, html = _post(quiz, f"/channels/{channel.id}/settings",
                         {**FORM, "kinds": "choice,text,code,speed"})
    assert status == 200 and "Settings saved." in html
    assert quiz.rounds.store.get_channel(channel.id).kinds == ("choice", "text", "code", "speed")
    chat = Desk(quiz).settings(ADA, "", "", {})
    assert ("kinds", "choice, text, code, speed") in chat.message.fields


def test_an_unknown_kind_gets_chats_own_message_and_changes_nothing(quiz, channel):
    status, html = _post(quiz, f"/channels/{channel.id}/settings", {**FORM, "kinds": "essay"})
    chat = Desk(quiz).settings(ADA, "", "", {"kinds": "essay"}).message.body
    assert status == 422 and chat in html.replace("&#39;", "'")
    assert 'value="essay"' in html  # shown back to correct it
    assert quiz.rounds.store.get_channel(channel.id).kinds == ("choice", "text", "code")
