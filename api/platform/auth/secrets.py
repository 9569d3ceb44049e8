"""Password hashing and opaque bearer tokens (pure, no I/O)."""

from __future__ import annotations

import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

SESSION_PREFIX = "dps_"
API_KEY_PREFIX = "dpk_"
INVITE_PREFIX = "dpi_"
SMART_TOKEN_PREFIX = "dpf_"  # SMART Backend Services access tokens (FHIR reads only)

_hasher = PasswordHasher()
# A fixed hash to verify against when the user does not exist, so a login
# attempt takes the same time whether or not the email is known.
_DUMMY_HASH = _hasher.hash("not-a-real-password")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def new_token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    # Tokens carry 256 bits of entropy, so a plain SHA-256 is a safe lookup key.
    return hashlib.sha256(token.encode()).hexdigest()
