"""The one way a stored claim changes state: through the lifecycle table, with a transition record."""

from __future__ import annotations

from sqlalchemy.orm import Session

from api.core.lifecycle import transition
from api.denials.claims.lifecycle import CLAIM
from api.denials.claims.models import Claim, ClaimTransition
from api.infra.db.base import utcnow


def move(db: Session, claim: Claim, target: str, user_id: int | None, reason: str | None) -> ClaimTransition:
    """Move the claim along its lifecycle (PRECONDITION_FAILED naming its state otherwise) and record
    who moved it, when and why."""
    before = claim.state
    claim.state = transition(CLAIM, before, target)
    claim.state_changed_at = utcnow()
    record = ClaimTransition(
        claim_id=claim.id, from_state=before, to_state=target, actor_user_id=user_id, reason=reason
    )
    db.add(record)
    db.flush()
    return record
