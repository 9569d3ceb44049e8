"""What arOperations reads from the operational database next to the marts: the denial cases of
the claims it shows.

A claim's *open case* is its denial case that is not closed (being worked, or decided and not yet
closed: a lost case tells the follow-up team to stop chasing). A claim can have several cases
(one per payer and denial event); the one shown is a case still being worked if there is one,
else the latest decided one, the most recently opened first.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from api.core.services import OpenCasesOfClaims
from api.money.ar_operations.schemas import FollowUpItem


def with_open_cases(db: Session, open_cases: OpenCasesOfClaims, items: list[FollowUpItem]) -> list[FollowUpItem]:
    """`items` with the id, state and owner of their claim's open case (None without one). The open case
    of a claim is the cases' rule, asked through `open_cases` (the services' `open_cases_of_claims`)."""
    found = open_cases(db, (i.claim_key for i in items))
    return [
        item.model_copy(update={"case_id": case.id, "case_state": case.state, "case_owner_user_id": case.owner_user_id})
        if (case := found.get(item.claim_key)) is not None
        else item
        for item in items
    ]
