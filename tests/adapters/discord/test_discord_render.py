"""Discord rendering: what a submission produced is inert in every part of the embed."""

from __future__ import annotations

import pytest

from bot.adapters.discord.embeds import NO_MENTIONS, embed, view_for
from bot.core.kernel.messages import Button, Form, Message, answer_action
from tests.hostile import HOSTILE_STRINGS, invisible_or_control, pings


def _all_text(e):
    data = e.to_dict()
    parts = [data.get("title", ""), data.get("description", "")]
    parts += [f"{f['name']} {f['value']}" for f in data.get("fields", [])]
    parts.append(data.get("footer", {}).get("text", ""))
    return "\n".join(parts)


@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_hostile_detail_and_output_are_inert_in_the_embed(name):
    hostile = HOSTILE_STRINGS[name]
    shown = _all_text(embed(Message(body="Not quite.", detail=hostile, output=hostile)))
    assert invisible_or_control(shown) == []
    assert pings(shown) == []
    shown.encode("utf-8")


def test_embeds_respect_discords_limits():
    e = embed(Message(title="t" * 500, body="b" * 5000, footer="f" * 3000,
                      fields=(("n" * 300, "v" * 2000),)))
    data = e.to_dict()
    assert len(data["title"]) <= 256 and len(data["description"]) <= 4096
    assert len(data["footer"]["text"]) <= 2048
    assert len(data["fields"][0]["name"]) <= 256 and len(data["fields"][0]["value"]) <= 1024


def test_posts_never_allow_mentions():
    assert NO_MENTIONS.to_dict() == {"parse": []}


def test_choices_and_the_answer_form_become_persistent_buttons():
    form = Form(action_id="tq:form:7:open", label="Answer", title="t", field_label="f")
    view = view_for(Message(buttons=(Button(answer_action(7, "A"), "A"),), form=form))
    assert view is not None and view.timeout is None
    assert [item.custom_id for item in view.children] == ["tq:answer:7:A", "tq:form:7:open"]
