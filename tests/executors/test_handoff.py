"""A run is never handed to a pre-forked child that died while it waited.

The red-team suite once got ``signal=9`` and a negative duration for a run that never started:
the loop had given it to an idle child whose exit it had already seen. These tests drive the
loop's scheduling with real sockets and no sandbox (nothing runs user code).
"""

from __future__ import annotations

import collections
import socket
import time
from types import SimpleNamespace

import pytest

from executors.isolation.limits import Limits
from executors.zygote.children import Child, Pending
from executors.zygote.eventloop import MAX_FAILED_HANDOFFS, Server

PROFILE = (Limits(), "cpu")


def idle_child(tag: str, sockets: list[socket.socket]) -> Child:
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sockets += [mine, theirs]
    kid = Child(tag, PROFILE, None, {}, -1, mine, time.monotonic())
    kid.peer = theirs  # type: ignore[attr-defined]  # the child's end, for the test to close
    return kid


@pytest.fixture
def loop():
    server = Server.__new__(Server)
    server.pending = collections.deque()
    server.children = {}
    server.max_parallel = 1
    server.gpu_profile = None
    server.last_profile = None
    server.config = SimpleNamespace(use_namespaces=True)
    sockets: list[socket.socket] = []
    server.new_child = lambda tag: idle_child(tag, sockets)  # type: ignore[attr-defined]
    # A fork here is a fresh idle child with a live socket: no template, no sandbox.
    server._fork = lambda profile: add(server, server.new_child(f"fork{len(server.children)}"))
    yield server
    for sock in sockets:
        sock.close()


def add(server: Server, kid: Child) -> Child:
    server.children[kid.tag] = kid
    return kid


def received(kid: Child) -> bool:
    kid.peer.setblocking(False)  # type: ignore[attr-defined]
    try:
        msg, fds, _, _ = socket.recv_fds(kid.peer, 16, 1)  # type: ignore[attr-defined]
    except BlockingIOError:
        return False
    return msg == b"run" and len(fds) == 1


def test_a_child_whose_exit_was_seen_gets_no_run(loop):
    dead = add(loop, loop.new_child("dead"))
    dead.exited_at = time.monotonic()  # its pidfd said so; status and pipes still to come
    alive = add(loop, loop.new_child("alive"))
    loop.pending.append(Pending(1, PROFILE, b"{}"))
    loop._schedule()
    assert alive.req_id == 1 and received(alive)
    assert dead.req_id is None and not received(dead)


@pytest.mark.parametrize("state", ["killed", "discarded", "setup_error"])
def test_a_child_that_cannot_run_is_passed_over(loop, state):
    unfit = add(loop, loop.new_child("unfit"))
    setattr(unfit, state, "boom" if state == "setup_error" else True)
    alive = add(loop, loop.new_child("alive"))
    loop.pending.append(Pending(1, PROFILE, b"{}"))
    loop._schedule()
    assert alive.req_id == 1 and unfit.req_id is None


def test_a_child_gone_before_the_hand_off_passes_the_run_on(loop):
    gone = add(loop, loop.new_child("gone"))
    gone.peer.close()  # type: ignore[attr-defined]  # died; the loop has not heard yet
    alive = add(loop, loop.new_child("alive"))
    loop.pending.append(Pending(1, PROFILE, b"{}"))
    loop._schedule()
    assert gone.req_id is None and gone.killed  # it never had the run: no verdict from it
    assert alive.req_id == 1 and received(alive)
    assert not loop.pending


def test_a_run_that_no_child_takes_fails_after_a_few_tries(loop):
    job = Pending(1, PROFILE, b"{}")
    job.handoffs_failed = MAX_FAILED_HANDOFFS
    gone = add(loop, loop.new_child("gone"))
    gone.peer.close()  # type: ignore[attr-defined]
    loop.pending.append(job)
    loop._schedule()
    assert gone.req_id == 1 and gone.killed  # answered as before: a killed run
    assert not loop.pending
