"""Hidden members, ranks outside the top rows, reviews due, the mastery chart and /stats team."""

import dataclasses
import datetime as dt

import pytest

from bot.core.boards.board import BoardService
from bot.core.desk import Desk
from bot.core.kernel.models import Chart, Identity, Review
from bot.core.questions.scoring import rank
from content.loader import Bank
from tests.db.builders import DAY, T0, answer, make_channel, make_member, open_round
from tests.support.core import only


class RecordingCharts:
    """The chart renderer's edge: records what it was asked to draw."""

    def __init__(self):
        self.boards = []
        self.masteries = []

    def leaderboard(self, rows, *, title, week_start, locale):
        self.boards.append(list(rows))
        return Chart(b"PNG", "leaderboard.png")

    def mastery(self, topics, *, title, locale, show_due=True):
        self.masteries.append((list(topics), title, locale))
        return Chart(b"PNG", "mastery.png")


def _board_with(store, clock, points):
    """Return a channel whose members (named m0, m1, ...) scored ``points`` this week."""
    channel = make_channel(store, timezone="UTC")
    round_ = open_round(store, channel, DAY)
    people = []
    for n, score in enumerate(points):
        person = make_member(store, f"U{n}", f"m{n}")
        answer(store, round_, person, points=score, at=T0 + dt.timedelta(minutes=n))
        people.append(person)
    clock.set(T0 + dt.timedelta(hours=1))
    return channel, people


def test_a_hidden_member_is_on_no_board_and_the_others_rank_among_themselves(store, bank, clock):
    charts = RecordingCharts()
    board = BoardService(store, bank, clock, charts)
    channel, (top, *_others) = _board_with(store, clock, [30, 20, 10])
    store.set_hidden(top.id, True)
    for period in ("week", "all"):
        rows = board.rows(channel, period)
        assert [(r.rank, r.display_name) for r in rows] == [(1, "m1"), (2, "m2")]
        message = board.leaderboard(channel, period, "en")
        assert "m0" not in message.code and message.footer == "+1 member hidden"
    post = board.weekly_post(channel.id).message
    assert "m0" not in post.code and "m0" not in post.image_alt
    assert post.footer == "+1 member hidden"
    assert [r.display_name for r in charts.boards[-1]] == ["m1", "m2"]


def test_a_board_whose_only_scorer_is_hidden_says_so_not_nobody_yet(store, bank, clock):
    board = BoardService(store, bank, clock, RecordingCharts())
    channel, (only_one,) = _board_with(store, clock, [30])
    store.set_hidden(only_one.id, True)
    for period in ("week", "all"):
        message = board.leaderboard(channel, period, "en")
        assert message.body == "Only 1 member hidden from the boards has scored so far."
        assert "No points yet" not in message.body and message.footer == ""
    post = board.weekly_post(channel.id).message
    assert post.body == "Only 1 member hidden from the boards has scored so far."
    assert board.leaderboard(channel, "week", "zh-CN").body == "目前只有 1 名已隐藏的成员得分。"


def test_a_hidden_member_sees_their_own_place_privately(store, bank, clock):
    board = BoardService(store, bank, clock)
    channel, (top, *_rest) = _board_with(store, clock, [30, 20, 10])
    store.set_hidden(top.id, True)
    hidden = store.get_member(top.id)
    mine = board.leaderboard(channel, "week", "en")  # the board is the same for everyone
    assert "m0" not in mine.code and mine.footer == "+1 member hidden"
    stats = board.stats_message(channel, hidden, "en", viewer=hidden)
    assert "Rank this week: #1 of 3" in stats.body and "hidden from the boards" in stats.body


def test_another_members_stats_are_private_once_they_hide(store, bank, clock):
    board = BoardService(store, bank, clock)
    channel, (top, second, _) = _board_with(store, clock, [30, 20, 10])
    store.set_hidden(top.id, True)
    shown = board.stats_message(channel, store.get_member(top.id), "en", viewer=second)
    assert shown.body == "This member keeps their stats private."
    assert "30" not in (shown.code or "")
    store.set_hidden(top.id, False)
    again = board.stats_message(channel, store.get_member(top.id), "en", viewer=second)
    assert "30 points" in again.body


def test_a_rank_outside_the_top_ten_is_shown(store, bank, clock):
    points = [100 - 5 * n for n in range(12)] + [40, 40, 10]  # 12th: 45; two at 40
    channel, people = _board_with(store, clock, points)
    board = BoardService(store, bank, clock)
    assert len(board.rows(channel, "week", limit=10)) == 10
    stats = board.stats(channel, people[12])
    assert (stats.rank_week.rank, stats.rank_week.of) == (13, 15)
    assert (stats.rank_all.rank, stats.rank_all.of) == (13, 15)
    # Equal points and solved: whoever solved first ranks first, as on the board.
    assert board.stats(channel, people[13]).rank_week.rank == 14
    assert "Rank this week: #15 of 15" in board.stats_message(channel, people[14], "en").body


