"""One sanitiser for everything a submission produced: inert on every surface, verdicts checked."""

from __future__ import annotations

import json

import pytest

from executors.grading.verdict import Status, Verdict
from safetext.inert import BLOCK_CHARS, ONE_LINE_CHARS, Surface, inert
from tests.hostile import HOSTILE_STRINGS, invisible_or_control, pings

CHAT = (Surface.DISCORD, Surface.SLACK, Surface.SLACK_PLAIN)


@pytest.mark.parametrize("surface", list(Surface))
@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_no_hostile_string_stays_active_on_any_surface(surface, name):
    shown = inert(HOSTILE_STRINGS[name], surface)
    assert invisible_or_control(shown) == []
    shown.encode("utf-8")  # no lone surrogate survives
    if surface in CHAT:
        assert pings(shown) == []


@pytest.mark.parametrize("name", sorted(HOSTILE_STRINGS))
def test_one_line_text_stays_on_one_line(name):
    assert "\n" not in inert(HOSTILE_STRINGS[name], one_line=True)
    assert "\n" not in inert(HOSTILE_STRINGS[name], Surface.LOG)


def test_length_is_capped_with_a_visible_marker():
    assert len(inert("x" * 5000, one_line=True)) == ONE_LINE_CHARS
    assert len(inert("x" * 5000)) == BLOCK_CHARS
    assert inert("x" * 50, limit=10).endswith("…")


def test_escapes_are_visible_and_ordinary_text_is_untouched():
    assert inert("a\x1b[2Kb\u202ec") == "a\\x1b[2Kb\\u202ec"
    assert inert("张量 detach() → ok\n  next") == "张量 detach() → ok\n  next"


def test_discord_markdown_cannot_draw_a_fake_message():
    shown = inert("**Correct!** +30 points", Surface.DISCORD)
    assert "**" not in shown.replace("\\*", "")


def test_a_code_block_cannot_be_left_from_inside():
    for surface in (Surface.DISCORD_CODE, Surface.SLACK_CODE):
        assert "```" not in inert("print('```')\n@everyone", surface)


def test_slack_text_escapes_the_characters_slack_parses():
    assert inert("a < b & c > d", Surface.SLACK) == "a &lt; b &amp; c &gt; d"


def _verdict_json(**changes):
    data = Verdict(Status.FAILED, 1, 3, "test 2 of 3: shape mismatch", "hi\n",
                   challenge_id="code.one-hot", challenge_version=2, seed=7).to_json()
    data.update(changes)
    return data


def test_a_verdict_survives_its_json_form():
    verdict = Verdict(Status.PASSED, 3, 3, "", "out", "err", 12, "code.x", 1, seed=5)
    assert Verdict.from_json(json.loads(json.dumps(verdict.to_json()))) == verdict


@pytest.mark.parametrize("changes", [
    {"status": "hacked"}, {"passed_tests": "3"}, {"passed_tests": 5}, {"total_tests": -1},
    {"message": "x" * 10_000}, {"stdout": "\ud800"}, {"seed": -1}, {"fault": "no"},
    {"duration_ms": 1.5}, {"message": None},
])
def test_a_verdict_from_the_network_is_refused_unless_exactly_right(changes):
    with pytest.raises(ValueError, match="verdict"):
        Verdict.from_json(_verdict_json(**changes))
