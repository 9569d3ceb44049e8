"""The sign-in back-off schedule, against hand-written numbers."""

from __future__ import annotations

from api.platform.auth.throttle import Policy


def test_back_off_doubles_after_the_free_failures_and_is_capped():
    policy = Policy(free=5, base_seconds=2, max_seconds=900, window_seconds=3600)
    assert [policy.block_for(n) for n in range(1, 6)] == [None] * 5
    assert [policy.block_for(n) for n in (6, 7, 8, 9, 10)] == [2, 4, 8, 16, 32]
    assert policy.block_for(14) == 512
    assert policy.block_for(15) == 900  # 1024 capped
    assert policy.block_for(10_000) == 900  # no overflow, still the cap