def test_the_stored_rank_matches_the_cores_order_for_every_member(store, bank, clock):
    channel = make_channel(store, timezone="UTC")
    rounds = [open_round(store, channel, DAY + dt.timedelta(days=d), item=f"i{d}")
              for d in range(3)]
    people = [make_member(store, f"U{n}", f"m{n}") for n in range(9)]
    for n, person in enumerate(people):
        for d, round_ in enumerate(rounds[: 1 + n % 3]):
            solved = (n + d) % 4 != 0
            answer(store, round_, person, correct=solved, points=10 * solved + (n % 2),
                   at=T0 + dt.timedelta(days=d, minutes=n % 3))
    store.set_hidden(people[4].id, True)
    visible = [s for s in store.scores(channel.id) if s.user_id != people[4].id]
    expected = {row.user_id: row.rank for row in rank(visible, {})}
    for person in people:
        place = store.member_rank(channel.id, person.id, None)
        if person.id in expected:
            assert place == (expected[person.id], len(expected))
    hidden_place = store.member_rank(channel.id, people[4].id, None)
    with_hidden = {r.user_id: r.rank for r in rank(store.scores(channel.id), {})}
    assert hidden_place == (with_hidden[people[4].id], len(expected) + 1)


def test_stats_count_reviews_due_now_per_topic(quiz, store, clock, channel, alice):
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    quiz.rounds.submit_answer(channel.id, alice, "clone")  # wrong: due again in minutes
    clock.advance(minutes=11)
    stats = quiz.board.stats(channel, alice.member)
    assert stats.reviews_due == 1
    assert [(m.topic, m.due) for m in stats.mastery] == [("autograd", 1)]
    store.save_review(Review(alice.member.id, "t.choice-view", 2, None, 3.0, 5.0,
                             clock.now() + dt.timedelta(days=3), clock.now(), True))
    assert quiz.board.stats(channel, alice.member).reviews_due == 1  # not due yet


def test_stats_carry_a_mastery_chart_with_alt_text_and_a_text_twin(store, bank, clock, quiz,
                                                                   channel, alice):
    charts = RecordingCharts()
    board = BoardService(store, bank, clock, charts)
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    quiz.rounds.submit_answer(channel.id, alice, "detach")
    message = board.stats_message(channel, alice.member, "en")
    assert message.image_png == b"PNG" and message.image_name == "mastery-1-1.png"
    assert message.image_alt.startswith(
        "Bar chart of the share answered right on the first try per topic")
    assert ("autograd 100% (1 of 1 on the first try, 1 solved in the end, 0 reviews due)"
            in message.image_alt)
    assert "autograd" in message.code and "100%" in message.code  # the text twin
    assert "Freezes held: 0" in message.body and "Rank this week: #1 of 1" in message.body
    [(topics, title, locale)] = charts.masteries
    assert [t.topic for t in topics] == ["autograd"] and "Alice" in title and locale == "en"


def _bank_with_card_topics(bank):
    topics = {"detach": "autograd", "no-grad": "autograd", "view-vs-reshape": "tensors"}
    cards = {cid: card.model_copy(update={"topic": topics.get(cid, card.topic)})
             for cid, card in bank.cards.items()}
    return dataclasses.replace(bank, cards=cards) if dataclasses.is_dataclass(bank) else Bank(
        questions=bank.questions, cards=cards)


def test_team_stats_list_topics_weakest_first_with_cards_for_the_two_weakest(store, bank, clock):
    board = BoardService(store, _bank_with_card_topics(bank), clock, RecordingCharts())
    channel = make_channel(store, timezone="UTC")
    tensors = open_round(store, channel, DAY, item="t.choice-view")
    autograd = open_round(store, channel, DAY + dt.timedelta(days=1), item="t.text-detach")
    for n in range(4):
        person = make_member(store, f"U{n}", f"m{n}")
        answer(store, tensors, person, correct=n < 3, points=10)
        answer(store, autograd, person, correct=n < 1, points=10)
        answer(store, autograd, person, attempt=2, correct=False, points=0)
    mastery = board.team_mastery(channel)
    assert [(m.topic, m.solved, m.attempted) for m in mastery] == [
        ("autograd", 1, 4), ("tensors", 3, 4)]
    message = board.team_stats(channel, "en")
    assert message.title == "Team mastery · weakest first"
    assert "/explain detach" in message.body and "/explain view-vs-reshape" in message.body
    assert message.code.splitlines()[1].startswith("autograd")
    assert message.image_png == b"PNG"


