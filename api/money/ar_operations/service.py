"""What arOperations reads from the operational database next to the marts: the denial cases of
the claims it shows.

A claim's *open case* is its denial case that is not closed (being worked, or decided and not yet
closed: a lost case tells the follow-up team to stop chasing). A claim can have several cases
(one per payer and denial event); the one shown is a case still being worked if there is one,
else the latest decided one, the most recently opened first.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.denials.cases.lifecycle import WORKING_STATES
from api.denials.cases.models import DenialCase
from api.money.ar_operations.schemas import FollowUpItem


def open_cases(db: Session, claim_keys: Iterable[str]) -> dict[str, DenialCase]:
    """The open case of each of `claim_keys` that has one (one query, tenant-scoped by the session)."""
    keys = sorted(set(claim_keys))
    if not keys:
        return {}
    found = db.scalars(
        select(DenialCase).where(DenialCase.claim_key.in_(keys), DenialCase.state != "closed").order_by(DenialCase.id)
    )
    chosen: dict[str, DenialCase] = {}
    for case in found:
        # ascending ids: a later case replaces an earlier one unless it would swap a worked case for a decided one
        current = chosen.get(case.claim_key)
        if current is None or case.state in WORKING_STATES or current.state not in WORKING_STATES:
            chosen[case.claim_key] = case
    return chosen


def open_case_claim_keys(db: Session) -> list[str]:
    """The claim keys of the tenant's open cases (for counting claims in work in the aging)."""
    return sorted(set(db.scalars(select(DenialCase.claim_key).where(DenialCase.state != "closed"))))


def with_open_cases(db: Session, items: list[FollowUpItem]) -> list[FollowUpItem]:
    """`items` with the id, state and owner of their claim's open case (None without one)."""
    cases = open_cases(db, (i.claim_key for i in items))
    return [
        item.model_copy(update={"case_id": case.id, "case_state": case.state, "case_owner_user_id": case.owner_user_id})
        if (case := cases.get(item.claim_key)) is not None
        else item
        for item in items
    ]
