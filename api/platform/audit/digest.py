"""Canonical digests and chain hashes for the audit log (pure, no I/O).

Audit rows never hold inputs or records in clear (they may carry PHI): they
hold keyed digests (HMAC-SHA256 with the installation secret kept under
DATA_DIR/keys, never in the database) of a canonical JSON form, which proves
what was done without revealing it. Without the key, someone who reads the
database cannot test guesses (a date of birth, a member id) against a digest.

Secrets are never digested at all: a `SecretStr`/`SecretBytes` field (passwords,
tokens, invite tokens) enters the canonical form as the constant "<secret>".
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

GENESIS = "0" * 64
SECRET = "<secret>"


def _default(value: Any) -> Any:
    if isinstance(value, SecretStr | SecretBytes):
        return SECRET
    if isinstance(value, BaseModel):
        return value.model_dump(mode="python")
    if isinstance(value, bytes | bytearray | memoryview):
        return "sha256:" + hashlib.sha256(bytes(value)).hexdigest()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if hasattr(value, "__dict__"):
        return {k: v for k, v in vars(value).items() if not k.startswith("_")}
    return repr(value)


def canonical_json(value: Any) -> str:
    return json.dumps(value, default=_default, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest(value: Any, key: bytes) -> str | None:
    """HMAC-SHA256 of the canonical form under the installation key (None stays None)."""
    if value is None:
        return None
    if not key:
        raise ValueError("audit digests are keyed: no key given")
    return hmac.new(key, canonical_json(value).encode(), hashlib.sha256).hexdigest()


def chain_hash(prev_hash: str, fields: dict[str, Any]) -> str:
    """Hash of one audit row: its own fields plus the previous row's hash."""
    return hashlib.sha256((prev_hash + canonical_json(fields)).encode()).hexdigest()


def chained_fields(row: Any) -> dict[str, Any]:
    """The columns covered by the chain hash (everything but id, prev_hash and hash)."""
    names = (
        "scope",
        "seq",
        "organization_id",
        "client_id",
        "actor_user_id",
        "actor_kind",
        "procedure",
        "target_type",
        "target_id",
        "input_digest",
        "before_digest",
        "after_digest",
        "created_at",
    )
    values = {name: getattr(row, name) for name in names}
    values["created_at"] = values["created_at"].isoformat(timespec="microseconds")
    return values
