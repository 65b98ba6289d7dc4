"""The console's /setup refuses non-ASCII digits with the reason, never a traceback."""

import datetime as dt
import io

import pytest

from bot.adapters.console.channel import ConsoleChannel
from bot.bootstrap import build_app
from bot.settings import Settings
from tests.fakes import FakeClock
from tests.support.core import BANK, RecordingExecutor


@pytest.fixture
def app(tmp_path):
    settings = Settings(data_dir=tmp_path, content_dir=BANK)
    app = build_app(settings, clock=FakeClock(dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)),
                    executor=RecordingExecutor())
    yield app
    app.close()


# Full-width digits (a Chinese keyboard's) read as ASCII digits; other scripts' are refused.
@pytest.mark.parametrize("value", ["fri ²", "fri ١٦", "fri ۱۶"])
def test_setup_with_a_unicode_digit_hour_says_what_is_wrong(app, value, caplog):
    out = io.StringIO()
    ConsoleChannel(app.quiz, out).run(iter([f'/setup leaderboard="{value}"\n', "/quit\n"]))
    text = out.getvalue()
    assert "digits 0-9" in text
    assert "went wrong" not in text and "Traceback" not in text
    assert not [r for r in caplog.records if r.exc_info]
    assert app.quiz.rounds.store.get_channel(1).leaderboard_hour == 16  # unchanged


def test_setup_reads_full_width_digits_as_a_chinese_keyboard_types_them(app):
    out = io.StringIO()
    ConsoleChannel(app.quiz, out).run(iter(["/setup leaderboard=fri １７\n", "/quit\n"]))
    assert "digits 0-9" not in out.getvalue()
    assert app.quiz.rounds.store.get_channel(1).leaderboard_hour == 17
