"""Render the weekly leaderboard and per-topic mastery as PNGs (the core's ChartRenderer).

matplotlib's headless Agg backend draws it, so no display is needed. Member names can be in
any script: the font list falls back glyph by glyph from DejaVu Sans (Latin, Greek, Cyrillic)
to a CJK font (WenQuanYi Micro Hei or Noto Sans CJK, installed by scripts/system-deps.sh and in
the bot image); characters no installed font has (emoji, mostly) are dropped from the label
rather than drawn as empty boxes. The figure is sized for a phone: one bar per member, large
type, and the numbers printed next to the bars so nothing depends on reading the axis.
"""

from __future__ import annotations

import datetime as dt
import functools
import io
import logging
import os
import unicodedata
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

from bot.core.boards.board import week_range
from bot.core.kernel.i18n import t
from bot.core.kernel.models import Chart, LeaderboardRow, TopicMastery
from content.topics import topic_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.ft2font import FT2Font

log = logging.getLogger(__name__)
# matplotlib is imported on the first chart, not with this module: a bot process pays for it
# (about a second) only when a weekly board is drawn.

CJK_FAMILIES = ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC")
MAX_BARS = 10
_NAME_COLUMNS = 20
# Warm colours for the podium, then one calm colour: the order is readable without a legend.
_PODIUM = ("#e0a100", "#8a9bb0", "#b36b2e")
_REST = "#4c72b0"


# Where Debian's CJK font packages put their files: matplotlib caches its font list at first
# use, so a font installed after that is only found by adding its file.
CJK_FONT_FILES = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
)


@functools.cache
def font_families() -> tuple[str, ...]:
    """Return the families the chart asks for, the CJK one only if it is installed."""
    from matplotlib import font_manager
    installed = {f.name for f in font_manager.fontManager.ttflist}
    if not installed & set(CJK_FAMILIES):
        for path in CJK_FONT_FILES:
            if os.path.exists(path):
                font_manager.fontManager.addfont(path)
        installed = {f.name for f in font_manager.fontManager.ttflist}
    cjk = [family for family in CJK_FAMILIES if family in installed]
    if not cjk:
        log.warning("no CJK font installed (looked for %s): Chinese names would not render; "
                    "install fonts-wqy-microhei", ", ".join(CJK_FAMILIES))
    return ("DejaVu Sans", *cjk)


@functools.cache
def _font_files() -> tuple[FT2Font, ...]:
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font
    files = []
    for family in font_families():
        path = font_manager.findfont(font_manager.FontProperties(family=family),
                                     fallback_to_default=False)
        files.append(FT2Font(path))
    return tuple(files)


def drawable(text: str) -> str:
    """Return ``text`` without the characters none of the chart's fonts can draw."""
    fonts = _font_files()
    kept = [ch for ch in text if ch.isspace() or any(f.get_char_index(ord(ch)) for f in fonts)]
    return "".join(kept).strip() or "?"


