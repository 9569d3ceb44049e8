"""The per-caller limiter (api/infra/rate_limit/limiter.py): keyed buckets on a hand-set clock, bounded
memory under an attacker rotating keys, threads, and what it logs."""

from __future__ import annotations

import logging
import re
import threading

import pytest

from api.core.errors import RateLimited
from api.core.settings import Settings
from api.infra.rate_limit.bucket import Budget
from api.infra.rate_limit.limiter import RateLimiter


class Clock:
    """Seconds that move only when the test says so."""

    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def limiter(clock: Clock, *, rate: float = 1.0, burst: int = 3, max_keys: int = 100) -> RateLimiter:
    return RateLimiter(Budget(rate, burst), max_keys=max_keys, clock=clock)


def test_each_key_has_its_own_budget():
    clock = Clock()
    limits = limiter(clock)
    alice, bob = limits.key_of("credential", "token-a"), limits.key_of("credential", "token-b")
    assert [limits.charge(alice, 1).allowed for _ in range(4)] == [True, True, True, False]
    assert limits.charge(bob, 3).allowed
    clock.now += 1.0
    assert limits.charge(alice, 1).allowed
    assert not limits.charge(alice, 1).allowed


def test_keys_are_keyed_digests_of_kind_and_value():
    limits = limiter(Clock())
    token = "dps_live_secret_token"
    key = limits.key_of("credential", token)
    assert len(key) == 16 and token.encode() not in key
    assert limits.key_of("credential", token) == key
    assert limits.key_of("address", token) != key  # a token and an address spelled alike are two callers
    # Another process (another secret) files the same token under another digest: nothing links them.
    assert limiter(Clock()).key_of("credential", token) != key


def test_the_refusal_says_the_budget_and_the_wait():
    clock = Clock()
    limits = limiter(clock, rate=2.0, burst=5)
    key = limits.key_of("address", "198.51.100.7")
    limits.charge(key, 5)
    decision = limits.charge(key, 4)
    # 4 tokens short at 2 per second: 2 s.
    assert not decision.allowed and decision.retry_after == 2
    error = limits.refusal(decision, 4)
    assert isinstance(error, RateLimited) and error.retry_after == 2
    assert error.message == (
        "Too many calls: each caller may make 2 calls per second, in bursts of up to 5, and this request asked "
        "for 4 calls (each call of a batch counts). Wait 2 s (Retry-After) and send it again, or spread the "
        "calls out"
    )


def test_a_bucket_full_again_is_forgotten():
    clock = Clock()
    limits = limiter(clock, rate=1.0, burst=3)
    limits.charge(limits.key_of("credential", "a"), 3)  # empty: full again 3 s later
    limits.charge(limits.key_of("credential", "b"), 1)  # full again 1 s later
    assert len(limits) == 2
    clock.now += 2.0
    # "a" is the least recently used and not full yet, so the sweep stops there (b waits its turn).
    limits.charge(limits.key_of("credential", "c"), 1)
    assert len(limits) == 3
    clock.now += 1.5
    limits.charge(limits.key_of("credential", "d"), 1)  # a, b (and c) are full again
    assert len(limits) == 1


def test_an_attacker_rotating_invented_tokens_never_grows_the_table():
    """An attacker sending 250,000 requests, each with a new invented token, 10,000 a second (25 s):
    the table stays at its cap, and a throttled caller's bucket survives unless max_keys new keys arrive
    within the burst's refill time."""
    clock = Clock()
    cap = 5_000
    limits = limiter(clock, rate=20.0, burst=200, max_keys=cap)
    victim = limits.key_of("credential", "the victim's token")
    limits.charge(victim, 200)
    assert not limits.charge(victim, 1).allowed
    largest = 0
    for i in range(250_000):
        clock.now += 1 / 10_000
        limits.charge(limits.key_of("credential", f"invented-{i}"), 1)
        if i % 1_000 == 0:
            largest = max(largest, len(limits))
    assert largest <= cap and len(limits) <= cap


def test_rotation_slower_than_the_cap_cannot_reset_a_throttled_caller():
    clock = Clock()
    limits = limiter(clock, rate=1.0, burst=100, max_keys=1_000)
    victim = limits.key_of("credential", "victim")
    limits.charge(victim, 100)  # spent: full again in 100 s
    for i in range(999):  # fewer new keys than the cap: the victim's bucket is still there
        limits.charge(limits.key_of("address", f"203.0.113.{i}"), 1)
    decision = limits.charge(victim, 1)
    assert not decision.allowed and decision.retry_after == 1


def test_threads_never_spend_more_than_the_budget():
    clock = Clock()  # stopped: no refill while the threads race
    limits = limiter(clock, rate=1.0, burst=500)
    key = limits.key_of("credential", "shared")
    admitted = []
    lock = threading.Lock()

    def hammer() -> None:
        mine = sum(limits.charge(key, 1).allowed for _ in range(200))
        with lock:
            admitted.append(mine)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(admitted) == 500  # 1,600 tries, exactly the burst admitted


def test_a_refusal_is_logged_once_per_episode_as_a_digest(caplog):
    clock = Clock()
    limits = limiter(clock, rate=1.0, burst=2)
    token = "dps_secret_never_logged"
    key = limits.key_of("credential", token)
    with caplog.at_level(logging.WARNING, logger="api.rate_limit"):
        for _ in range(10):
            limits.charge(key, 1)
        clock.now += 5.0
        limits.charge(key, 2)  # admitted: the episode ends
        limits.charge(key, 1)  # refused: a new one
    refusals = [r.getMessage() for r in caplog.records]
    assert refusals == [f"rate limit: caller {key.hex()[:12]} over budget, retry after 1s"] * 2
    assert all(token not in message for message in refusals)


def test_the_settings_refuse_a_burst_smaller_than_a_batch():
    with pytest.raises(
        ValueError, match=re.escape("RPC_RATE_LIMIT_BURST (19) must be at least RPC_MAX_BATCH_CALLS (20)")
    ):
        Settings(rpc_rate_limit_burst=19)
    assert Settings(rpc_rate_limit_burst=20).rpc_rate_limit_burst == 20
