"""Password hashing and opaque bearer tokens (pure, no I/O)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

SESSION_PREFIX = "dps_"
API_KEY_PREFIX = "dpk_"
INVITE_PREFIX = "dpi_"
SMART_TOKEN_PREFIX = "dpf_"  # SMART Backend Services access tokens (FHIR reads only)


@dataclass(frozen=True)
class HashCost:
    """argon2id's cost parameters for new password hashes (a stored hash carries its own, so hashes
    made under another cost still verify)."""

    time_cost: int
    memory_kib: int
    parallelism: int


# argon2-cffi's default, RFC 9106's second recommended option (t=3, 64 MiB, 4 lanes).
DEFAULT_COST = HashCost(time_cost=3, memory_kib=65_536, parallelism=4)


class _Hashing:
    """The process's password hasher, configured once at start (`configure_password_hashing`)."""

    def __init__(self, cost: HashCost) -> None:
        self.cost = cost
        self.hasher = PasswordHasher(
            time_cost=cost.time_cost, memory_cost=cost.memory_kib, parallelism=cost.parallelism
        )
        self._dummy: str | None = None

    @property
    def dummy_hash(self) -> str:
        # A fixed hash, at the configured cost, to verify against when the user does not exist, so a
        # login attempt takes the same time whether or not the email is known. Made on first use, not
        # at import: a process that never signs anyone in never pays for it.
        if self._dummy is None:
            self._dummy = self.hasher.hash("not-a-real-password")
        return self._dummy


_hashing = _Hashing(DEFAULT_COST)


def configure_password_hashing(cost: HashCost) -> None:
    """Set the cost of new hashes for this process (the composition root calls it from the settings)."""
    global _hashing  # noqa: PLW0603 - one hasher per process, like the logging configuration
    if cost != _hashing.cost:
        _hashing = _Hashing(cost)


def hash_password(password: str) -> str:
    return _hashing.hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    hashing = _hashing
    try:
        return hashing.hasher.verify(password_hash or hashing.dummy_hash, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def new_token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    # Tokens carry 256 bits of entropy, so a plain SHA-256 is a safe lookup key.
    return hashlib.sha256(token.encode()).hexdigest()
