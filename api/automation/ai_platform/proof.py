"""The keyed digest that proves what an AI execution was decided on (pure, no I/O).

The payload is the execution's policy version and parameters, its inputs' digests, the output's
digest, the confidence, the decision context (enablement, pauses, evaluation record, amount), the
decision and its reasons. It is serialised canonically (sorted keys, no spaces, decimals as strings) and
keyed with HMAC-SHA256 under the installation's audit digest key (`Services.digest_key`), so nobody
without the key can forge a proof, and any change to a stored field changes the digest.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from decimal import Decimal
from typing import Any

ALGORITHM = "HMAC-SHA256"


def _default(value: Any) -> str:
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    raise TypeError(f"not serialisable: {type(value).__name__}")


def canonical(value: Any) -> bytes:
    """Deterministic JSON bytes: sorted keys, compact, decimals with two places."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_default, ensure_ascii=True).encode()


def sha256_of(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def keyed_digest(key: bytes, payload: dict[str, Any]) -> str:
    if not key:
        raise ValueError("no digest key configured")
    return hmac.new(key, canonical(payload), hashlib.sha256).hexdigest()


def matches(key: bytes, payload: dict[str, Any], stored: str) -> bool:
    return hmac.compare_digest(keyed_digest(key, payload), stored)
