"""Sign-in throttling: exponential back-off per account and per client address.

State lives in the operational database (`login_throttle`), so it holds across worker processes
and restarts. An attempt is counted *before* the password is checked, in its own committed
transaction: concurrent guesses each see the others, and a blocked key costs no password hash.
A successful sign-in forgets the account's failures and takes back the attempt from the address.
Keys are keyed digests (HMAC-SHA256 with the installation secret): no emails or addresses stored.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.core.errors import RateLimited
from api.core.settings import Settings
from api.platform.auth.models import LoginThrottle

_MAX_EXPONENT = 30  # 2^30 s is far beyond any cap; keeps the arithmetic small


@dataclass(frozen=True)
class Policy:
    free: int
    base_seconds: int
    max_seconds: int
    window_seconds: int

    def block_for(self, failures: int) -> int | None:
        over = failures - self.free
        if over <= 0:
            return None
        doubling: int = 2 ** min(over - 1, _MAX_EXPONENT)  # a non-negative exponent: an int
        return min(self.base_seconds * doubling, self.max_seconds)


def policies(settings: Settings) -> tuple[Policy, Policy]:
    """(per account, per client address)."""
    common = (settings.login_backoff_base_seconds, settings.login_backoff_max_seconds)
    window = settings.login_failure_window_seconds
    return (
        Policy(settings.login_free_failures_per_account, *common, window),
        Policy(settings.login_free_failures_per_address, *common, window),
    )


def key_for(secret: bytes, kind: str, value: str) -> str:
    return f"{kind}:" + hmac.new(secret, value.encode(), hashlib.sha256).hexdigest()


def _locked_row(db: Session, key: str) -> LoginThrottle:
    row = db.get(LoginThrottle, key, with_for_update=True)
    if row is None:
        try:
            with db.begin_nested():
                db.add(LoginThrottle(key=key, failures=0))
        except IntegrityError:
            pass  # a concurrent first attempt created it; lock that one
        row = db.get(LoginThrottle, key, with_for_update=True, populate_existing=True)
    assert row is not None
    return row


def count_attempt(db: Session, key: str, policy: Policy, now: datetime) -> None:
    """Count one attempt for `key`, or raise RateLimited (with the seconds to wait) while it is blocked."""
    row = _locked_row(db, key)
    if row.blocked_until is not None and row.blocked_until > now:
        wait = math.ceil((row.blocked_until - now).total_seconds())
        raise RateLimited(f"Too many failed sign-in attempts; try again in {wait} seconds", retry_after=max(wait, 1))
    if row.last_failure_at is not None and now - row.last_failure_at > timedelta(seconds=policy.window_seconds):
        row.failures = 0
    row.failures += 1
    row.last_failure_at = now
    block = policy.block_for(row.failures)
    row.blocked_until = now + timedelta(seconds=block) if block else None


def forget(db: Session, key: str) -> None:
    """The account signed in: its failures no longer count."""
    row = db.get(LoginThrottle, key, with_for_update=True)
    if row is not None:
        db.delete(row)


def take_back(db: Session, key: str, policy: Policy) -> None:
    """A successful attempt from an address was counted in advance: remove it (other failures stay)."""
    row = db.get(LoginThrottle, key, with_for_update=True)
    if row is not None:
        row.failures = max(row.failures - 1, 0)
        if policy.block_for(row.failures) is None:
            row.blocked_until = None