def _who(user, *, admin=False):
    return Identity(platform="console", workspace="ws", channel="general", user=user,
                    display_name=user.title(), locale="en", is_admin=admin,
                    channel_name="general")


def test_stats_team_is_for_admins_only(quiz, channel):
    desk = Desk(quiz)
    refused = desk.command(_who("bob"), "stats", "team")
    assert refused.message.body == "Only admins can see the team's stats."
    shown = desk.command(_who("ada", admin=True), "stats", "team")
    assert shown.message.title == "Team mastery · weakest first"


@pytest.mark.parametrize(("choice", "hidden", "said"), [
    ("hidden", True, "You are now hidden"), ("visible", False, "visible on the leaderboards"),
])
def test_the_privacy_command_sets_the_flag(quiz, channel, choice, hidden, said):
    desk = Desk(quiz)
    reply = desk.command(_who("bob"), "privacy", choice)
    assert said in reply.message.body
    assert quiz.rounds.store.ensure_member("console", "bob", "Bob").hidden is hidden
    status = desk.command(_who("bob"), "privacy", "")
    assert ("hidden from the boards" in status.message.body) is hidden


def test_the_privacy_command_explains_itself_for_anything_else(quiz, channel):
    reply = Desk(quiz).command(_who("bob"), "privacy", "invisible")
    assert "/quiz-privacy hidden or /quiz-privacy visible" in reply.message.body


def _third_try_solve(quiz, channel, alice):
    """Alice misses t.text-detach twice, then solves it on her third try."""
    channel = only(quiz, channel, "t.text-detach")
    quiz.rounds.post_round(channel.id)
    for text in ("clone", "data", "detach"):
        quiz.rounds.submit_answer(channel.id, alice, text)
    return channel


def test_a_third_try_solve_is_not_full_mastery(store, bank, clock, quiz, channel, alice):
    channel = _third_try_solve(quiz, channel, alice)
    [autograd] = quiz.board.stats(channel, alice.member).mastery
    assert (autograd.topic, autograd.first_try, autograd.solved, autograd.attempted) == (
        "autograd", 0, 1, 1)
    assert autograd.ratio < 1
    message = BoardService(store, bank, clock, RecordingCharts()).stats_message(
        channel, alice.member, "en")
    assert message.image_alt.startswith(
        "Bar chart of the share answered right on the first try per topic")
    assert "autograd 0% (0 of 1 on the first try, 1 solved in the end" in message.image_alt
    assert "100%" not in message.code and " 0%" in message.code
    assert "right on the first try" in message.body


def test_the_mastery_chart_says_first_try_in_chinese(store, bank, clock, quiz, channel, alice):
    channel = _third_try_solve(quiz, channel, alice)
    message = BoardService(store, bank, clock, RecordingCharts()).stats_message(
        channel, alice.member, "zh-CN")
    assert message.image_alt.startswith("各主题首次作答正确率条形图")
    assert "自动求导 0%（1 题中首次答对 0，最终答对 1" in message.image_alt


def test_team_mastery_counts_first_tries_too(store, bank, clock):
    board = BoardService(store, bank, clock, RecordingCharts())
    channel = make_channel(store, timezone="UTC")
    autograd = open_round(store, channel, DAY, item="t.text-detach")
    for n in range(2):
        person = make_member(store, f"U{n}", f"m{n}")
        answer(store, autograd, person, correct=False, points=0)
        answer(store, autograd, person, attempt=2, correct=n == 0, points=5)
    [m] = board.team_mastery(channel)
    assert (m.topic, m.first_try, m.solved, m.attempted) == ("autograd", 0, 1, 2)
    assert "  0%" in board.team_stats(channel, "en").code


def test_team_stats_suggest_the_card_the_missed_items_link_not_the_topics_first(store, bank,
                                                                                clock):
    carded = _bank_with_card_topics(bank)  # detach and no-grad are both autograd cards
    linked = carded.questions["t.text-detach"].model_copy(update={"explain_links": ["no-grad"]})
    carded = dataclasses.replace(carded, questions={**carded.questions, linked.id: linked})
    board = BoardService(store, carded, clock, RecordingCharts())
    channel = make_channel(store, timezone="UTC")
    autograd = open_round(store, channel, DAY, item="t.text-detach")
    for n in range(3):
        answer(store, autograd, make_member(store, f"U{n}", f"m{n}"), correct=False, points=0)
    body = board.team_stats(channel, "en").body
    assert "/explain no-grad" in body
    assert "/explain detach" not in body
