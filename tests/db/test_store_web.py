"""The web page's sign-in store: a link is used once, even by two redeemers at once."""

import datetime as dt
from concurrent.futures import ThreadPoolExecutor

from bot.core.kernel.models import WebGrant
from tests.fakes import CLOCK_START

GRANT = WebGrant(platform="slack", workspace="W1", user="U1", display_name="Ada",
                 channel="C1", locale="en", is_admin=False)
LATER = CLOCK_START + dt.timedelta(minutes=10)


def test_of_two_redeemers_of_one_link_exactly_one_gets_a_session(store):
    store.add_web_link("h" * 64, GRANT, CLOCK_START, LATER)

    def redeem(n):
        return store.redeem_web_link("h" * 64, CLOCK_START, f"{n}" * 64, "c" * 32, LATER)

    with ThreadPoolExecutor(max_workers=4) as pool:
        sessions = list(pool.map(redeem, range(4)))
    assert sum(s is not None for s in sessions) == 1


def test_the_secret_kept_first_is_the_one_every_caller_gets(store):
    assert store.keep_web_secret("first") == "first"
    assert store.keep_web_secret("second") == "first"


def test_ending_a_members_sessions_leaves_other_members_signed_in(store):
    other = WebGrant(platform="slack", workspace="W1", user="U2", display_name="Bob")
    for n, grant in enumerate((GRANT, other)):
        store.add_web_link(f"{n}" * 64, grant, CLOCK_START, LATER)
        store.redeem_web_link(f"{n}" * 64, CLOCK_START, f"s{n}".ljust(64, "x"), "c", LATER)
    assert store.end_web_sessions("slack", "U1") == 1
    assert store.web_session("s0".ljust(64, "x"), CLOCK_START) is None
    assert store.web_session("s1".ljust(64, "x"), CLOCK_START) is not None
