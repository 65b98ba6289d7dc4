"""Token buckets: a member's rate, refilled over time, in bounded memory."""

from bot.adapters.chat.limits import TokenBuckets


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_bucket_grants_its_capacity_then_says_how_long_to_wait():
    clock = Clock()
    buckets = TokenBuckets(3, 60.0, clock=clock)
    assert [buckets.take("alice") for _ in range(3)] == [0, 0, 0]
    assert buckets.take("alice") == 20  # one token every 20 s
    clock.now = 19.5
    assert buckets.take("alice") == 1
    clock.now = 20.0
    assert buckets.take("alice") == 0


def test_members_have_buckets_of_their_own():
    buckets = TokenBuckets(1, 10.0, clock=Clock())
    assert buckets.take("alice") == 0 and buckets.take("alice") > 0
    assert buckets.take("bob") == 0


def test_a_zero_capacity_means_no_limit():
    buckets = TokenBuckets(0, 10.0, clock=Clock())
    assert all(buckets.take("alice") == 0 for _ in range(1000))
    assert len(buckets) == 0


def test_buckets_are_bounded_and_forget_the_least_recently_seen_member():
    clock = Clock()
    buckets = TokenBuckets(1, 60.0, size=2, clock=clock)
    buckets.take("alice")
    buckets.take("bob")
    buckets.take("alice")  # alice seen again: bob is now the oldest
    buckets.take("carol")
    assert len(buckets) == 2
    assert buckets.take("alice") > 0  # still remembered, still empty
    assert buckets.take("bob") == 0  # forgotten: a full bucket again
