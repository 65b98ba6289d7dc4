"""Leaderboards and personal stats, computed from recorded answers and the channel's rounds."""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections import defaultdict
from dataclasses import replace
from zoneinfo import ZoneInfo

from bot.core.errors import NotFound
from bot.core.i18n import t
from bot.core.messages import Audience, Message, Tone
from bot.core.models import BoardPost, ChannelSettings, LeaderboardRow, Member, Stats, TopicMastery
from bot.core.ports import ChartRenderer, Clock, QuizStore
from bot.core.scoring import best_streak, current_streak, rank, streak_run, week_start
from content.loader import Bank

PERIODS = ("week", "all")
BOARD_ROWS = 20  # the rows a leaderboard message shows
CHART_BARS = 10  # the members the weekly chart draws (and its alt text reads out)
# Streaks are read over the latest rounds first, and further back only for the members whose
# streak reaches that far: one query in the common case, a few for year-long streaks.
STREAK_WINDOW = 16
_NAME_WIDTH = 20


def _width(text: str) -> int:
    """Return the columns ``text`` takes in a monospace table (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cell(text: str, width: int) -> str:
    out = ""
    for ch in text:
        if _width(out + ch) > width:
            break
        out += ch
    return out + " " * (width - _width(out))


def week_range(week_start: dt.date) -> str:
    """Return the week as the weekly post titles it, e.g. ``2026-11-30 – 2026-12-06``."""
    return f"{week_start.isoformat()} – {(week_start + dt.timedelta(days=6)).isoformat()}"


class BoardService:
    """Answer /leaderboard and /stats, and build the weekly post."""

    def __init__(
        self, store: QuizStore, bank: Bank, clock: Clock, charts: ChartRenderer | None = None
    ) -> None:
        self.store = store
        self.bank = bank
        self.clock = clock
        self.charts = charts  # None: the weekly post is the table alone

    def _open_date(self, channel: ChannelSettings) -> dt.date | None:
        latest = self.store.latest_round(channel.id)
        if latest is None or latest.status != "open" or latest.closes_at <= self.clock.now():
            return None
        return latest.local_date

    def streaks(self, channel: ChannelSettings, user_ids: list[int]) -> dict[int, int]:
        """Return each member's current streak in the channel, in a few queries for them all."""
        dates = self.store.round_dates(channel.id)
        open_date = self._open_date(channel)
        streaks: dict[int, int] = {}
        pending, window = list(user_ids), STREAK_WINDOW
        while pending:
            recent = dates[-window:]
            solved = self.store.recent_solved_dates(
                channel.id, pending, recent[0] if len(recent) < len(dates) else None
            )
            unfinished = []
            for uid in pending:
                count, ended = streak_run(recent, solved.get(uid, ()), open_date)
                if ended or len(recent) == len(dates):
                    streaks[uid] = count
                else:
                    unfinished.append(uid)
            pending, window = unfinished, window * 4
        return streaks

    def rows(
        self, channel: ChannelSettings, period: str, limit: int | None = BOARD_ROWS
    ) -> list[LeaderboardRow]:
        """Return the top ``limit`` ranked rows of the leaderboard for ``period`` (week or all).

        None returns every member with points.
        """
        since = week_start(self.clock.now(), channel.timezone) if period == "week" else None
        scores = self.store.top_scores(channel.id, since, limit)
        ranked = rank(scores, self.streaks(channel, [s.user_id for s in scores]))
        # A tie at the cut came whole so that it is ordered by name; show only ``limit`` rows.
        return ranked if limit is None else ranked[:limit]

    def leaderboard(self, channel: ChannelSettings, period: str, locale: str) -> Message:
        """Return the leaderboard as a monospace table (private unless posted weekly)."""
        if period not in PERIODS:
            return Message(body=t(locale, "leaderboard.bad_period"), tone=Tone.WARNING)
        return self._table(self.rows(channel, period), period, locale)

    @staticmethod
    def _table(rows: list[LeaderboardRow], period: str, locale: str) -> Message:
        title = t(locale, f"leaderboard.title.{period}")
        if not rows:
            return Message(title=title, body=t(locale, "leaderboard.empty"))
        lines = [t(locale, "leaderboard.header")]
        for row in rows:
            lines.append(
                f"{row.rank:<3} {_cell(row.display_name, _NAME_WIDTH)} "
                f"{row.points:>6}  {row.solved:>6}  {row.streak:>6}"
            )
        return Message(title=title, code="\n".join(lines), audience=Audience.PRIVATE)

    def weekly_post(self, channel_id: int) -> BoardPost:
        """Return the channel's weekly leaderboard post: the table, and its chart when drawn.

        The chart's alt text reads out what the bars show, in the channel's language.
        """
        channel = self.store.get_channel(channel_id)
        if channel is None:
            raise NotFound(f"channel {channel_id}")
        locale = channel.locale
        zone = ZoneInfo(channel.timezone)
        start = week_start(self.clock.now(), channel.timezone).astimezone(zone).date()
        week = week_range(start)
        rows = self.rows(channel, "week")
        table = self._table(rows, "week", locale)
        post = Message(title=t(locale, "leaderboard.weekly", week=week), body=table.body,
                       code=table.code, audience=Audience.CHANNEL)
        if self.charts is None:
            return BoardPost(channel, post)
        shown = rows[:CHART_BARS]
        chart = self.charts.leaderboard(shown, title=t(locale, "leaderboard.title.week"),
                                        week_start=start, locale=locale)
        bars = "; ".join(t(locale, "chart.alt.bar", rank=r.rank, name=r.display_name,
                           points=r.points) for r in shown)
        alt = (t(locale, "chart.alt", week=week, bars=bars) if shown
               else t(locale, "chart.alt.empty", week=week))
        return BoardPost(channel, replace(post, image_png=chart.png, image_name=chart.name,
                                          image_alt=alt))

    def stats(self, channel: ChannelSettings, member: Member) -> Stats:
        """Return a member's points, streaks and per-topic mastery in the channel."""
        mine = self.store.member_score(channel.id, member.id)
        dates = self.store.round_dates(channel.id)
        solved_dates = self.store.solved_dates(channel.id, member.id)
        per_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for result in self.store.item_results(member.id, channel.id):
            item = self.bank.questions.get(result.item_id)
            if item is None:
                continue  # retired from the bank; it still counts in points
            for topic in item.topics:
                per_topic[topic][0] += 1
                per_topic[topic][1] += int(result.correct)
        mastery = tuple(
            TopicMastery(topic, attempted, solved)
            for topic, (attempted, solved) in sorted(per_topic.items())
        )
        return Stats(
            points=mine.points if mine else 0,
            solved=mine.solved if mine else 0,
            attempted=mine.attempted if mine else 0,
            streak=current_streak(dates, solved_dates, self._open_date(channel)),
            best_streak=best_streak(dates, solved_dates),
            mastery=mastery,
        )

    def stats_message(self, channel: ChannelSettings, member: Member, locale: str) -> Message:
        """Return a member's stats as a private message with a mastery bar per topic."""
        stats = self.stats(channel, member)
        title = t(locale, "stats.title", name=member.display_name)
        if not stats.attempted and not stats.mastery:
            return Message(title=title, body=t(locale, "stats.none"))
        summary = t(locale, "stats.summary", points=stats.points, solved=stats.solved,
                    attempted=stats.attempted, streak=stats.streak, best=stats.best_streak)
        bars = [
            f"{_cell(m.topic, 22)} {'█' * round(m.ratio * 10):<10} {m.solved}/{m.attempted}"
            for m in stats.mastery
        ]
        return Message(title=title, body=summary + "\n\n" + t(locale, "stats.mastery"),
                       code="\n".join(bars) if bars else None)
