"""Per-caller rate limits of the RPC API: one token bucket (`bucket.py`) per caller, in this process.

Who a caller is: the credential it presents (a session token, an API key, a SMART access token), else
its client address. Keys are kept and logged only as keyed BLAKE2b digests (16 bytes) under a secret
drawn when the limiter is made: a token is a secret and an address is personal data, and a digest of
an IPv4 address without a key could be reversed by trying all 2^32. The secret never leaves the
process, so nothing logged can be linked across restarts.

Cost per request: O(1) amortised. One dict lookup under a lock, the bucket arithmetic, and the
eviction of buckets that are full again (a full bucket is the same as none, so forgetting it changes
no decision), oldest use first. Memory is bounded: at most `max_keys` buckets (about 200 bytes each,
so the default 100,000 is about 20 MB). When a new caller arrives with the table full, the bucket
used least recently is forgotten even if not full: that caller starts again with a full budget (the
limiter fails open for it rather than refusing callers it has never seen). An attacker rotating
tokens or addresses therefore never grows the table beyond `max_keys`; to reset somebody else's
throttled bucket this way it must bring `max_keys` new keys within `burst / rate` seconds (100,000
in 10 s at the defaults, i.e. 10,000 requests a second), each refused UNAUTHORIZED.

What it does not do (noted, left for a deployment that needs it):
- It is in-process. One API process (`launcher.cli serve`, `make up`) enforces exactly the budget;
  N processes behind a balancer would each grant it, N times in all. A multi-process deployment needs
  the buckets in a shared store: a row per key in PostgreSQL updated with one conditional UPDATE per
  request (the sign-in throttle's state already lives in the operational DB), or Redis with the same
  arithmetic in a Lua script (one round trip, atomic).
- A made-up token gets a bucket of its own, so rotating invented tokens is limited by the memory cap
  and by each being refused UNAUTHORIZED after one indexed lookup, not by this budget; sign-in
  guessing has its own throttle (`api/platform/auth/throttle.py`).
- Behind a reverse proxy every anonymous caller has the proxy's address unless uvicorn is told to
  trust its X-Forwarded-For (`--proxy-headers --forwarded-allow-ips`).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from api.core.errors import RateLimited
from api.infra.rate_limit.bucket import Bucket, Budget, Decision, full_at, take

log = logging.getLogger("api.rate_limit")

Clock = Callable[[], float]


class RateLimiter:
    """Token buckets keyed by caller digest; safe to share between threads."""

    def __init__(
        self, budget: Budget, *, max_keys: int, clock: Clock = time.monotonic, secret: bytes | None = None
    ) -> None:
        if max_keys < 1:
            raise ValueError("a rate limiter must keep at least one caller's bucket")
        self.budget = budget
        self.max_keys = max_keys
        self._clock = clock
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self._lock = threading.Lock()
        # digest -> bucket, least recently used first; `_throttled` the digests refused since last admitted,
        # so a refusal is logged once per episode, not once per request of a flood.
        self._buckets: OrderedDict[bytes, Bucket] = OrderedDict()
        self._throttled: set[bytes] = set()

    def key_of(self, kind: str, value: str) -> bytes:
        """The digest a caller is kept under: `kind` ("credential" or "address") and its value."""
        return hashlib.blake2b(f"{kind}\0{value}".encode(), key=self._secret, digest_size=16).digest()

    def charge(self, key: bytes, cost: int) -> Decision:
        """Admit `cost` calls for `key` now, or refuse them (nothing spent) with the seconds to wait."""
        with self._lock:
            now = self._clock()
            self._forget_full(now)
            decision = take(self._buckets.pop(key, None), self.budget, now, cost)
            self._buckets[key] = decision.bucket  # (re)inserted last: most recently used
            if len(self._buckets) > self.max_keys:
                evicted, _ = self._buckets.popitem(last=False)
                self._throttled.discard(evicted)
            first_refusal = not decision.allowed and key not in self._throttled
            if decision.allowed:
                self._throttled.discard(key)
            else:
                self._throttled.add(key)
        if first_refusal:
            log.warning("rate limit: caller %s over budget, retry after %ds", key.hex()[:12], decision.retry_after)
        return decision

    def refusal(self, decision: Decision, cost: int) -> RateLimited:
        """The error a refused request is answered with: the budget, what it asked, when to retry."""
        budget = self.budget
        calls = "1 call" if cost == 1 else f"{cost} calls (each call of a batch counts)"
        return RateLimited(
            f"Too many calls: each caller may make {budget.rate:g} calls per second, in bursts of up to "
            f"{budget.burst}, and this request asked for {calls}. Wait {decision.retry_after} s "
            "(Retry-After) and send it again, or spread the calls out",
            retry_after=decision.retry_after,
        )

    def __len__(self) -> int:
        with self._lock:
            return len(self._buckets)

    def _forget_full(self, now: float) -> None:
        """Drop buckets full again, from the least recently used, stopping at the first that is not.
        Each bucket is dropped at most once per insertion, so this is O(1) amortised per request; a full
        bucket behind a not-full one waits its turn (or the cap), which changes no decision."""
        while self._buckets:
            key, bucket = next(iter(self._buckets.items()))
            if full_at(bucket, self.budget) > now:
                return
            del self._buckets[key]
            self._throttled.discard(key)
