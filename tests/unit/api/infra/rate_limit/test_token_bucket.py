"""The token bucket's arithmetic (api/infra/rate_limit/bucket.py): hand-worked cases, then properties.

Hand numbers: a budget of 2 calls per second with a burst of 5."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.infra.rate_limit.bucket import Bucket, Budget, full, full_at, take, tokens_at

TWO_PER_SECOND = Budget(rate=2.0, burst=5)


def test_a_new_caller_has_the_whole_burst_then_waits_for_the_rate():
    bucket = None
    for _ in range(5):
        decision = take(bucket, TWO_PER_SECOND, 100.0, 1)
        assert decision.allowed and decision.retry_after == 0
        bucket = decision.bucket
    assert bucket == Bucket(0.0, 100.0)
    sixth = take(bucket, TWO_PER_SECOND, 100.0, 1)
    # One token short at 2 per second is half a second: rounded up to 1 (Retry-After is whole seconds).
    assert not sixth.allowed and sixth.retry_after == 1
    assert sixth.bucket == Bucket(0.0, 100.0)  # a refusal spends nothing
    # Half a second later one token has come back: one call, not two.
    assert take(sixth.bucket, TWO_PER_SECOND, 100.5, 1).allowed
    assert not take(take(sixth.bucket, TWO_PER_SECOND, 100.5, 1).bucket, TWO_PER_SECOND, 100.5, 1).allowed


def test_a_batch_is_charged_every_call_and_told_the_wait_for_all_of_them():
    drained = Bucket(1.0, 50.0)  # one token left
    refused = take(drained, TWO_PER_SECOND, 50.0, 4)
    # 3 tokens short at 2 per second = 1.5 s -> 2 s.
    assert not refused.allowed and refused.retry_after == 2
    assert not take(refused.bucket, TWO_PER_SECOND, 51.0, 4).allowed  # 1 + 2 = 3 tokens after 1 s
    admitted = take(refused.bucket, TWO_PER_SECOND, 52.0, 4)  # 1 + 4 = 5 tokens after 2 s
    assert admitted.allowed and admitted.bucket == Bucket(1.0, 52.0)


def test_the_bucket_never_holds_more_than_the_burst():
    assert tokens_at(Bucket(0.0, 0.0), TWO_PER_SECOND, 3600.0) == 5.0
    assert full_at(Bucket(0.0, 10.0), TWO_PER_SECOND) == 12.5
    assert full_at(full(TWO_PER_SECOND, 7.0), TWO_PER_SECOND) == 7.0


def test_a_clock_that_goes_back_mints_nothing():
    spent = Bucket(0.0, 100.0)
    assert tokens_at(spent, TWO_PER_SECOND, 40.0) == 0.0
    refused = take(spent, TWO_PER_SECOND, 40.0, 1)
    assert not refused.allowed and refused.bucket.stamp == 100.0  # the stamp does not move back either


@pytest.mark.parametrize("cost", [0, -1, 6])
def test_a_cost_outside_one_to_the_burst_is_a_programming_error(cost):
    with pytest.raises(ValueError, match="between 1 and the burst"):
        take(None, TWO_PER_SECOND, 0.0, cost)


@pytest.mark.parametrize(("rate", "burst"), [(0.0, 5), (-1.0, 5), (float("inf"), 5), (float("nan"), 5), (1.0, 0)])
def test_a_budget_must_be_positive(rate, burst):
    with pytest.raises(ValueError):
        Budget(rate, burst)


budgets = st.builds(
    Budget,
    rate=st.floats(min_value=0.01, max_value=1_000.0, allow_nan=False, allow_infinity=False),
    burst=st.integers(min_value=1, max_value=500),
)
# Requests as (seconds since the previous one, calls), the clock starting anywhere a monotonic clock might.
requests = st.lists(
    st.tuples(st.floats(min_value=0.0, max_value=30.0, allow_nan=False), st.integers(min_value=1, max_value=500)),
    min_size=1,
    max_size=60,
)
starts = st.floats(min_value=0.0, max_value=1e6, allow_nan=False)


@given(budgets, requests, starts)
def test_no_interval_admits_more_than_the_burst_plus_the_rate(budget, calls, start):
    """The defining guarantee: from any request to any later one, admitted calls <= burst + rate x elapsed."""
    bucket, now, admitted = None, start, []
    for gap, cost in calls:
        now += gap
        cost = min(cost, budget.burst)
        decision = take(bucket, budget, now, cost)
        bucket = decision.bucket
        if decision.allowed:
            admitted.append((now, cost))
    for i, (t0, _) in enumerate(admitted):
        spent = 0
        for t1, cost in admitted[i:]:
            spent += cost
            assert spent <= budget.burst + budget.rate * (t1 - t0) + 1e-6


@given(budgets, requests, starts)
def test_waiting_retry_after_admits_the_same_request(budget, calls, start):
    bucket, now = None, start
    for gap, cost in calls:
        now += gap
        cost = min(cost, budget.burst)
        decision = take(bucket, budget, now, cost)
        if not decision.allowed:
            assert decision.retry_after >= 1
            assert decision.bucket.tokens == tokens_at(bucket or full(budget, now), budget, now)  # nothing spent
            later = take(decision.bucket, budget, now + decision.retry_after, cost)
            assert later.allowed
            # ... and a whole second less would not have been enough (the wait is not padded).
            if decision.retry_after > 1:
                sooner = take(decision.bucket, budget, now + decision.retry_after - 1, cost)
                assert not sooner.allowed
        bucket = decision.bucket


@given(budgets, st.integers(min_value=1, max_value=300), starts)
def test_a_caller_keeping_to_the_rate_is_never_refused(budget, count, start):
    bucket = None
    for i in range(count):
        decision = take(bucket, budget, start + i / budget.rate, 1)
        assert decision.allowed
        bucket = decision.bucket
