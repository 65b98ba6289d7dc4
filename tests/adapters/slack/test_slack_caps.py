"""Slack's caps, enforced by the renderer: hostile sizes are cut with a visible mark, never sent.

Each test renders one oversized message or view the way the handlers and the publisher do, and
checks the one limit Slack would otherwise refuse the whole request for (``invalid_blocks``).
"""

from __future__ import annotations

import ast
import asyncio
import datetime as dt
import itertools
import string
from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack import blocks, views
from bot.adapters.slack.blocks import fallback, render
from bot.adapters.slack.publisher import SlackPublisher
from bot.core.desk import Desk
from bot.core.kernel.messages import Button, Form, Message
from bot.core.kernel.models import ChannelSettings
from tests.fake_slack import BOT_TOKEN, GENERAL, FakeSlack

HUGE = "x" * 10_000
SLACK = Path(__file__).resolve().parents[3] / "bot" / "adapters" / "slack"


def _keys(count: int) -> list[str]:
    pairs = ("".join(p) for p in itertools.product(string.ascii_uppercase, repeat=2))
    return list(itertools.islice(itertools.chain(string.ascii_uppercase, pairs), count))


def _choices(count: int) -> tuple[Button, ...]:
    return tuple(Button(f"tq:answer:7:{key}", key) for key in _keys(count))


FORM = Form("tq:form:7:open", "Answer", "Your answer", "Code", code=True)


def _of(out, kind):
    return [block for block in out if block["type"] == kind]


def _buttons(out):
    return [element for block in _of(out, "actions") for element in block["elements"]]


def test_thirty_choices_and_the_form_go_in_actions_blocks_of_at_most_25():
    out = render(Message(buttons=_choices(30), form=FORM))
    actions = _of(out, "actions")
    assert [len(block["elements"]) for block in actions] == [25, 6]
    assert len({block["block_id"] for block in actions}) == 2
    assert [b["action_id"] for b in _buttons(out)] == [
        *(f"tq:answer:7:{key}" for key in _keys(30)), FORM.action_id]  # none lost


def test_every_button_has_an_accessibility_label_that_says_what_it_does():
    out = render(Message(buttons=_choices(3), form=FORM))
    spoken = [b["accessibility_label"] for b in _buttons(out)]
    assert spoken == ["Answer A", "Answer B", "Answer C", "Answer"]
    chinese = render(Message(buttons=_choices(1)), "zh-CN")
    assert _buttons(chinese)[0]["accessibility_label"] == "选择答案 A"


def test_a_button_text_and_its_label_are_cut_to_75():
    element = _buttons(render(Message(buttons=(Button("tq:share:card:card", HUGE),))))[0]
    assert len(element["text"]["text"]) == 75 and element["text"]["text"].endswith("…")
    assert len(element["accessibility_label"]) == 75


def test_an_action_id_over_255_characters_gets_no_button():
    long_id = "tq:share:" + "a" * 300 + ":card"
    assert _buttons(render(Message(buttons=(Button(long_id, "Share"),)))) == []


def test_a_ten_thousand_character_title_is_a_header_of_150():
    header = _of(render(Message(title=HUGE)), "header")[0]["text"]["text"]
    assert len(header) == 150 and header.endswith("…")


def test_a_ten_thousand_character_body_is_a_section_of_3000():
    text = _of(render(Message(body=HUGE)), "section")[0]["text"]["text"]
    assert len(text) == 3000 and text.endswith("…")


def test_two_hundred_leaderboard_rows_are_split_into_sections_that_fit():
    table = "\n".join(f"{n:<3} member-{n:<20} {n * 10:>6}  {n:>6}  {n % 7:>6}"
                      for n in range(1, 201))
    out = render(Message(title="Leaderboard", code=table))
    sections = _of(out, "section")
    assert len(sections) > 1
    assert all(len(s["text"]["text"]) <= 3000 for s in sections)
    assert all(s["text"]["text"].startswith("```") and s["text"]["text"].endswith("```")
               for s in sections)


def test_more_than_fifty_blocks_are_cut_with_a_mark_keeping_buttons_and_footer():
    code = "\n".join("y" * 2900 for _ in range(80))
    out = render(Message(title="t", code=code, buttons=_choices(2), footer="the footer"))
    assert len(out) == 50
    assert out[-2]["type"] == "actions" and out[-1]["elements"][0]["text"] == "the footer"
    marks = [b for b in _of(out, "context") if b["elements"][0]["text"].startswith("…")]
    assert len(marks) == 1 and marks[0]["elements"][0]["text"] == "… +34"


