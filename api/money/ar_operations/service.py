"""What arOperations reads from the operational database next to the marts: the denial cases of
the claims it shows.

A claim's *open case* is its denial case that is not closed (being worked, or decided and not yet
closed: a lost case tells the follow-up team to stop chasing). A claim can have several cases
(one per payer and denial event); the one shown is a case still being worked if there is one,
else the latest decided one, the most recently opened first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy.orm import Session

from api.denials.cases import service as cases

# The open case of a claim is the cases' rule (cases.service.open_cases_of_claims).
open_case_claim_keys = cases.open_case_claim_keys


@dataclass(frozen=True, slots=True)
class OpenCase:
    """What a follow-up item shows of its claim's open case."""

    id: int
    state: str
    owner_user_id: int | None


def open_cases(db: Session, claim_keys: Iterable[str]) -> dict[str, OpenCase]:
    """The open case of each of `claim_keys` that has one (the id, state and owner)."""
    found = cases.open_cases_of_claims(db, claim_keys)
    return {key: OpenCase(case.id, case.state, case.owner_user_id) for key, case in found.items()}
