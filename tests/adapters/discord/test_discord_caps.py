"""Discord's caps, enforced by the renderer: hostile sizes are cut with a visible mark, never sent.

Each test renders one oversized message the way the handlers and the publisher do, and checks
the one limit Discord would otherwise refuse the whole message for.
"""

from __future__ import annotations

import itertools
import string

import discord
import pytest

from bot.adapters.discord.commands import timezone_choices
from bot.adapters.discord.components import answer_modal, button_for
from bot.adapters.discord.embeds import embed, file_for, view_for
from bot.core.kernel.messages import Button, Form, Message

HUGE = "x" * 10_000


def _keys(count: int) -> list[str]:
    letters = string.ascii_uppercase
    pairs = ("".join(p) for p in itertools.product(letters, repeat=2))
    return list(itertools.islice(itertools.chain(letters, pairs), count))


def _choices(count: int) -> tuple[Button, ...]:
    return tuple(Button(f"tq:answer:7:{key}", key) for key in _keys(count))


FORM = Form("tq:form:7:open", "Answer", "Your answer", "Code", code=True)


def _rows(view: discord.ui.View) -> list[list[str]]:
    return [[part["custom_id"] for part in row["components"]] for row in view.to_components()]


def test_thirty_choices_fill_five_rows_of_five_and_keep_the_answer_form():
    rows = _rows(view_for(Message(buttons=_choices(30), form=FORM)))
    assert len(rows) == 5 and all(len(row) == 5 for row in rows)
    assert rows[-1][-1] == FORM.action_id  # the way to answer what the body lists
    assert rows[0][0] == "tq:answer:7:A"


def test_thirty_choices_alone_are_cut_to_twenty_five():
    rows = _rows(view_for(Message(buttons=_choices(30))))
    assert sum(len(row) for row in rows) == 25 and len(rows) == 5


def test_a_button_label_is_cut_to_eighty_characters_with_a_mark():
    label = view_for(Message(buttons=(Button("tq:answer:7:A", HUGE),))).children[0].item.label
    assert len(label) == 80 and label.endswith("…")


def test_an_action_id_over_discords_custom_id_limit_gets_no_button():
    long_id = "tq:practice:" + "a" * 95 + ":A"  # the core accepts it; Discord keeps 100
    assert len(long_id) > 100
    assert button_for(long_id, "A") is None
    assert view_for(Message(buttons=(Button(long_id, "A"),))) is None


def test_a_ten_thousand_character_title_is_cut_to_256():
    title = embed(Message(title=HUGE)).title
    assert len(title) == 256 and title.endswith("…")


def test_a_ten_thousand_character_body_is_cut_to_4096():
    description = embed(Message(body=HUGE)).description
    assert len(description) == 4096 and description.endswith("…")


def test_two_hundred_leaderboard_rows_keep_their_code_block_closed():
    table = "\n".join(f"{n:<3} member-{n:<20} {n * 10:>6}  {n:>6}  {n % 7:>6}"
                      for n in range(1, 201))
    description = embed(Message(title="Leaderboard", body="This week", code=table)).description
    assert len(description) <= 4096
    assert description.startswith("This week\n\n```py\n") and description.endswith("\n…\n```")
    assert description.count("```") == 2


def test_forty_fields_become_twenty_five_the_last_saying_how_many_were_left():
    fields = tuple((f"name {n}", f"value {n}") for n in range(40))
    shown = embed(Message(fields=fields)).fields
    assert len(shown) == 25
    assert (shown[-1].name, shown[-1].value) == ("…", "+16")


def test_fields_leave_room_for_the_output_field():
    fields = tuple((f"name {n}", f"value {n}") for n in range(40))
    shown = embed(Message(fields=fields, output="printed")).fields
    assert len(shown) == 25 and shown[-2].name == "…" and shown[-2].value == "+17"


def test_a_field_value_is_cut_to_1024_and_its_name_to_256():
    field = embed(Message(fields=((HUGE, HUGE),))).fields[0]
    assert len(field.value) == 1024 and field.value.endswith("…")
    assert len(field.name) == 256


def test_a_footer_is_cut_to_2048():
    footer = embed(Message(footer=HUGE)).footer.text
    assert len(footer) == 2048 and footer.endswith("…")


def test_the_whole_embed_stays_within_6000_characters():
    fields = tuple((HUGE, HUGE) for _ in range(25))
    shown = embed(Message(title=HUGE, body=HUGE, fields=fields, footer=HUGE))
    assert len(shown) <= 6000
    assert shown.fields[-1].name == "…"
    assert shown.title.endswith("…")


def test_a_modal_title_and_label_are_cut_to_45():
    modal = answer_modal(Form("tq:form:7:open", "Answer", HUGE, HUGE, code=True))
    assert len(modal.title) == 45 and modal.title.endswith("…")
    field = modal.to_components()[0]["components"][0]
    assert len(field["label"]) == 45 and field["max_length"] <= 4000


def test_timezone_autocomplete_offers_at_most_25_choices():
    assert len(timezone_choices("")) == 25
    assert all(len(choice.name) <= 100 for choice in timezone_choices("America"))


@pytest.mark.parametrize(("alt", "expected"), [
    ("Bars: 1. Alice 30 points; 2. Bob 20 points", "Bars: 1. Alice 30 points; 2. Bob 20 points"),
    ("", "Weekly leaderboard"),
])
def test_every_chart_attachment_has_alt_text(alt, expected):
    attached = file_for(Message(title="Weekly leaderboard", image_png=b"\x89PNG",
                                image_name="board.png", image_alt=alt))
    assert attached.description == expected


def test_alt_text_is_cut_to_discords_1024():
    attached = file_for(Message(image_png=b"\x89PNG", image_alt=HUGE))
    assert len(attached.description) == 1024 and attached.description.endswith("…")
