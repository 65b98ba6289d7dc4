"""Leaderboards and personal stats, computed from recorded answers and the channel's rounds."""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

from bot.core.boards.store import BoardStore
from bot.core.kernel.errors import NotFound
from bot.core.kernel.i18n import slash, t
from bot.core.kernel.messages import Audience, Message, Tone
from bot.core.kernel.models import (
    AnsweredTry,
    BoardPost,
    ChannelSettings,
    LeaderboardRow,
    Member,
    Rank,
    Round,
    ScoreRow,
    Stats,
    StreakAnchor,
    TopicMastery,
)
from bot.core.kernel.ports import ChartRenderer, Clock
from bot.core.kernel.streaks import streak_step
from bot.core.packs import channel_scope, library_of
from bot.core.quality import week_extras
from bot.core.questions import StreakState, rank, replay_streak, week_start
from content.loader import Bank
from content.topics import topic_label

PERIODS = ("week", "all")
BOARD_ROWS = 20  # the rows a leaderboard message shows
CHART_BARS = 10  # the members the weekly chart draws (and its alt text reads out)
_NAME_WIDTH = 20
TEAM_TOPICS = 20  # the topics the team chart draws, weakest first
CALENDAR_WEEKS = 8  # the streak calendar: this week and the seven before
# A day of the streak calendar: a round solved, missed but covered by a freeze, missed, still
# open (it neither counts nor breaks yet), no round that day, or a day still to come.
DAY_STATES = ("solved", "frozen", "missed", "open", "none", "future")


def _width(text: str) -> int:
    """Return the columns ``text`` takes in a monospace table (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cell(text: str, width: int) -> str:
    if text.isascii():  # one column a character: most names and every topic
        return text[:width].ljust(width)
    out, used = [], 0
    for ch in text:
        wide = _width(ch)
        if used + wide > width:
            break
        out.append(ch)
        used += wide
    return "".join(out) + " " * (width - used)


@dataclass(frozen=True)
class BoardView:
    """A board as a page shows it: ranked rows, rounds answered per member, hidden members."""

    rows: tuple[LeaderboardRow, ...]
    attempted: Mapping[int, int]  # per member id: rounds answered in the period
    hidden: int  # hidden members with points in the period (never listed)
    as_of: dt.datetime  # when it was read (UTC)


@dataclass(frozen=True)
class CalendarDay:
    """One day of a member's streak calendar: the date and what the streak made of it."""

    day: dt.date
    state: str  # one of DAY_STATES


def week_range(week_start: dt.date) -> str:
    """Return the week as the weekly post titles it, e.g. ``2026-11-30 – 2026-12-06``."""
    return f"{week_start.isoformat()} – {(week_start + dt.timedelta(days=6)).isoformat()}"


def subject_name(name: str, *ids: int) -> str:
    """Return a chart's file name with its subject's ids: ``mastery.png`` -> ``mastery-3-7.png``.

    Each channel and member gets a file of its own, so charts saved side by side (the console
    writes them to one folder) never overwrite another subject's.
    """
    if not name:
        return name
    stem, dot, extension = name.rpartition(".")
    stem, extension = (stem, extension) if dot else (name, "png")
    return f"{stem}-{'-'.join(str(i) for i in ids)}.{extension}"


