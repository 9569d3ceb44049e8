"""The proof of an AI execution and its verification. Read only.

The proof digest is stored by aiPlatform.execute when the execution is recorded (HMAC-SHA256 under the
installation's audit digest key over `ai_platform.service.proof_payload`); `verify` recomputes it from
what is stored now (the execution and its policy version), so any later change to either shows.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from api.automation.ai_platform import proof
from api.automation.ai_platform import service as platform


@dataclass(frozen=True)
class Proof:
    payload: dict[str, Any]
    stored_digest: str
    recomputed_digest: str

    @property
    def matches(self) -> bool:
        return hmac.compare_digest(self.stored_digest, self.recomputed_digest)


def proof_for(db: Session, execution_id: int, key: bytes) -> Proof:
    """The execution's proof payload, its stored digest and the digest recomputed now."""
    row = platform.get_execution(db, execution_id)
    payload = platform.proof_payload(row, platform.policy_by_id(db, row.policy_id))
    return Proof(payload, row.proof_digest, proof.keyed_digest(key, payload))
