"""The boards at the desk: a channel's leaderboard (/leaderboard) and stats (/stats)."""

from __future__ import annotations

from bot.core.desk.base import DeskBase
from bot.core.kernel.commands import Command, Option
from bot.core.kernel.models import Identity
from bot.core.kernel.replies import Reply


def leaderboard(desk: DeskBase, who: Identity, period: str, _whom: Identity | None) -> Reply:
    """Return the channel's board of the week or of all time, in the channel's language."""
    found, actor = desk.resolve(who)
    if found.channel is None:
        return desk.warning(actor.locale or "en", "channel.no_quiz")
    period = period.lower() or "week"
    locale = found.channel.locale
    return Reply(locale, desk.quiz.board.leaderboard(found.channel, period, locale))


def stats(desk: DeskBase, who: Identity, argument: str, whom: Identity | None) -> Reply:
    """Return a member's stats (``whom``, else the asker's); ``team``: the team's (admins)."""
    found, actor = desk.resolve(who)
    if found.channel is None:
        return desk.warning(actor.locale or "en", "channel.no_quiz")
    locale = found.channel.locale
    if argument.lower() == "team" and whom is None:
        if not who.is_admin:
            return desk.warning(locale, "stats.team.denied")
        return Reply(locale, desk.quiz.board.team_stats(found.channel, locale))
    member = found.member if whom is None or whom.user == who.user else desk.member(whom)
    return Reply(locale, desk.quiz.board.stats_message(found.channel, member, locale,
                                                       viewer=found.member))


LEADERBOARD = Command(
    "leaderboard", help_key="help.leaderboard", handler=leaderboard,
    describe={"discord": "This channel's leaderboard", "slack": "This channel's leaderboard"},
    options=(Option("period", "choice", "this week or all time",
                    choices=(("this week", "week"), ("all time", "all"))),
             Option("share", "boolean", "post it for everyone")),
    usage={"slack": "[week | all]", "home": "[week|all]", "console": "[week|all]"})
STATS = Command(
    "stats", help_key="help.stats", handler=stats, escape=True,
    describe={"discord": "Points, streaks and mastery by topic",
              "slack": "Points, streaks, freezes, ranks and mastery by topic"},
    options=(Option("member", "member", "whose stats (you by default)"),
             Option("share", "boolean", "post it for everyone"),
             Option("team", "boolean", "the team's mastery by topic, weakest first (admins)")),
    usage={"slack": "[@member | team]", "home": "", "console": "[team]"})
