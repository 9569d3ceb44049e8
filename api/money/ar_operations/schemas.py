"""Inputs and outputs of arOperations.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.infra.marts.inputs import MartPageInput, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money
from api.rpc.schema import Output, Schema

Bucket = Literal["0-30", "31-60", "61-90", "91-120", "120+"]
BUCKETS: tuple[str, ...] = ("0-30", "31-60", "61-90", "91-120", "120+")


class AgingIn(Schema):
    as_of: date | None = Field(default=None, description="Age the A/R at this date (default: the snapshot build date)")
    payer: PayerKey | None = None


class AgingBucket(Output):
    bucket: str
    claims: int
    open_amount: Money
    claims_with_open_case: int = Field(
        default=0, description="Claims of the bucket that have a denial case not closed (worked or decided)"
    )


class AgingOut(MartAnswer):
    as_of: date
    open_claims: int
    open_amount: Money
    open_claims_with_case: int = Field(
        default=0, description="Open claims that have a denial case not closed (worked or decided)"
    )
    buckets: list[AgingBucket]


class FollowUpQueueIn(MartPageInput):
    as_of: date | None = None
    payer: PayerKey | None = None
    bucket: Bucket | None = None
    assigned: bool | None = Field(default=None, description="true: only assigned, false: only unassigned")


class FollowUpItem(Output):
    claim_key: str
    payer_key: str | None
    reason: str = Field(
        description="awaiting_remittance | denied | partially_denied | recouped (a PLB took the claim's money back)"
    )
    statement_to: date | None
    age_days: int
    bucket: str
    open_amount: Money
    denial_category: str | None
    assignee_user_id: int | None = None
    due_date: date | None = None
    case_id: int | None = Field(
        default=None,
        description="The claim's open denial case (not closed): one still worked if any, else the latest decided",
    )
    case_state: str | None = Field(default=None, description="That case's state (cases lifecycle)")
    case_owner_user_id: int | None = Field(default=None, description="That case's owner; null when unassigned")


class FollowUpQueueOut(MartPage[FollowUpItem]):
    as_of: date


class AssignFollowUpIn(Schema):
    claim_key: str = Field(min_length=1, max_length=80)
    assignee_user_id: int = Field(ge=1)
    due_date: date | None = None
    note: str | None = Field(default=None, max_length=1000)


class AssignmentOut(Output):
    id: int
    claim_key: str
    assignee_user_id: int
    due_date: date | None
    note: str | None
    assigned_by: int
    created_at: datetime
    reassigned: bool = False
