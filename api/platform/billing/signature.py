"""The `Billing-Signature` scheme (Stripe's): pure functions, no I/O.

    Billing-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=...]

Several `v1` values and several secrets are accepted so either side can
rotate: the event is authentic when any v1 matches any secret. The timestamp
must lie within `tolerance` seconds of now, in both directions, which bounds
how long a captured request can be replayed (the event id bounds it for good).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MAX_HEADER_LENGTH = 4_096
MAX_SIGNATURES = 16


class SignatureError(ValueError):
    """Why a signature was refused; `reason` is a stable code, the message a sentence for people."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class SignatureHeader:
    timestamp: int
    signatures: tuple[str, ...]


def parse_secrets(setting: str | None) -> list[str]:
    """The comma-separated secrets of BILLING_WEBHOOK_SECRET, blanks dropped."""
    if not setting:
        return []
    return [s.strip() for s in setting.split(",") if s.strip()]


def compute_signature(secret: str, timestamp: int, body: bytes) -> str:
    """Hex HMAC-SHA256 of `"<timestamp>.<body>"` with `secret`."""
    return hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()


def sign(body: bytes, secrets: Iterable[str], timestamp: int) -> str:
    """A header value carrying one v1 per secret (what the billing provider sends)."""
    parts = [f"t={timestamp}"] + [f"v1={compute_signature(s, timestamp, body)}" for s in secrets]
    return ",".join(parts)


def parse_header(header: str | None) -> SignatureHeader:
    """Split `t=...,v1=...` into its timestamp and v1 values; unknown schemes are ignored."""
    if header is None or not header.strip():
        raise SignatureError("missing_signature", "The Billing-Signature header is missing")
    if len(header) > MAX_HEADER_LENGTH:
        raise SignatureError("malformed_signature", "The Billing-Signature header is too long")
    timestamp: int | None = None
    signatures: list[str] = []
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep:
            raise SignatureError("malformed_signature", "The Billing-Signature header is not 't=...,v1=...'")
        if key == "t":
            timestamp = _parse_timestamp(value, already_seen=timestamp is not None)
        elif key == "v1":
            signatures.append(value.strip().lower())
    if timestamp is None:
        raise SignatureError("malformed_signature", "The Billing-Signature header has no timestamp 't'")
    if not signatures:
        raise SignatureError("malformed_signature", "The Billing-Signature header has no 'v1' signature")
    if len(signatures) > MAX_SIGNATURES:
        raise SignatureError(
            "malformed_signature", f"The Billing-Signature header has more than {MAX_SIGNATURES} v1 values"
        )
    return SignatureHeader(timestamp, tuple(signatures))


def _parse_timestamp(value: str, *, already_seen: bool) -> int:
    """The one `t` of a header: unix seconds as ASCII digits, short enough to be a real time."""
    if already_seen or not value.isascii() or not value.isdigit() or len(value) > 12:
        raise SignatureError("malformed_signature", "The Billing-Signature timestamp 't' is not one unix time")
    return int(value)


def verify(header: str | None, body: bytes, secrets: Sequence[str], *, now: int, tolerance: int) -> int:
    """Check `header` against the raw `body`; return the signed timestamp or raise SignatureError."""
    if not secrets:
        raise ValueError("no webhook secret to verify with")
    parsed = parse_header(header)
    if abs(now - parsed.timestamp) > tolerance:
        raise SignatureError(
            "timestamp_out_of_tolerance",
            f"The signature timestamp is more than {tolerance} seconds from the server's clock",
        )
    expected = [compute_signature(secret, parsed.timestamp, body) for secret in secrets]
    matched = False
    # Compare every pair (no early exit) so timing says nothing about which secret matched.
    for candidate in parsed.signatures:
        for good in expected:
            matched |= hmac.compare_digest(candidate.encode(), good.encode())
    if not matched:
        raise SignatureError("signature_mismatch", "No v1 signature matches this body with any configured secret")
    return parsed.timestamp