class BoardService:
    """Answer /leaderboard and /stats, and build the weekly post."""

    def __init__(
        self, store: BoardStore, bank: Bank, clock: Clock, charts: ChartRenderer | None = None
    ) -> None:
        self.store = store
        self.bank = library_of(bank)
        self.clock = clock
        self.charts = charts  # None: the weekly post is the table alone
        # The library's topics of each question last given to the store (topic_board).
        self._synced_topics: Mapping[str, tuple[str, ...]] | None = None

    def _open_date(self, channel: ChannelSettings) -> dt.date | None:
        return self._open_of(self.store.latest_round(channel.id))

    def _open_of(self, latest: Round | None) -> dt.date | None:
        """Return the date of ``latest`` while it is open (the streaks' grace rule), else None."""
        if latest is None or latest.status != "open" or latest.closes_at <= self.clock.now():
            return None
        return latest.local_date

    def _streaks(self, channel: ChannelSettings, anchors: dict[int, StreakAnchor],
                 user_ids: list[int], rounds: int, open_date: dt.date | None
                 ) -> dict[int, StreakState]:
        """Return each member's streak and freezes now, from the streaks stored with answers.

        A stored streak stands as of the member's latest solve: only the rounds after it are
        walked (all missed). Members who never solved have none. A stale one (a round added
        before it, a concurrent solve) is walked again from the member's solved rounds: one
        read for all of them, needed only then.
        """
        states: dict[int, StreakState] = {}
        stale = []
        for uid in user_ids:
            anchor = anchors.get(uid)
            state = StreakState() if anchor is None else anchor.now(rounds, open_date)
            if state is None:
                stale.append(uid)
            else:
                states[uid] = state
        if stale:
            dates, solved = self.store.streak_history(channel.id, stale)
            for uid in stale:
                states[uid] = replay_streak(dates, solved.get(uid, ()), open_date)
        return states

    def _board(self, channel: ChannelSettings, period: str, limit: int | None
               ) -> tuple[list[LeaderboardRow], int, list[ScoreRow]]:
        """Return the ranked rows, the hidden members with points and the scores, in one read."""
        read = self.store.board_read(channel.id, self._since(channel, period), limit)
        states = self._streaks(channel, read.anchors, [s.user_id for s in read.scores],
                               read.rounds, self._open_of(read.latest))
        ranked = [replace(row, freezes=states[row.user_id].freezes) if row.user_id in states
                  else row
                  for row in rank(read.scores, {uid: st.current for uid, st in states.items()})]
        # A tie at the cut came whole so that it is ordered by name; show only ``limit`` rows.
        return (ranked if limit is None else ranked[:limit]), read.hidden, list(read.scores)

    def rows(
        self, channel: ChannelSettings, period: str, limit: int | None = BOARD_ROWS
    ) -> list[LeaderboardRow]:
        """Return the top ``limit`` ranked rows of the leaderboard for ``period`` (week or all).

        None returns every member with points.
        """
        return self._board(channel, period, limit)[0]

    def board(self, channel: ChannelSettings, period: str, limit: int) -> BoardView:
        """Return the top ``limit`` rows with each member's rounds answered, and the hidden count.

        What the web page shows (bot/core/desk/web.py); hidden members are left out and
        counted, as in /leaderboard. The same one read as /leaderboard.
        """
        as_of = self.clock.now()
        rows, hidden, scores = self._board(channel, period, limit)
        attempted = {s.user_id: s.attempted for s in scores}
        return BoardView(tuple(rows), attempted, hidden, as_of)

    def board_topics(self, channel: ChannelSettings) -> list[str]:
        """Return the topics a per-topic board may show: every topic the workspace sees."""
        return self.bank.view(channel_scope(channel)).topics

    def topic_board(self, channel: ChannelSettings, topic: str, limit: int) -> BoardView:
        """Return the top ``limit`` rows of the channel's board on one topic, all time.

        The points of the channel's rounds whose question covers ``topic`` (any version, a
        removed pack's too: the library's lookups are global), read from the per-topic totals
        kept with answers: one statement, down to the ``limit``-th member and whoever ties.
        The store is first given the library's topics of each question when they are not the
        ones it was last given (once per library snapshot: the store recounts only what
        changed). Hidden members are left out and counted, as on every board. A topic board
        has no streak of its own: its rows' streaks are 0.
        """
        as_of = self.clock.now()
        topics_of = self.bank.topics_of()
        if topics_of is not self._synced_topics:
            self.store.sync_item_topics(topics_of)
            self._synced_topics = topics_of
        scores, hidden = self.store.topic_scores(channel.id, topic, max(limit, 0))
        rows = rank(scores, {})[:max(limit, 0)]
        attempted = {s.user_id: s.attempted for s in scores}
        return BoardView(tuple(rows), attempted, hidden, as_of)

    def _since(self, channel: ChannelSettings, period: str) -> dt.datetime | None:
        return week_start(self.clock.now(), channel.timezone) if period == "week" else None

    def leaderboard(self, channel: ChannelSettings, period: str, locale: str) -> Message:
        """Return the leaderboard as a monospace table (private unless posted weekly).

        Hidden members are left out and counted ("+N members hidden"). Nothing here depends on
        who asked, since a member may share it: a hidden member reads their place in /stats.
        """
        if period not in PERIODS:
            return Message(body=t(locale, "leaderboard.bad_period"), tone=Tone.WARNING)
        rows, hidden, _ = self._board(channel, period, BOARD_ROWS)
        table = self._table(rows, period, locale, hidden)
        extra = self._hidden_note(hidden, locale) if rows else ""
        return replace(table, footer=" · ".join(n for n in (table.footer, extra) if n))

    @staticmethod
    def _table(rows: list[LeaderboardRow], period: str, locale: str,
               hidden: int = 0) -> Message:
        title = t(locale, f"leaderboard.title.{period}")
        if not rows:
            # Somebody scored, but only members who keep off the boards: not "nobody yet".
            key = "leaderboard.only_hidden" if hidden else "leaderboard.empty"
            return Message(title=title, body=t(locale, key, count=hidden))
        lines = [t(locale, "leaderboard.header")]
        for row in rows:
            streak = f"{row.streak}{'❄' * row.freezes}"
            lines.append(
                f"{row.rank:<3} {_cell(row.display_name, _NAME_WIDTH)} "
                f"{row.points:>6}  {row.solved:>6}  {streak:>6}"
            )
        legend = t(locale, "leaderboard.freezes") if any(r.freezes for r in rows) else ""
        return Message(title=title, code="\n".join(lines), footer=legend,
                       audience=Audience.PRIVATE)

    @staticmethod
    def _hidden_note(count: int, locale: str) -> str:
        # Said once: the body already counts them when only hidden members scored.
        return t(locale, "leaderboard.hidden", count=count) if count else ""

    def claim_weekly(self, channel_id: int) -> bool:
        """Claim this week's board post for the channel; False: another replica posts it."""
        channel = self.store.get_channel(channel_id)
        if channel is None:
            raise NotFound(f"channel {channel_id}")
        now = self.clock.now()
        return self.store.claim_weekly_board(channel_id, week_start(now, channel.timezone), now)

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
        rows, hidden, _ = self._board(channel, "week", BOARD_ROWS)
        table = self._table(rows, "week", locale, hidden)
        # What the week's closed rounds taught: its misconception and its hardest question.
        tries = self.store.week_first_tries(channel.id, start, start + dt.timedelta(days=7))
        post = Message(title=t(locale, "leaderboard.weekly", week=week), body=table.body,
                       code=table.code, audience=Audience.CHANNEL,
                       fields=week_extras(tries, self.bank, locale),
                       footer=" · ".join(n for n in (table.footer,
                                                      self._hidden_note(hidden, locale) if rows
                                                      else "")
                                         if n))
        if self.charts is None:
            return BoardPost(channel, post)
        shown = rows[:CHART_BARS]
        chart = self.charts.leaderboard(shown, title=t(locale, "leaderboard.title.week"),
                                        week_start=start, locale=locale)
        bars = "; ".join(t(locale, "chart.alt.bar", rank=r.rank, name=r.display_name,
                           points=r.points) for r in shown)
        alt = (t(locale, "chart.alt", week=week, bars=bars) if shown
               else t(locale, "chart.alt.empty", week=week))
        return BoardPost(channel, replace(post, image_png=chart.png,
                                          image_name=subject_name(chart.name, channel.id),
                                          image_alt=alt))

    def _mastery(self, results: Sequence[tuple[str, int, int, int]], due_items: list[str]
                 ) -> tuple[TopicMastery, ...]:
        """Fold (item, answered, solved, first try) and due items into per-topic mastery."""
        per_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for item_id, answered, solved, first_try in results:
            item = self.bank.questions.get(item_id)
            if item is None:
                continue  # retired from the bank; it still counts in points
            for topic in item.topics:
                per_topic[topic][0] += answered
                per_topic[topic][1] += solved
                per_topic[topic][3] += first_try
        for item_id in due_items:
            item = self.bank.questions.get(item_id)
            for topic in item.topics if item is not None else ():
                per_topic[topic][2] += 1
        return tuple(TopicMastery(topic, attempted, solved, due, first_try)
                     for topic, (attempted, solved, due, first_try)
                     in sorted(per_topic.items()))

    def stats(self, channel: ChannelSettings, member: Member) -> Stats:
        """Return a member's points, streaks, freezes, ranks, reviews due and topic mastery.

        One read (bot.core.kernel.models.MemberRead) whatever the member's history.
        """
        now = self.clock.now()
        read = self.store.member_read(channel.id, member.id, now,
                                      week_start(now, channel.timezone))
        mine = read.score
        results = read.results
        due_items = read.due_items
        anchors = {member.id: read.anchor} if read.anchor is not None else {}
        streak = self._streaks(channel, anchors, [member.id], read.rounds,
                               self._open_of(read.latest))[member.id]
        return Stats(
            points=mine.points if mine else 0,
            solved=mine.solved if mine else 0,
            attempted=mine.attempted if mine else 0,
            streak=streak.current,
            best_streak=streak.best,
            mastery=self._mastery(results, due_items),
            freezes=streak.freezes,
            reviews_due=len(due_items),
            rank_week=Rank(*read.rank_week) if read.rank_week else None,
            rank_all=Rank(*read.rank_all) if read.rank_all else None,
        )

    def streak_calendar(self, channel: ChannelSettings, member: Member,
                        weeks: int = CALENDAR_WEEKS) -> tuple[tuple[CalendarDay, ...], ...]:
        """Return the member's last ``weeks`` weeks (Monday first) as the streak saw each day.

        The channel's rounds are walked by the streak rule from the first (two statements,
        whatever the history): a missed round that a held freeze covered reads "frozen".
        """
        open_date = self._open_of(self.store.latest_round(channel.id))
        dates, solved = self.store.streak_history(channel.id, [member.id])
        mine = set(solved.get(member.id, ()))
        states: dict[dt.date, str] = {}
        state = StreakState()
        for day in dates:
            if day == open_date and day not in mine:
                states[day] = "open"
                continue
            if day in mine:
                states[day] = "solved"
            else:
                states[day] = "frozen" if state.freezes and state.current else "missed"
            state = streak_step(state, day in mine)
        today = self.clock.now().astimezone(ZoneInfo(channel.timezone)).date()
        first = today - dt.timedelta(days=today.weekday() + 7 * (weeks - 1))
        days = [first + dt.timedelta(days=n) for n in range(7 * weeks)]
        return tuple(
            tuple(CalendarDay(d, "future" if d > today else states.get(d, "none"))
                  for d in days[w * 7:(w + 1) * 7])
            for w in range(weeks))

    def answer_history(self, channel: ChannelSettings, member: Member, page: int,
                       rows: int) -> tuple[list[AnsweredTry], bool]:
        """Return one page of the member's tries in the channel, newest first, and if more exist.

        One statement: a row more than the page is read, to know whether a next page exists.
        """
        found = self.store.answer_history(channel.id, member.id, (page - 1) * rows, rows + 1)
        return found[:rows], len(found) > rows

    def stats_message(self, channel: ChannelSettings, member: Member, locale: str,
                      viewer: Member | None = None, *, chart: bool = True) -> Message:
        """Return a member's stats as a private message: numbers, a mastery chart, its text twin.

        ``viewer`` is who asked (the member by default): a hidden member's stats are theirs only.
        ``chart`` False leaves the image out (an overview that cannot show one).
        """
        title = t(locale, "stats.title", name=member.display_name)
        if member.hidden and viewer is not None and viewer.id != member.id:
            return Message(title=title, body=t(locale, "stats.private"))
        stats = self.stats(channel, member)
        if not stats.attempted and not stats.mastery:
            return Message(title=title, body=t(locale, "stats.none"))

        def place(rank: Rank | None) -> str:
            return (t(locale, "stats.rank", rank=rank.rank, of=rank.of) if rank
                    else t(locale, "stats.unranked"))

        lines = [
            t(locale, "stats.summary", points=stats.points, solved=stats.solved,
              attempted=stats.attempted, streak=stats.streak, best=stats.best_streak),
            t(locale, "stats.more", freezes=stats.freezes, due=stats.reviews_due,
              week=place(stats.rank_week), all=place(stats.rank_all)),
        ]
        if member.hidden:
            lines.append(t(locale, "stats.hidden_note"))
        lines += ["", t(locale, "stats.mastery")]
        message = Message(title=title, body="\n".join(lines),
                          code=mastery_table(stats.mastery, locale) if stats.mastery else None)
        if not chart:
            return message
        drawn = self._with_chart(message, stats.mastery,
                                 t(locale, "stats.chart.title", name=member.display_name), locale)
        return replace(drawn, image_name=subject_name(drawn.image_name, channel.id, member.id))

    def _with_chart(self, message: Message, mastery: Sequence[TopicMastery], title: str,
                    locale: str, *, team: bool = False) -> Message:
        if self.charts is None or not mastery:
            return message
        chart = self.charts.mastery(mastery, title=title, locale=locale, show_due=not team)
        key = "stats.chart.alt.team" if team else "stats.chart.alt.bar"
        bars = "; ".join(
            t(locale, key, topic=topic_label(m.topic, locale), pct=round(m.ratio * 100),
              first=m.first_try, solved=m.solved, attempted=m.attempted, due=m.due)
            for m in mastery)
        return replace(message, image_png=chart.png, image_name=chart.name,
                       image_alt=t(locale, "stats.chart.alt", bars=bars))

    def team_mastery(self, channel: ChannelSettings) -> tuple[TopicMastery, ...]:
        """Return the channel's per-topic mastery over every member's daily answers, weakest first.

        Weakest: the lowest share right on the first try; among equals, the most answered first.
        """
        return self._weakest_first(self.store.channel_item_results(channel.id))

    def _weakest_first(self, results: Sequence[tuple[str, int, int, int]]
                       ) -> tuple[TopicMastery, ...]:
        mastery = self._mastery(results, [])
        return tuple(sorted(mastery, key=lambda m: (m.ratio, -m.attempted, m.topic)))

    def team_stats(self, channel: ChannelSettings, locale: str) -> Message:
        """Return the team's topic mastery, weakest first, with cards for the two weakest topics."""
        title = t(locale, "stats.team.title")
        results = self.store.channel_item_results(channel.id)
        mastery = self._weakest_first(results)
        if not mastery:
            return Message(title=title, body=t(locale, "stats.team.none"))
        lines = [t(locale, "stats.team.summary")]
        cards = self._cards_for_weakest(mastery, results, channel_scope(channel))
        if cards:
            lines.append(t(locale, "stats.team.cards",
                           cards=", ".join(f"`{slash('explain')} {card}`" for card in cards)))
        message = Message(title=title, body="\n".join(lines),
                          code=mastery_table(mastery, locale, show_due=False))
        drawn = self._with_chart(message, mastery[:TEAM_TOPICS], title, locale, team=True)
        if not drawn.image_png:
            return drawn
        return replace(drawn, image_name=subject_name("team-mastery.png", channel.id))

    def privacy(self, member: Member, choice: str, locale: str) -> Message:
        """Hide the member from the boards ("hidden"), show them ("visible"), or say which."""
        if choice not in ("", "hidden", "visible"):
            return Message(body=t(locale, "privacy.usage"), tone=Tone.WARNING)
        if not choice:
            state = "hidden" if member.hidden else "visible"
            return Message(body=t(locale, f"privacy.status.{state}"))
        self.store.set_hidden(member.id, choice == "hidden")
        return Message(body=t(locale, f"privacy.{choice}"), tone=Tone.SUCCESS)

    def _cards_for_weakest(self, mastery: Sequence[TopicMastery],
                           results: Sequence[tuple[str, int, int, int]],
                           scope: str | None) -> list[str]:
        """Return a card for each of the two weakest topics: the one the team's misses point to.

        A miss is a member-round not right on the first try. Each missed item's own links
        (``explain_links``) get its misses; a topic's card is its most missed link, so weak
        TorchScript answers bring the TorchScript card, not the topic's alphabetically first.
        A topic whose missed items link no card the workspace sees falls back to a card on the
        topic; one with neither (a narrow sub-topic) passes its turn to the next weakest.
        """
        visible = self.bank.view(scope).cards
        on_topic = self._cards_by_topic(scope)
        misses: dict[str, Counter[str]] = defaultdict(Counter)
        for item_id, answered, _solved, first_try in results:
            item = self.bank.questions.get(item_id)
            if item is None or answered <= first_try:
                continue
            for topic in item.topics:
                for card in item.explain_links:
                    if card in visible:
                        misses[topic][card] += answered - first_try
        chosen: list[str] = []
        for m in mastery:
            linked = [card for card, _ in sorted(misses[m.topic].items(),
                                                  key=lambda kv: (-kv[1], kv[0]))]
            found = next((c for c in [*linked, *on_topic.get(m.topic, ())]
                          if c not in chosen), None)
            if found is not None:
                chosen.append(found)
            if len(chosen) == 2:
                break
        return chosen

    def _cards_by_topic(self, scope: str | None) -> dict[str, list[str]]:
        """Return the ids of the explain cards the workspace sees per topic, in id order."""
        by_topic: dict[str, list[str]] = defaultdict(list)
        for card in sorted(self.bank.view(scope).cards.values(), key=lambda c: c.id):
            by_topic[card.topic].append(card.id)
        return by_topic


def mastery_table(mastery: Sequence[TopicMastery], locale: str, *, show_due: bool = True) -> str:
    """Return the text twin of the mastery chart: one line per topic, as a monospace table."""
    topic, accuracy, counts, due = t(locale, "stats.mastery.header").split("|")
    due = due if show_due else ""
    lines = [f"{_cell(topic, 22)} {_cell(accuracy, 15)} {_cell(counts, 16)} {due}"]
    for m in mastery:
        bar = "█" * round(m.ratio * 10)
        label = topic_label(m.topic, locale)
        lines.append(f"{_cell(label, 22)} {bar:<10} {round(m.ratio * 100):>3}% "
                     f"{_cell(f'{m.first_try}/{m.solved}/{m.attempted}', 16)} "
                     f"{m.due if show_due else ''}")
    return "\n".join(line.rstrip() for line in lines)
