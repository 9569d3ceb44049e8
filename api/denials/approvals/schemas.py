"""Inputs and outputs of approvals.*. Money is a Decimal with two places in, an exact decimal string out."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from api.infra.marts.serving import Money, OptionalMoney
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE

SubjectType = Literal["draft", "action"]
Decision = Literal["approve", "reject"]
State = Literal["pending", "approved", "rejected", "withdrawn", "expired", "void", "used"]
Threshold = Annotated[Decimal, Field(ge=0, le=Decimal("9999999999.99"), max_digits=12, decimal_places=2)]
Reason = Annotated[str, Field(min_length=1, max_length=1000), MULTI_LINE]


class RequestApprovalIn(Schema):
    subject_type: Literal["draft"] = Field(
        description="What to approve: a draft's current version (an action's approval is requested by approvedActions.request)"
    )
    subject_id: DbId
    note: Annotated[str, Field(min_length=1, max_length=1000), MULTI_LINE] | None = Field(
        default=None, description="What the approvers should look at"
    )


class DecideIn(Schema):
    id: DbId
    decision: Decision
    reason: Reason = Field(description="Required on every decision, approve or reject")


class WithdrawIn(Schema):
    id: DbId
    reason: Reason


class ApprovalRef(Schema):
    id: DbId


class ListApprovalsIn(PageInput):
    subject_type: SubjectType | None = None
    subject_id: DbId | None = None
    case_id: DbId | None = None
    state: State | None = Field(
        default=None, description="As of now: a pending or approved request past its expiry lists as expired"
    )


class SetPolicyIn(Schema):
    two_approvers_above: Threshold | None = Field(
        description="Above this amount two distinct approvers are needed; null: one approver always"
    )
    expires_after_hours: int = Field(
        default=72, ge=1, le=720, description="How long an approval request (and the approval) stays valid"
    )


class PolicyOut(Output):
    two_approvers_above: OptionalMoney
    expires_after_hours: int
    is_default: bool = Field(description="True while the client has not set a policy")
    updated_by_user_id: int | None
    updated_at: datetime | None


class DecisionOut(Output):
    approver_user_id: int
    decision: str
    reason: str
    created_at: datetime


class ApprovalSummaryOut(Output):
    id: int
    subject_type: str
    subject_id: int
    subject_version: int | None = Field(description="The draft version approved (null for an action)")
    subject_digest: str = Field(description="SHA-256 the approval is bound to; a different current digest voids it")
    case_id: int
    amount: Money
    required_approvals: int
    approvals_count: int
    state: str = Field(description="As of now (expiry and subject changes are applied at read)")
    valid: bool = Field(description="True only for a granted approval that has not lapsed")
    state_reason: str | None
    requested_by_user_id: int
    note: str | None
    expires_at: datetime
    decided_at: datetime | None
    closed_at: datetime | None
    created_at: datetime


class ApprovalOut(ApprovalSummaryOut):
    decisions: list[DecisionOut]
