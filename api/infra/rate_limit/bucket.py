"""The token bucket, as pure functions: no clock, no I/O, no state but the values passed in.

A caller's budget is a steady `rate` (calls per second) plus a `burst` (calls it may make at once
after being idle). The bucket holds up to `burst` tokens, refills at `rate` tokens per second, and a
request of `cost` calls is admitted when the bucket holds `cost` tokens, which it then spends. So over
any interval of `t` seconds a caller is admitted at most `burst + rate * t` calls, and a caller that
keeps to `rate` is never refused (Turner's token bucket, as in RFC 2697's single-rate meter).

A refused request spends nothing: refusals are free for the caller to repeat, and cheap for us to
answer. `retry_after` is the whole number of seconds after which the same request is admitted if
nothing else is spent meanwhile (rounded up, at least 1: HTTP's Retry-After is in whole seconds,
RFC 9110 section 10.2.3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Float slack on the token count: a wait of exactly `retry_after` seconds must admit the request even
# when `stamp + retry_after - stamp` rounds a few ulps short (a monotonic clock at 10^6 s has ulps of
# 2e-10 s: below 1e-6 tokens for any rate up to 1,000 calls per second). Costs are whole calls, so a
# millionth of a token never admits a call that was really short of budget.
_SLACK = 1e-6


@dataclass(frozen=True, slots=True)
class Budget:
    """A steady rate in calls per second and a burst in calls (the bucket's size)."""

    rate: float
    burst: int

    def __post_init__(self) -> None:
        if not (self.rate > 0 and math.isfinite(self.rate)):
            raise ValueError("a rate limit's rate must be a positive number of calls per second")
        if self.burst < 1:
            raise ValueError("a rate limit's burst must be at least one call")


@dataclass(frozen=True, slots=True)
class Bucket:
    """Tokens held at `stamp` (seconds on the clock the caller uses)."""

    tokens: float
    stamp: float


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether the request is admitted, the bucket afterwards, and when to retry a refused one."""

    allowed: bool
    bucket: Bucket
    retry_after: int  # whole seconds; 0 when allowed


def full(budget: Budget, now: float) -> Bucket:
    """A caller's bucket before its first call (or after idling long enough: see `full_at`)."""
    return Bucket(float(budget.burst), now)


def tokens_at(bucket: Bucket, budget: Budget, now: float) -> float:
    """The bucket's tokens at `now`: refilled at the rate since its stamp, never above the burst.
    A clock that reads earlier than the stamp refills nothing (no tokens minted by going back)."""
    elapsed = max(0.0, now - bucket.stamp)
    return min(float(budget.burst), bucket.tokens + elapsed * budget.rate)


def take(bucket: Bucket | None, budget: Budget, now: float, cost: int) -> Decision:
    """Admit `cost` calls at `now` from `bucket` (None: a caller not seen, or forgotten while full).

    A cost above the burst can never be admitted; the caller (the RPC layer) keeps every request
    within it (a batch carries at most RPC_MAX_BATCH_CALLS calls, and the settings refuse a burst below
    that), so it is a programming error here."""
    if cost < 1 or cost > budget.burst:
        raise ValueError(f"a request must cost between 1 and the burst ({budget.burst}) calls, not {cost}")
    current = full(budget, now) if bucket is None else bucket
    tokens = tokens_at(current, budget, now)
    stamp = max(now, current.stamp)  # the stamp never moves back, so neither can the refill
    short = cost - tokens
    if short <= _SLACK:
        return Decision(True, Bucket(max(0.0, tokens - cost), stamp), 0)
    return Decision(False, Bucket(tokens, stamp), max(1, math.ceil(short / budget.rate)))


def full_at(bucket: Bucket, budget: Budget) -> float:
    """When the bucket is full again: from then on it is the same as no bucket, so it can be forgotten
    without changing any decision."""
    return bucket.stamp + (budget.burst - bucket.tokens) / budget.rate