def test_forty_fields_become_three_sections_of_ten_the_last_saying_how_many_were_left():
    fields = tuple((f"name {n}", f"value {n}") for n in range(40))
    shown = [s for s in _of(render(Message(fields=fields)), "section") if "fields" in s]
    assert [len(s["fields"]) for s in shown] == [10, 10, 10]
    assert shown[-1]["fields"][-1]["text"] == "*…*\n+11"


def test_eleven_fields_are_all_shown_in_two_sections():
    # A channel's settings are eleven: Slack holds ten fields a section, and the eleventh and
    # tenth were cut to "… +2", hiding live_on_board and kinds from the admin.
    fields = tuple((f"name {n}", f"value {n}") for n in range(11))
    shown = [s for s in _of(render(Message(fields=fields)), "section") if "fields" in s]
    assert [len(s["fields"]) for s in shown] == [10, 1]
    assert shown[-1]["fields"][0]["text"] == "*name 10*\nvalue 10"


def test_a_modal_title_is_cut_to_24():
    modal = views.answer_modal(Form("tq:form:7:open", "Answer", HUGE, HUGE), views.Origin(), "en")
    assert len(modal["title"]["text"]) == 24 and modal["title"]["text"].endswith("…")


def test_an_option_text_is_cut_to_75_and_a_list_to_100():
    assert len(views.option(HUGE, "v")["text"]["text"]) == 75
    assert len(Desk.zone_choices("", views.MAX_OPTIONS)) == 100


def test_the_settings_modal_fits_slacks_option_and_block_caps():
    channel = ChannelSettings(id=1, platform="slack", external_id="C1", name="c",
                              workspace_external_id="T1", post_time=dt.time(9),
                              topics=tuple(f"topic-{n}" for n in range(150)))
    modal = views.settings_modal("C1", channel, views.Origin(), "en")
    assert len(modal["blocks"]) <= 100
    for block in modal["blocks"]:
        element = block.get("element") or {}
        for key in ("options", "initial_options"):
            assert len(element.get(key, [])) <= 100


def test_a_home_tab_of_sixty_channels_stays_within_100_blocks_with_the_commands_last():
    sections = [(f"C{n}", Message(title=f"stats {n}", body="solved 3")) for n in range(60)]
    home = views.home_view(sections, "en")["blocks"]
    assert len(home) <= 100
    assert "/quiz-settings" in home[-1]["text"]["text"]
    assert any(b["type"] == "context" and b["elements"][0]["text"].startswith("…")
               for b in home)


def test_the_fallback_text_is_never_empty_and_is_bounded():
    assert fallback(Message()) == "torchquiz"
    assert fallback(Message(fields=(("Points", "3"),))) == "Points"
    assert len(fallback(Message(title=HUGE))) <= blocks.FALLBACK_CHARS
    assert fallback(Message(body="first line\nsecond")) == "first line"


def test_every_slack_call_that_sends_blocks_sends_the_fallback_text_too():
    """A message's blocks are invisible to notifications and some screen readers."""
    missing = []
    for path in sorted(SLACK.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                names = {keyword.arg for keyword in node.keywords}
                if "blocks" in names and "text" not in names:
                    missing.append(f"{path.name}:{node.lineno}")
    assert missing == []


class _OneToken:
    async def bot_token(self, _workspace: str) -> str:
        return BOT_TOKEN


def test_the_weekly_chart_is_uploaded_with_alt_text_and_the_table_with_fallback_text():
    channel = ChannelSettings(id=1, platform="slack", external_id=GENERAL, name="general",
                              workspace_external_id="T1")
    board = Message(title="Weekly leaderboard", code="1 alice 30", image_png=b"\x89PNG",
                    image_name="board.png", image_alt="1. alice, 30 points")

    async def scenario():
        fake = FakeSlack()
        await fake.start()
        try:
            client = AsyncWebClient(base_url=fake.api_url.rstrip("/") + "/")
            await SlackPublisher(client, _OneToken()).publish_board(channel, board)
            return fake.posts(GENERAL), list(fake.files.values())
        finally:
            await fake.stop()

    posts, files = asyncio.run(scenario())
    assert [p.text for p in posts] == ["Weekly leaderboard"]
    assert [f["alt_txt"] for f in files] == ["1. alice, 30 points"]
