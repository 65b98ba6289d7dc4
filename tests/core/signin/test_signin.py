"""One-time sign-in links: bound, signed, rate-limited; the secret kept in the database."""

from __future__ import annotations

from bot.core.desk import Desk
from bot.core.kernel.models import WebGrant
from bot.core.signin import LINKS_PER_WINDOW, SignInService
from tests.adapters.web.support import who

GRANT = WebGrant(platform="slack", workspace="W1", user="U1", display_name="Ada",
                 channel="C1", locale="en", is_admin=True)


def _token(url: str) -> str:
    return url.rsplit("/login/", 1)[1]


def test_a_link_starts_with_the_configured_base_url(store, clock):
    url = SignInService(store, clock, "https://quiz.example/").link(GRANT)
    assert url is not None and url.startswith("https://quiz.example/login/")


def test_a_link_opens_a_session_bound_to_its_member_and_right(store, clock):
    service = SignInService(store, clock)
    redeemed = service.redeem(_token(service.link(GRANT)))
    assert redeemed is not None
    cookie, session = redeemed
    assert session.grant == GRANT
    assert service.session(cookie) == session


def test_a_link_is_used_once(store, clock):
    service = SignInService(store, clock)
    token = _token(service.link(GRANT))
    assert service.redeem(token) is not None
    assert service.redeem(token) is None and service.pending(token) is None


def test_the_secret_is_generated_once_and_kept_for_every_process(store, clock):
    # The console and `torchquiz web` share the database, not a setting.
    token = _token(SignInService(store, clock).link(GRANT))
    assert SignInService(store, clock).pending(token) == GRANT


def test_a_link_signed_with_another_secret_is_refused(store, clock):
    token = _token(SignInService(store, clock, secret="one").link(GRANT))
    assert SignInService(store, clock, secret="two").redeem(token) is None


def test_a_member_gets_at_most_five_links_in_ten_minutes(quiz, channel, clock):
    desk = Desk(quiz)
    bodies = [desk.command(who(), "web").message.body for _ in range(LINKS_PER_WINDOW + 1)]
    assert all("/login/" in b for b in bodies[:-1])
    assert "/login/" not in bodies[-1] and "wait" in bodies[-1]
    clock.advance(minutes=10, seconds=1)
    assert "/login/" in desk.command(who(), "web").message.body


def test_a_session_cookie_that_is_not_signed_opens_nothing(store, clock):
    service = SignInService(store, clock)
    cookie, _ = service.redeem(_token(service.link(GRANT)))
    token, _, _signature = cookie.partition(".")
    assert service.session(f"{token}.{'0' * 32}") is None
    assert service.session("garbage") is None and service.session("") is None


def test_the_link_reply_is_in_chinese_for_a_chinese_member(quiz):
    body = Desk(quiz).command(who(locale="zh-CN"), "web").message.body
    assert "登录" in body and "/login/" in body
