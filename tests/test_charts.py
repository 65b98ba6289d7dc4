"""The weekly chart: a real PNG, Chinese and other scripts drawn, emoji dropped, phone-sized."""

from __future__ import annotations

import datetime as dt
import struct

from bot.charts import CJK_FAMILIES, drawable, font_families, leaderboard_chart
from bot.core.kernel.models import LeaderboardRow

ROWS = [LeaderboardRow(1, 1, "王小明", 95, 5, 4), LeaderboardRow(2, 2, "Alice 🚀", 80, 4, 2),
        LeaderboardRow(3, 3, "Дмитрий", 55, 3, 1), LeaderboardRow(4, 4, "Ελένη", 30, 2, 0)]


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def test_a_cjk_font_is_installed_for_member_names():
    # make test installs fonts-wqy-microhei (scripts/system-deps.sh); without it Chinese
    # names would be drawn as boxes, which is the bug this guards against.
    assert set(font_families()) & set(CJK_FAMILIES)


def test_every_script_a_name_uses_is_drawable_and_emoji_are_dropped():
    assert drawable("王小明") == "王小明"
    assert drawable("Дмитрий Ελένη") == "Дмитрий Ελένη"
    assert drawable("Alice 🚀") == "Alice"
    assert drawable("🚀🚀") == "?"


def test_the_chart_is_a_png_sized_for_a_phone():
    chart = leaderboard_chart(ROWS, title="排行榜 · 本周", week_start=dt.date(2026, 11, 30),
                              locale="zh-CN")
    width, height = _png_size(chart.png)
    assert 800 <= width <= 1400 and height >= 500
    assert chart.name == "leaderboard-2026-11-30.png"


def test_an_empty_week_still_draws_a_chart():
    chart = leaderboard_chart([], title="Leaderboard", week_start=dt.date(2026, 11, 30),
                              locale="en")
    assert _png_size(chart.png)[0] > 0
