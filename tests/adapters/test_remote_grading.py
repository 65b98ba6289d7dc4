"""The bot grading through real executor service replicas: outages, restarts, a killed replica.

The bot is wired by build_app from settings (TORCHQUIZ_EXECUTOR_URLS and the token), exactly
as in production; the console is the adapter that took the answers and delivers the results.
"""

from __future__ import annotations

import datetime as dt
import io
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from bot.adapters.console.channel import PLATFORM, ConsoleChannel
from bot.bootstrap import App, build_app
from bot.core.kernel.i18n import t
from bot.core.kernel.models import Actor, AnswerMode, ChannelDefaults
from bot.remote_executor import RemoteExecutor
from bot.settings import Settings
from content.loader import load_bank
from tests.executors.replica_group import ReplicaGroup, gauge, runs
from tests.fakes import FakeClock

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

TOKEN = "bot-replica-token-77c1"
CHALLENGE = "code.one-hot"
ITEM = load_bank().questions[CHALLENGE]
SOLUTION = ITEM.code.solution
SLOW = "import time\ntime.sleep(2.5)\n" + SOLUTION
START = dt.datetime(2026, 3, 2, 8, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def replicas() -> Iterator[ReplicaGroup]:
    with ReplicaGroup(TOKEN, 2, max_parallel=1, max_queue=2) as group:
        yield group


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def bot(database_url: str, urls: list[str], clock: FakeClock) -> App:
    """Start the bot as its composition root would, grading on ``urls``."""
    settings = Settings(database_url=database_url, executor_urls=",".join(urls),
                        executor_token=SecretStr(TOKEN))
    app = build_app(settings, clock=clock)
    assert isinstance(app.executor, RemoteExecutor), app.executor_problem
    return app


def code_round(app: App, clock: FakeClock):
    """Open today's round on the code challenge in the console's channel."""
    rounds = app.quiz.rounds
    channel = rounds.channel(PLATFORM, "general", "local", ChannelDefaults(name="general"))
    now = clock.now()
    rnd = rounds.store.claim_round(channel.id, rounds.local_date(channel, now), CHALLENGE,
                                   ITEM.version, now, now + dt.timedelta(hours=23))
    assert rnd is not None
    return channel, rnd


def console(app: App, script: str) -> str:
    out = io.StringIO()
    ConsoleChannel(app.quiz, out, user_name="ada").run(iter(script.splitlines(keepends=True)))
    return out.getvalue()


def test_an_answer_sent_during_an_outage_is_graded_after_a_restart_and_delivered(
        replicas, database_url):
    clock = FakeClock(START)
    down = bot(database_url, [closed_port_url()], clock)
    try:
        _, rnd = code_round(down, clock)
        sent = clock.now()
        text = console(down, f"/code\n{SOLUTION}/end\n/quit\n")
        assert t("en", "code.pending") in text
        assert down.quiz.rounds.store.answers_for(rnd.id, 1) == []
    finally:
        down.close()  # the bot stops with the answer still waiting in the database

    clock.advance(minutes=40)
    before = runs(replicas.urls[0])
    back = bot(database_url, [replicas.urls[0]], clock)
    try:
        text = console(back, "/quit\n")  # starting the console sweeps what waits
        store = back.quiz.rounds.store
        [answer] = store.answers_for(rnd.id, 1)
        pending_left = store.pending_for(rnd.id, 1)
        again = back.quiz.rounds.grade_pending(PLATFORM)
    finally:
        back.close()
    assert "[private to ada]" in text and "Correct!" in text
    assert t("en", "code.pending_result", date=rnd.local_date.isoformat()) in text
    assert answer.correct and answer.submitted_at == sent
    assert pending_left == [] and again == []
    assert runs(replicas.urls[0]) == before + 1


def test_a_replica_killed_under_a_run_costs_the_member_nothing_and_records_once(
        replicas, database_url):
    clock = FakeClock(START)
    app = bot(database_url, replicas.urls, clock)
    try:
        channel, rnd = code_round(app, clock)
        member = app.quiz.rounds.member(PLATFORM, "ada", "ada")
        outcome: dict[str, object] = {}

        def answer() -> None:
            outcome["v"] = app.quiz.rounds.submit_answer(channel.id, Actor(member), SLOW,
                                                         AnswerMode.CODE)

        worker = threading.Thread(target=answer)
        worker.start()
        deadline = time.monotonic() + 60
        busy: list[int] = []
        while not busy and time.monotonic() < deadline:
            busy = [i for i, u in enumerate(replicas.urls)
                    if gauge(u, "torchquiz_executor_runs_in_flight") == 1]
            time.sleep(0.05)
        assert busy, "the run never started on a replica"
        survivor = 1 - busy[0]
        before = runs(replicas.urls[survivor])
        replicas.procs[busy[0]].kill()
        worker.join(60)
        reply = outcome["v"]
        answers = app.quiz.rounds.store.answers_for(rnd.id, member.id)
        ran_on_survivor = runs(replicas.urls[survivor]) - before
    finally:
        app.close()
    replicas.replace(busy[0])
    assert reply.recorded and "Correct!" in reply.reply.body
    assert [(a.attempt, a.correct) for a in answers] == [(1, True)]
    assert ran_on_survivor == 1
