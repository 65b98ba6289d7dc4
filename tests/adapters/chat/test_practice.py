"""Practice end to end, on Discord and on Slack: an open round held back, the open question
shown again as it was, and the Skip button."""

from __future__ import annotations

SHAPE = "Shape of torch.zeros"  # the prompt of t.text-shape


def test_practice_holds_back_the_open_rounds_question_until_the_round_closes(chat):
    async def scenario(d):
        post = await d.todays_post("t.text-shape")
        form = await d.open_form(post)
        wrong = await d.submit(form, "(9, 9)")
        assert "tries left" in wrong.text  # alice can still score on today's question
        d.clock.advance(minutes=10)  # the review her miss made is due
        question = await d.command("quiz", topic="tensors")
        assert question.private and SHAPE not in question.text
        skipped = await d.click(question, question.button("tq:pskip:"))
        assert "Skipped" in skipped.text and SHAPE not in skipped.text
        d.clock.advance(hours=24)
        await d.close_due()
        review = await d.click(skipped, skipped.button("tq:pskip:"))
        assert SHAPE in review.text and "Review · due since" in review.text

    chat.run(scenario)


def test_quiz_again_shows_the_open_question_and_skip_serves_the_next(chat):
    async def scenario(d):
        await d.enable_channel()
        question = await d.command("quiz", topic="autograd")
        again = await d.command("quiz")
        assert "Still open" in again.text and again.buttons == question.buttons
        assert again.text.split("Still open", 1)[1].split("\n", 1)[1] in question.text
        skipped = await d.click(again, again.button("tq:pskip:"))
        assert skipped.private and "Skipped: it counts as a miss" in skipped.text
        assert "Answer:" in skipped.text and "Practice" in skipped.text
        assert skipped.button("tq:pskip:") != question.button("tq:pskip:")  # the next one
        stale = await d.click(question, question.button("tq:pskip:"))
        assert "no practice question open" in stale.text  # skipping twice skips one question

    chat.run(scenario)