def _columns(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _label(row: LeaderboardRow) -> str:
    """Return "rank. name", the name cut to a width a phone shows (CJK counts double)."""
    return f"{row.rank}. {_cut(row.display_name, _NAME_COLUMNS)}"


def leaderboard_chart(
    rows: Sequence[LeaderboardRow], *, title: str, week_start: dt.date, locale: str
) -> Chart:
    """Draw the top members' points for the week as horizontal bars and return the PNG."""
    # The object-oriented API (Figure, never pyplot) renders through Agg with no display and
    # no global figure state, so concurrent renders in worker threads do not interfere.
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    shown = list(rows[:MAX_BARS])
    height = 2.2 + 0.55 * max(1, len(shown))
    figure = Figure(figsize=(7.2, height), dpi=150, layout="constrained")
    axes = figure.subplots()
    families = list(font_families())
    labels = [_label(row) for row in shown]
    points = [row.points for row in shown]
    colours = [_PODIUM[i] if i < len(_PODIUM) else _REST for i in range(len(shown))]
    positions = list(range(len(shown)))
    axes.barh(positions, points, color=colours, height=0.7)
    axes.set_yticks(positions, labels, fontfamily=families, fontsize=13)
    axes.invert_yaxis()  # rank 1 on top
    top = max(points, default=0)
    for y, row in zip(positions, shown, strict=True):
        axes.text(row.points + top * 0.01 + 0.1, y,
                  t(locale, "chart.bar", points=row.points, solved=row.solved),
                  va="center", fontsize=11, fontfamily=families)
    axes.set_xlim(0, max(1, top) * 1.5)  # room for the figures printed after each bar
    axes.set_xlabel(t(locale, "chart.x_label"), fontfamily=families, fontsize=12)
    axes.set_ylabel(t(locale, "chart.y_label"), fontfamily=families, fontsize=12)
    figure.suptitle(f"{title}\n{week_range(week_start)}", fontfamily=families, fontsize=15,
                    x=0.02, ha="left")
    axes.spines[["top", "right"]].set_visible(False)
    axes.tick_params(axis="x", labelsize=11)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # points are whole numbers
    if not shown:
        axes.text(0.5, 0.5, t(locale, "leaderboard.empty"), transform=axes.transAxes,
                  ha="center", va="center", fontfamily=families, fontsize=12)
        axes.set_yticks([])
        axes.set_xticks([])  # an axis of 0 to 1.5 points says nothing about an empty week
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return Chart(buffer.getvalue(), f"leaderboard-{week_start.isoformat()}.png")


_MASTERY_COLUMNS = 16  # a topic label's width on a phone (CJK counts double)
# The mastery title's width: it names the member, and a long name must not run off the image.
_MASTERY_TITLE_COLUMNS = 44
_GOOD, _FAIR, _WEAK = "#2e8b57", "#e0a100", "#c0392b"


def _cut(text: str, columns: int) -> str:
    """Return the drawable part of ``text`` cut to ``columns`` (CJK counts double), with "…"."""
    out, width = "", 0
    for ch in drawable(text):
        if width + _columns(ch) > columns:
            return out.rstrip() + "…"
        out += ch
        width += _columns(ch)
    return out


def mastery_chart(topics: Sequence[TopicMastery], *, title: str, locale: str,
                  show_due: bool = True) -> Chart:
    """Draw the share answered right per topic as horizontal bars, with counts and reviews due.

    Narrow and tall for a phone: one bar per topic, large type, the numbers printed beside each
    bar (accuracy, right of answered, reviews due), a colour by band so weak topics stand out.
    """
    figure = mastery_figure(topics, title=title, locale=locale, show_due=show_due)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return Chart(buffer.getvalue(), "mastery.png")


def mastery_figure(topics: Sequence[TopicMastery], *, title: str, locale: str,
                   show_due: bool = True) -> Figure:
    """Return the mastery chart's figure, before it is saved (tests measure its parts)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    shown = list(topics)
    height = 1.6 + 0.78 * max(1, len(shown))
    figure = Figure(figsize=(6.0, height), dpi=150, layout="constrained")
    FigureCanvasAgg(figure)  # a renderer before saving: the labels are measured as drawn
    axes = figure.subplots()
    families = list(font_families())
    positions = list(range(len(shown)))
    shares = [m.ratio * 100 for m in shown]
    colours = [_GOOD if p >= 80 else _FAIR if p >= 50 else _WEAK for p in shares]
    # A pale track to 100 % behind each bar: a topic at 0 % still shows where its bar would be.
    axes.barh(positions, [100] * len(shown), color="#eeeeee", height=0.4)
    axes.barh(positions, shares, color=colours, height=0.4)
    labels = [_cut(topic_label(m.topic, locale), _MASTERY_COLUMNS) for m in shown]
    axes.set_yticks(positions, labels, fontfamily=families, fontsize=14)
    axes.set_ylim(len(shown) - 0.5, -0.8)  # top to bottom, room above the first bar's label
    axes.set_xlim(0, 100)  # a share: the axis ends where a bar can end
    axes.set_xticks([0, 50, 100])
    axes.xaxis.set_major_formatter(PercentFormatter())
    axes.set_xlabel(t(locale, "stats.chart.x_label"), fontfamily=families, fontsize=12)
    axes.spines[["top", "right"]].set_visible(False)
    axes.tick_params(axis="x", labelsize=12)
    figure.suptitle(_cut(title, _MASTERY_TITLE_COLUMNS), fontfamily=families, fontsize=16,
                    x=0.02, ha="left")
    for y, m, share in zip(positions, shown, shares, strict=True):
        key = "stats.chart.bar" if show_due else "stats.chart.bar.team"
        # The figures sit on their own line just above the bar, from the axis' start: a long
        # label never runs past 100 % nor back over the topic names, whatever the share.
        label = axes.text(0.5, y - 0.24, t(locale, key, pct=round(share), first=m.first_try,
                                           solved=m.solved, attempted=m.attempted, due=m.due),
                          va="bottom", ha="left", fontsize=11, fontfamily=families)
        label.set_in_layout(False)
    return figure


# Every chart of a process is drawn on this one thread. matplotlib keeps its font objects per
# thread and each thread that allocates gets its own malloc arena: drawn from a pool of 16
# worker threads, 128 leaderboards took a process from 193 to 274 MiB and still climbing;
# on one thread it levels at 158 MiB after about 20 (measured with bot/charts.py's own
# functions; the soak saw a Slack replica grow the same way). The drawing holds the GIL
# anyway, so nothing is lost by queueing.
_T = TypeVar("_T")
_RENDERER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="charts")


def _on_chart_thread(draw: Callable[[], _T]) -> Future[_T]:
    return _RENDERER.submit(draw)


class MatplotlibCharts:
    """Draw charts with matplotlib (the core's ChartRenderer port), all on one thread."""

    def leaderboard(
        self, rows: Sequence[LeaderboardRow], *, title: str, week_start: dt.date, locale: str
    ) -> Chart:
        """Return the week's leaderboard chart as a PNG."""
        return _on_chart_thread(lambda: leaderboard_chart(
            rows, title=title, week_start=week_start, locale=locale)).result()

    def mastery(self, topics: Sequence[TopicMastery], *, title: str, locale: str,
                show_due: bool = True) -> Chart:
        """Return the per-topic mastery chart as a PNG."""
        return _on_chart_thread(lambda: mastery_chart(
            topics, title=title, locale=locale, show_due=show_due)).result()

    def preload(self) -> Future[Chart]:
        """Import matplotlib and draw one chart in the background, on the chart thread.

        A long-running process then holds what charts keep (about 90 MiB) from its start, and
        its first weekly board does not wait for the import.
        """
        drawn = _on_chart_thread(lambda: leaderboard_chart(
            [], title="", week_start=dt.date(2026, 1, 5), locale="zh-CN"))
        drawn.add_done_callback(_log_preload)
        return drawn


def _log_preload(drawn: Future[Chart]) -> None:
    problem = drawn.exception()
    if problem is not None:
        # Only the warm-up failed: the first real chart tries again and reports its own error.
        log.warning("preloading the chart renderer failed: %r", problem)
