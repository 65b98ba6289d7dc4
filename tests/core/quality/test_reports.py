"""Reports of faulty questions, the reveal's distribution and the weekly extras, in the core."""

import pytest

from bot.core.desk import Desk
from bot.core.kernel.messages import parse_action, submit_id
from bot.core.kernel.models import Actor, AnswerMode, ChannelUpdate, Identity
from bot.core.quality.reports import NOTE_CHARS
from content.options import display_order
from tests.hostile import HOSTILE_STRINGS
from tests.support.core import only


def member(user="alice", *, admin=False, workspace="ws", channel="general"):
    return Identity(platform="console", workspace=workspace, channel=channel, user=user,
                    display_name=user.title(), locale="en", is_admin=admin,
                    channel_name=channel)


def posted(quiz, channel, item="t.choice-view"):
    channel = only(quiz, channel, item)
    return quiz.rounds.post_round(channel.id)


def report_button(message):
    return next(b.action_id for b in message.buttons
                if parse_action(b.action_id)[0] in ("report", "preport"))


def file(desk, who, action, reason="incorrect", note=""):
    opened = desk.click(who, action)
    assert opened.form is not None, opened.message
    return desk.submit(who, submit_id(opened.form), note, choice=reason)


def test_the_feedback_on_a_daily_answer_opens_a_report_form_with_reasons(quiz, channel):
    rnd = posted(quiz, channel).round
    desk = Desk(quiz)
    feedback = desk.click(member(), f"tq:answer:{rnd.id}:A").message
    action = report_button(feedback)
    assert action == f"tq:report:{rnd.id}:open"
    form = desk.click(member(), action).form
    assert [value for value, _ in form.choices] == [
        "incorrect", "ambiguous", "several_correct", "outdated", "translation", "other"]
    assert form.optional and form.max_chars == NOTE_CHARS
    assert submit_id(form) == f"tq:reported:{rnd.id}:text"


def test_a_member_reports_a_question_version_once_and_is_thanked(quiz, channel, store):
    rnd = posted(quiz, channel).round
    desk = Desk(quiz)
    thanks = file(desk, member(), f"tq:report:{rnd.id}:open", note="B is also right")
    assert "Thank you" in thanks.message.body
    again = file(desk, member(), f"tq:report:{rnd.id}:open", reason="ambiguous")
    assert "already reported this version" in again.message.body
    [stored] = store.reports()
    assert (stored.item_id, stored.item_version, stored.reason, stored.round_id) == (
        "t.choice-view", 1, "incorrect", rnd.id)
    assert stored.note == "B is also right"


def test_a_note_is_capped_and_an_unknown_reason_is_refused(quiz, channel, store):
    rnd = posted(quiz, channel).round
    desk = Desk(quiz)
    refused = file(desk, member(), f"tq:report:{rnd.id}:open", reason="wrong-ish")
    assert "Pick a reason" in refused.message.body and store.reports() == []
    file(desk, member(), f"tq:report:{rnd.id}:open", reason="more-than", note="x")
    assert store.reports() == []
    file(desk, member(), f"tq:report:{rnd.id}:open", reason="other", note="y" * 5000)
    assert len(store.reports()[0].note) == NOTE_CHARS


def test_a_fixed_question_starts_with_no_reports(quiz, channel, store, clock):
    rnd = posted(quiz, channel).round
    desk = Desk(quiz)
    file(desk, member(), f"tq:report:{rnd.id}:open")
    # The author fixes it: the next round carries version 2, which nobody has reported.
    clock.advance(days=1)
    fixed = store.claim_round(rnd.channel_id, rnd.local_date.replace(day=3), rnd.item_id, 2,
                              clock.now(), clock.now().replace(hour=23))
    assert [c.item_version for c in store.open_reports("t.choice-view")] == [1]
    assert "Thank you" in file(desk, member(), f"tq:report:{fixed.id}:open").message.body
    counts = {c.item_version: c.total for c in store.open_reports("t.choice-view")}
    assert counts == {1: 1, 2: 1}


def test_practice_feedback_reports_the_banks_current_version(quiz, store):
    desk = Desk(quiz)
    desk.command(member(), "quiz", "autograd")
    session = store.current_practice(store.ensure_member("console", "alice", "Alice").id)
    reply = desk.practice_answer(member(), "nonsense answer", AnswerMode.TEXT)
    action = report_button(reply.message)
    assert action == f"tq:preport:{session.item_id}:open"
    assert "Thank you" in file(desk, member(), action, reason="ambiguous").message.body
    assert store.reports()[0].item_version == 1 and store.reports()[0].round_id is None


