"""Members' words quoted by the bot (report notes, wrong answers) and the report form, rendered
on Discord, Slack and the console: inert on every surface, within each platform's limits."""

from __future__ import annotations

import asyncio

import pytest

from bot.adapters.console.text import render as console_render
from bot.adapters.discord.components import answer_modal as discord_modal
from bot.adapters.discord.components import submitted_choice, submitted_text
from bot.adapters.discord.embeds import embed
from bot.adapters.slack.blocks import render as slack_render
from bot.adapters.slack.views import Origin
from bot.adapters.slack.views import answer_modal as slack_modal
from bot.adapters.slack.views import submitted_choice as slack_choice
from bot.core.kernel.messages import Message, parse_submit
from bot.core.quality.reports import report_form
from tests.fake_slack import check_blocks, check_view, text_of
from tests.hostile import HOSTILE_STRINGS, invisible_or_control, pings


def _quoted(hostile: str) -> Message:
    return Message(title="Open question reports", body="#1 · t.choice-view v1 · Other",
                   quotes=(("#1", hostile), ("2×", hostile)))


@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_a_hostile_note_is_inert_in_a_discord_embed(name):
    data = embed(_quoted(HOSTILE_STRINGS[name])).to_dict()
    shown = data["description"]
    assert invisible_or_control(shown) == [] and pings(shown) == []
    assert "**bold**" not in shown and "```" not in shown
    assert len([ln for ln in shown.splitlines() if ln]) == 3  # the body, a line per quote
    shown.encode("utf-8")


@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_a_hostile_note_is_inert_in_slack_blocks(name):
    blocks = slack_render(_quoted(HOSTILE_STRINGS[name]))
    check_blocks(blocks)
    shown = text_of(blocks)
    assert invisible_or_control(shown) == [] and pings(shown) == []
    assert "<!" not in shown and "<@" not in shown and "<#" not in shown
    quotes = blocks[2]["text"]["text"].split("\n")
    assert len(quotes) == 2 and quotes[0].startswith("#1 ")


@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_a_hostile_note_is_inert_in_the_console(name):
    text = console_render(_quoted(HOSTILE_STRINGS[name]), channel="general", user="boss")
    assert invisible_or_control(text) == [] and "\x1b" not in text
    lines = text.splitlines()
    assert lines[3].startswith("  #1 ") and lines[4].startswith("  2× ")
    assert len(lines) == 5


def test_the_report_form_is_a_discord_modal_with_a_reason_menu():
    form = report_form("tq:report:7:open", "en")

    async def build():
        return discord_modal(form)

    modal = asyncio.run(build())
    assert parse_submit(modal.custom_id) == ("reported", "7", "text")
    label, row = modal.to_components()
    assert label["type"] == 18 and label["component"]["type"] == 3
    assert label["component"]["options"][0]["value"] == "incorrect"
    note = row["components"][0]
    assert note["required"] is False and note["max_length"] == 500
    submitted = {"custom_id": modal.custom_id, "components": [
        {"type": 18, "component": {"type": 3, "custom_id": "choice", "values": ["outdated"]}},
        {"type": 1, "components": [{"type": 4, "custom_id": "answer", "value": "old API"}]}]}
    assert (submitted_choice(submitted), submitted_text(submitted)) == ("outdated", "old API")


def test_the_report_form_is_a_slack_modal_with_a_static_select():
    view = slack_modal(report_form("tq:preport:t.choice-view:open", "zh-CN"),
                       Origin("C1"), "zh-CN")
    check_view(view)
    assert parse_submit(view["callback_id"]) == ("preported", "t.choice-view", "text")
    select, note = view["blocks"]
    assert select["element"]["type"] == "static_select" and select["optional"] is False
    assert select["element"]["options"][0]["text"]["text"] == "标注的答案不正确"
    assert note["optional"] is True and note["element"]["max_length"] == 500
    state = {"state": {"values": {"choice": {"choice": {
        "type": "static_select", "selected_option": {"value": "translation"}}}}}}
    assert slack_choice(state) == "translation"
    assert slack_choice({"state": {"values": {}}}) == ""
