"""The per-topic board over the library: its stored totals equal the recount, packs removed.

Members answer rounds of a team pack's questions and of the shipped bank's through the core
(retries, a forgotten member); then the pack is removed. The board (BoardService.topic_board)
must show what the former recount of every answer shows, before and after, on every topic.
"""

from __future__ import annotations

from bot.core.kernel.models import Actor, AnswerMode, ChannelDefaults, ChannelUpdate
from bot.core.packs.library import Library
from bot.core.quiz import build_quiz
from bot.pack_source import StoredPackSource
from content.packs import parse_pack
from db.store_packs import PackStore
from tests.packs.scoped import pack_yaml
from tests.support.core import RecordingExecutor


def _add(engine, pack_id: str, scope: str, **options) -> None:
    parsed = parse_pack(pack_yaml(pack_id, **options))
    assert parsed.pack is not None and not parsed.problems, parsed.problems
    pack = parsed.pack
    PackStore(engine).add(pack.id, pack.header.version, scope, pack.header.title,
                          tuple(pack.header.locales), pack.text, pack.document)


def _same_as_the_recount(quiz, library, store, channel) -> int:
    """Assert the board equals the recount on every topic; return the rows compared."""
    compared = 0
    for topic in sorted({t for topics in library.topics_of().values() for t in topics}):
        items = [i for i, topics in library.topics_of().items() if topic in topics]
        view = quiz.board.topic_board(channel, topic, 500)
        scores, hidden = store.topic_scores_recount(channel.id, items)
        assert [(r.user_id, r.points, r.solved) for r in view.rows] == [
            (s.user_id, s.points, s.solved) for s in sorted(
                scores, key=lambda s: (-s.points, -s.solved, s.last_solved_at, s.display_name,
                                       s.user_id))], topic
        assert view.hidden == hidden and view.attempted == {s.user_id: s.attempted
                                                             for s in scores}, topic
        compared += len(view.rows)
    return compared


def test_the_topic_board_equals_the_recount_through_answers_forget_me_and_a_removed_pack(
        engine, store, bank, clock):
    _add(engine, "alpha", "slack:TA", items=("one", "two", "three"))
    library = Library(bank, StoredPackSource(engine))
    quiz = build_quiz(store, library, clock, RecordingExecutor())
    channel = quiz.rounds.channel("slack", "TA-general", "TA", ChannelDefaults(name="general"))
    channel = store.update_channel(channel.id, ChannelUpdate(packs=("alpha",)))
    members = [quiz.rounds.member("slack", f"U{n}", f"m{n}") for n in range(4)]
    for day in range(6):
        posted = quiz.rounds.post_round(channel.id)
        assert posted is not None
        rnd = posted.round
        for n, member in enumerate(members):
            # Right at once, right on the retry, or wrong and done.
            for text in (("A",), ("B", "A"), ("B",))[(n + day) % 3]:
                outcome = quiz.rounds.answer(rnd, channel, Actor(member), text,
                                             AnswerMode.BUTTON)
                if not outcome.recorded:
                    break
        clock.advance(hours=24)
        quiz.rounds.close_due_rounds()
    assert _same_as_the_recount(quiz, library, store, channel) > 0
    quiz.people.forget_member("slack", "U1")
    assert _same_as_the_recount(quiz, library, store, channel) > 0
    assert PackStore(engine).remove("alpha", "slack:TA")
    library.refresh()
    # The removed pack's questions still resolve (history): its topic still counts.
    assert "p.alpha.one" in library.topics_of()
    assert _same_as_the_recount(quiz, library, store, channel) > 0
