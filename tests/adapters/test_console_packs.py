"""/pack in the terminal: the same desk methods as /quiz-pack in chat, on a real SQLite file."""

from __future__ import annotations

import datetime as dt
import io

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor
from tests.support.packs import choice_pack as pack


@pytest.fixture
def app(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK, _env_file=None)
    app = build_app(settings, clock=FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)),
                    executor=RecordingExecutor())
    yield app
    app.close()


def run(app, tmp_path, *lines: str) -> str:
    out = io.StringIO()
    console = ConsoleChannel(app.quiz, out, packs=app.packs, chart_dir=tmp_path / "charts")
    console.run(iter([*(f"{line}\n" for line in lines), "/quit\n"]))
    return out.getvalue()


def test_pack_add_list_export_and_remove_in_the_terminal(app, tmp_path):
    # YAML's own escape: the title holds a real right-to-left override and an ANSI escape.
    data = pack(title="Team \\u202e \\x1b[31mred")
    path = tmp_path / "team.yaml"
    path.write_bytes(data)
    text = run(app, tmp_path, f"/pack add {path}", "/pack list", "/pack export team",
               "/pack remove team", "/pack list")
    assert "Pack `team` version 1 is stored for this workspace only" in text
    assert "/setup packs:bank,team" in text  # the console names its own command
    assert "`team` v1 Team \\u202e \\x1b[31mred" in text  # shown inert, once
    assert "\u202e" not in text and "\x1b" not in text
    assert (tmp_path / "packs" / "team-v1.yaml").read_bytes() == data
    assert "Pack `team` is removed" in text and "No packs yet" in text
    assert [p.pack_id for p in app.packs.shelf.latest("console:local")] == []


def test_a_pack_with_many_problems_shows_the_first_fifteen_and_counts_the_rest(app, tmp_path):
    items = b"".join(pack(prompt=f"Q{i}?", b_correct="true").split(b"items:\n")[1]
                     .replace(b"id: q1", f"id: q{i}".encode()) for i in range(20))
    path = tmp_path / "team.yaml"
    path.write_bytes(pack().split(b"items:\n")[0] + b"items:\n" + items)
    text = run(app, tmp_path, f"/pack add {path}")
    assert "Pack not valid: nothing stored" in text and "20 problems" in text
    assert "15. line " in text and "16. " not in text
    assert "…and 5 more. `torchquiz pack validate FILE` lists them all." in text
    assert app.packs.shelf.latest("console:local") == []


def test_a_missing_file_is_said_plainly(app, tmp_path):
    text = run(app, tmp_path, f"/pack add {tmp_path / 'nope.yaml'}")
    assert "cannot read" in text and "No such file" in text


def test_a_shared_pack_is_listed_read_only_and_cannot_be_removed_from_chat(app, tmp_path):
    check = app.packs.checker.check(pack("everyone", title="For all"))
    app.packs.shelf.add(check, "*")  # as `torchquiz pack add` without --workspace stores it
    text = run(app, tmp_path, "/pack list", "/pack remove everyone", "/pack export everyone")
    assert "`everyone` v1 (shared, read-only) For all" in text
    assert text.count("shared by the whole deployment") == 2
    assert [p.pack_id for p in app.packs.shelf.latest("console:local")] == ["everyone"]


def test_a_deployment_without_packs_says_so(app, tmp_path):
    out = io.StringIO()
    ConsoleChannel(app.quiz, out).run(iter(["/pack list\n", "/quit\n"]))
    assert "Team packs are not available on this deployment." in out.getvalue()