def test_only_an_admin_lists_reports_whatever_the_member_types(quiz, channel):
    rnd = posted(quiz, channel).round
    desk = Desk(quiz)
    file(desk, member(), f"tq:report:{rnd.id}:open")
    for argument in ("", "close 1 nope"):
        refused = desk.command(member("bob"), "reports", argument)
        assert "Only admins" in refused.message.body
    listing = desk.command(member("boss", admin=True), "reports").message
    assert f"#1 · t.choice-view v1 · {'The marked answer is incorrect'}" in listing.body


def test_an_admin_sees_and_closes_only_their_workspaces_reports(quiz, channel, store):
    rnd = posted(quiz, channel).round
    desk = Desk(quiz)
    file(desk, member(), f"tq:report:{rnd.id}:open", note="mine")
    file(desk, member("zed", workspace="other"), f"tq:report:{rnd.id}:open", note="theirs")
    admin = member("boss", admin=True)
    listing = desk.command(admin, "reports").message
    assert listing.quotes == (("#1", "mine"),)
    refused = desk.command(admin, "reports", "close 2 not mine")
    assert "no open report #2" in refused.message.body
    closed = desk.command(admin, "reports", "close 1 the key is right")
    assert "closed" in closed.message.body
    assert store.reports(status=None)[0].close_reason == "the key is right"
    assert "No open reports" in desk.command(admin, "reports").message.body
    assert "close ID REASON" in desk.command(admin, "reports", "close 1").message.body


def test_the_listing_carries_notes_only_as_quotes(quiz, channel):
    rnd = posted(quiz, channel).round
    desk = Desk(quiz)
    for n, text in enumerate(HOSTILE_STRINGS.values()):
        file(desk, member(f"m{n}"), f"tq:report:{rnd.id}:open", note=text)
    listing = desk.command(member("boss", admin=True), "reports").message
    assert len(listing.quotes) == 10
    for _, note in listing.quotes:
        assert note not in listing.body and note[:NOTE_CHARS] == note


# ---------------------------------------------------------------- the reveal


def _answer(quiz, rnd, name, key):
    actor = Actor(quiz.rounds.member("console", name, name.title()))
    return quiz.rounds.answer_round(rnd.id, actor, key, AnswerMode.BUTTON)


def test_the_reveal_counts_first_tries_under_the_letters_the_round_showed(quiz, channel, clock,
                                                                          bank):
    rnd = posted(quiz, channel).round
    for name, key in (("a", "A"), ("b", "A"), ("c", "B"), ("d", "C")):
        _answer(quiz, rnd, name, key)
    _answer(quiz, rnd, "a", "B")  # a second try is not a first try
    clock.advance(days=1)
    [reveal] = quiz.rounds.close_due_rounds()
    order = display_order(bank.question("t.choice-view"), _seed(rnd))
    expected = " · ".join(f"{order.letter_of(k)} {n}"
                          for k, n in sorted({"A": 2, "B": 1, "C": 1}.items(),
                                             key=lambda kv: order.letter_of(kv[0])))
    assert ("First tries", expected) in reveal.message.fields
    assert report_button(reveal.message) == f"tq:report:{rnd.id}:open"


def _seed(rnd):
    from bot.core.questions.answers import round_seed

    return round_seed(rnd)


def _revealed_text(quiz, channel, clock, answers, item="t.text-detach",
                   mode=AnswerMode.TEXT):
    rnd = posted(quiz, channel, item).round
    for n, text in enumerate(answers):
        actor = Actor(quiz.rounds.member("console", f"m{n}", f"M{n}"))
        quiz.rounds.answer_round(rnd.id, actor, text, mode)
    clock.advance(days=1)
    [reveal] = quiz.rounds.close_due_rounds()
    return reveal.message


def test_the_reveal_of_a_text_question_quotes_the_three_commonest_wrong_answers(quiz, channel,
                                                                              clock):
    answers = ["data", "DATA", "data.", "clone()", "clone", "torch.clone", "no_grad",
               "no grad", "No-Grad", "retain", "retain", "retain", "requires_grad", "detach",
               HOSTILE_STRINGS["everyone"]]
    message = _revealed_text(quiz, channel, clock, answers)
    assert ("Most common wrong answers (first tries, each typed by 3 or more members):"
            in message.body)
    assert message.quotes == (("3×", "clone"), ("3×", "data"), ("3×", "no grad"))


def test_a_wrong_answer_only_two_members_typed_is_not_quoted_at_the_reveal(quiz, channel,
                                                                          clock):
    rude = "You STUPID bot"
    message = _revealed_text(quiz, channel, clock, [rude, rude.lower(), "clone", "detach"])
    assert message.quotes == ()
    assert "stupid" not in message.body.casefold()
    assert "Most common wrong answers" not in message.body


