"""Block Kit rendering: Slack's limits, escaping of our own text, sandbox output kept inert."""

from __future__ import annotations

import pytest

from bot.adapters.slack.blocks import code_sections, fallback, mrkdwn, render
from bot.adapters.slack.views import Origin, answer_modal
from bot.core.kernel.messages import Button, Form, Message, Tone, parse_submit, submit_id
from tests.fake_slack import check_blocks, check_view, text_of
from tests.hostile import HOSTILE_STRINGS, invisible_or_control, pings


@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_hostile_detail_and_output_render_inert(name):
    hostile = HOSTILE_STRINGS[name]
    blocks = render(Message(body="Not quite.", detail=hostile, output=hostile, tone=Tone.WARNING))
    check_blocks(blocks)
    shown = text_of(blocks)
    assert pings(shown) == [] and invisible_or_control(shown) == []
    assert "<!" not in shown and "<@" not in shown and "<#" not in shown
    detail = blocks[1]["text"]["text"]
    assert detail.startswith("› ") and "\n" not in detail
    output = blocks[2]["text"]["text"]
    assert output.count("```") == 2


def test_our_own_text_is_escaped_and_bold_becomes_slack_bold():
    assert mrkdwn("**Note**: x < 0 & y > 1") == "*Note*: x &lt; 0 &amp; y &gt; 1"
    assert mrkdwn("`x ** 2` is **square**") == "`x ** 2` is *square*"


def test_code_longer_than_a_section_is_split_between_lines():
    code = "\n".join(f"line_{i} = {i}  # " + "x" * 60 for i in range(200))
    sections = code_sections(code)
    assert len(sections) > 1
    check_blocks(sections)
    joined = "\n".join(s["text"]["text"].removeprefix("```\n").removesuffix("\n```")
                       for s in sections)
    assert joined == code


def test_a_fence_in_our_code_cannot_end_the_block_early():
    [block] = code_sections("print('```')")
    assert block["text"]["text"].count("```") == 2


def test_a_post_with_choices_and_a_form_stays_within_slacks_limits():
    form = Form("tq:form:7:open", "Answer", "Your code", "Python code", code=True,
                prefill="def f(x):\n    ...\n")
    message = Message(title="T" * 400, body="b" * 5000, code="c = 1\n" * 1000,
                      fields=(("Answers", "0 solved"),), footer="f" * 4000,
                      buttons=tuple(Button(f"tq:answer:7:{k}", k * 100) for k in "ABCD"),
                      form=form)
    blocks = render(message)
    check_blocks(blocks)
    assert blocks[-2]["type"] == "actions" and blocks[-1]["type"] == "context"
    assert len(fallback(message)) <= 300


def test_the_answer_modal_fits_slack_and_routes_back_to_its_round():
    form = Form("tq:form:12:open", "Answer", "A title far longer than Slack allows here",
                "Python code", code=True, prefill="def f():\n    pass\n", max_chars=4000)
    view = answer_modal(form, Origin("C0GENERAL", "general", "https://x"), "en")
    check_view(view)
    element = view["blocks"][0]["element"]
    assert element["max_length"] == 3000 and element["multiline"] is True
    assert parse_submit(view["callback_id"]) == ("submit", "12", "code")
    assert submit_id(form) == view["callback_id"]
    assert Origin.load(view["private_metadata"]) == Origin("C0GENERAL", "general", "https://x")
    assert Origin.load("not json") == Origin()

