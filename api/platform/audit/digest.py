"""Canonical digests and chain hashes for the audit log (pure, no I/O).

Audit rows never hold inputs or records in clear (they may carry PHI): they
hold SHA-256 digests of a canonical JSON form, which proves what was done
without revealing it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

from pydantic import BaseModel

GENESIS = "0" * 64


def _default(value: Any) -> Any:
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


def digest(value: Any) -> str | None:
    if value is None:
        return None
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()


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
