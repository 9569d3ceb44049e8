"""Separation of duties across invitations: the one rule every two-person check calls.

A two-person rule (someone other than the requester or author decides) is void if the "other person"
is an account the requester made: whoever can invite can invite an address they read and accept it
themselves. So a decider invited to the organization by the requester (or an author) of what is being
decided, within the window (`SOD_INVITED_WINDOW_DAYS`, default 90), counts as conflicted, and the
refusal says so.

Callers (each right after its own "not the requester/author" check): approvals.decide (drafts and
approved actions), claims submission-preparation approval and partner-profile review,
knowledgeControl.approve, integrationControl.approve, hospitalOnboarding.decide.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import Forbidden
from api.infra.db.base import utcnow
from api.platform.auth.models import Invitation


def invited_by_any(
    db: Session,
    decider_user_id: int,
    requester_ids: Iterable[int | None],
    *,
    window_days: int,
    now: datetime | None = None,
) -> datetime | None:
    """When the latest invitation of `decider_user_id` made by one of `requester_ids` within the window was
    made (None: no such invitation). The session's tenant filter keeps it to the current organization."""
    requesters = {r for r in requester_ids if r is not None and r != decider_user_id}
    if window_days <= 0 or not requesters:
        return None
    since = (now or utcnow()) - timedelta(days=window_days)
    return db.scalar(
        select(Invitation.created_at)
        .where(
            Invitation.user_id == decider_user_id,
            Invitation.invited_by_user_id.in_(requesters),
            Invitation.created_at >= since,
        )
        .order_by(Invitation.created_at.desc())
        .limit(1)
    )


def require_independent(
    db: Session,
    decider_user_id: int,
    requester_ids: Iterable[int | None],
    *,
    window_days: int,
    requester: str = "the requester",
    now: datetime | None = None,
) -> None:
    """FORBIDDEN when the decider was invited by one of `requester_ids` (named `requester` in the message)
    within the window: a two-person rule needs someone independent."""
    invited_at = invited_by_any(db, decider_user_id, requester_ids, window_days=window_days, now=now)
    if invited_at is not None:
        raise Forbidden(
            f"Separation of duties: you were invited by {requester} on {invited_at:%Y-%m-%d}; a two-person rule "
            f"needs someone independent (an invitation by the requester counts for {window_days} days)"
        )