def test_a_wrong_answer_three_members_typed_is_quoted_folded_and_inert(quiz, channel, clock):
    from bot.adapters.discord.embeds import embed
    from bot.adapters.slack.blocks import render
    from tests.fake_slack import text_of
    from tests.hostile import invisible_or_control, pings

    hostile = HOSTILE_STRINGS["everyone"]
    message = _revealed_text(quiz, channel, clock, [hostile, hostile.upper(), hostile + "!",
                                                    "clone"])
    assert message.quotes == (("3×", "@everyone @here look"),)
    for shown in (embed(message).to_dict()["description"], text_of(render(message))):
        assert "3× " in shown and "look" in shown
        assert pings(shown) == [] and invisible_or_control(shown) == []


def test_the_reveal_of_a_code_question_quotes_no_code(quiz, channel, clock, executor):
    from tests.support.core import FakeVerdict

    executor.verdict = FakeVerdict("failed", 0, 1)
    message = _revealed_text(quiz, channel, clock, ["def double(x): return x"] * 3 +
                             ["def double(x): return 'rude words'"] * 3,
                             item="t.code-double", mode=AnswerMode.CODE)
    assert executor.runs  # the answers were judged as code, and failed
    assert message.quotes == ()
    assert "rude words" not in message.body and "return x" not in message.body


def _answer_text(quiz, rnd, name, text):
    actor = Actor(quiz.rounds.member("console", name, name.title()))
    return quiz.rounds.answer_round(rnd.id, actor, text, AnswerMode.TEXT)


def test_a_reveal_nobody_answered_shows_no_distribution(quiz, channel, clock):
    posted(quiz, channel)
    clock.advance(days=1)
    [reveal] = quiz.rounds.close_due_rounds()
    assert [name for name, _ in reveal.message.fields if name == "First tries"] == []


# ---------------------------------------------------------------- the weekly post


def _week(quiz, channel, clock, picks):
    """Play one closed round per entry: {item: [(member, response), ...]}."""
    for item, answers in picks:
        rnd = posted(quiz, channel, item).round
        for name, response in answers:
            (_answer if item == "t.choice-view" else _answer_text)(quiz, rnd, name, response)
        clock.advance(days=1)
        quiz.rounds.close_due_rounds()


def test_the_weekly_post_names_the_misconception_and_the_hardest_question(quiz, channel, clock):
    _week(quiz, channel, clock, [
        ("t.choice-view", [("a", "A"), ("b", "A"), ("c", "B")]),
        ("t.text-detach", [("a", "detach"), ("b", "detach"), ("c", "data")]),
    ])
    fields = dict(quiz.board.weekly_post(channel.id).message.fields)
    assert fields["Misconception of the week"] == (
        "2 members first picked “view” for: Which call may copy?\n"
        "Why it is wrong: view never copies.")
    assert fields["Hardest question of the week"] == (
        "Which call may copy? · 33% right on the first try (3 answered)\n"
        "Learn more: /explain view-vs-reshape")


def test_the_weekly_extras_speak_the_channels_language(quiz, channel, clock, store):
    store.update_channel(channel.id, ChannelUpdate(locale="zh-CN"))
    _week(quiz, channel, clock, [("t.choice-view", [("a", "A"), ("b", "A"), ("c", "B")])])
    fields = dict(quiz.board.weekly_post(channel.id).message.fields)
    assert fields["本周易错点"].endswith("错在哪里：view 从不复制。")
    assert "首次作答正确率 33%" in fields["本周最难的题"]


@pytest.mark.parametrize("answers", [
    [("a", "A"), ("b", "B")],  # two first tries: too few for the week
    [("a", "A"), ("b", "B"), ("c", "B")],  # one member's slip is no team misconception
])
def test_a_quiet_week_gets_no_misconception(quiz, channel, clock, answers):
    _week(quiz, channel, clock, [("t.choice-view", answers)])
    fields = dict(quiz.board.weekly_post(channel.id).message.fields)
    assert "Misconception of the week" not in fields
    assert ("Hardest question of the week" in fields) == (len(answers) >= 3)


def test_an_open_round_is_not_spoiled_by_the_weekly_post(quiz, channel):
    rnd = posted(quiz, channel).round
    for name in ("a", "b", "c"):
        _answer(quiz, rnd, name, "A")
    assert quiz.board.weekly_post(channel.id).message.fields == ()


def test_a_round_everyone_solved_is_not_the_hardest(quiz, channel, clock):
    _week(quiz, channel, clock, [("t.choice-view", [("a", "B"), ("b", "B"), ("c", "B")])])
    assert quiz.board.weekly_post(channel.id).message.fields == ()

