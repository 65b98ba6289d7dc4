"""What the web page reads at the desk: scoped to the workspace, a constant number of queries."""

import datetime as dt

import pytest
from sqlalchemy import event

from bot.core.desk import Desk
from bot.core.desk.web import BOARD_PAGE_ROWS, WebDesk
from bot.core.kernel.models import WebGrant
from tests.db.builders import DAY, T0, answer, make_channel, make_member, open_round


def _selects(engine, call):
    sent = []

    def seen(_conn, _cursor, statement, *_):
        if statement.lstrip().upper().startswith("SELECT"):
            sent.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        call()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return len(sent)


def _history(store, members, rounds=4):
    channel = make_channel(store, f"C{members}")
    people = [make_member(store, f"U{members}-{n}", f"m{n}") for n in range(members)]
    for day in range(rounds):
        round_ = open_round(store, channel, DAY + dt.timedelta(days=day), item=f"i{day}")
        for n, person in enumerate(people):
            answer(store, round_, person, points=10 + n, at=T0 + dt.timedelta(days=day))
    return channel, people


def _grant(person):
    return WebGrant(platform="slack", workspace="W1", user=person.external_id,
                    display_name=person.display_name)


@pytest.mark.parametrize("page", ["board", "progress"])
def test_a_page_sends_as_many_queries_for_many_members_as_for_few(quiz, store, engine, page):
    web = WebDesk(Desk(quiz))
    counts = []
    for size in (3, 2 * BOARD_PAGE_ROWS + 5):
        channel, people = _history(store, size)
        grant = _grant(people[0])
        read = ((lambda: web.board(grant, channel.id, "all", 2)) if page == "board"  # noqa: B023
                else (lambda: web.progress(grant, channel.id)))  # noqa: B023
        counts.append(_selects(engine, read))
    assert counts[0] == counts[1] and counts[0] > 0


def test_a_board_page_holds_fifty_rows_and_marks_the_viewers(quiz, store):
    channel, people = _history(store, 2 * BOARD_PAGE_ROWS + 5)
    web = WebDesk(Desk(quiz))
    viewer = people[-1]  # the most points: first on page one
    first = web.board(_grant(viewer), channel.id, "all", 1)
    last = web.board(_grant(viewer), channel.id, "all", 3)
    # The page reads down to its own last row and one more: page 1 knows a page 2 exists.
    assert (first.pages, len(first.lines), len(last.lines)) == (2, 50, 5)
    assert last.pages == 3  # the last page: no row after it
    assert [line.row.display_name for line in first.lines if line.mine] == [viewer.display_name]
    assert not any(line.mine for line in last.lines)
    assert first.lines[0].accuracy == 100


def test_another_workspaces_channel_is_not_found_at_the_desk(quiz, store):
    channel, people = _history(store, 2)
    web = WebDesk(Desk(quiz))
    elsewhere = WebGrant(platform="slack", workspace="W2", user=people[0].external_id,
                         display_name="m0")
    assert web.board(elsewhere, channel.id, "week", 1) is None
    assert web.progress(elsewhere, channel.id) is None
    assert web.channel(elsewhere, channel.id) is None
