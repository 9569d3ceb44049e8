"""Inputs and outputs of approvedActions.*. Money is an exact decimal string out."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints

from api.denials.approvals.schemas import ApprovalOut, Decision, Reason
from api.infra.marts.serving import Money
from api.rpc.schema import DB_INT_MAX, DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE

Kind = Literal["submit_appeal_packet", "send_corrected_claim", "portal_message"]
State = Literal["pending_approval", "approved", "rejected", "expired", "void", "executed", "failed"]
Target = Literal["sandbox-clearinghouse", "sandbox-payer-portal", "sandbox-reject"]
_NUMBER = re.compile(r"-?[0-9]+")


def _ids_in_range(value: str) -> str:
    """Every number standing as a part of the reference (between ':' and '/') is a database id and is
    bounded like every other id (DbId: 1..2^63-1): "draft:18446744073709551616" or a packet id of
    2^63 would overflow in the database (a 500, issue 23), "draft:-1" or "0" names nothing. At most
    200 characters (the pattern), so this is cheap."""
    for part in re.split(r"[:/]", value):
        if _NUMBER.fullmatch(part) and not 1 <= int(part) <= DB_INT_MAX:
            raise ValueError(f"an id in a payload reference must be between 1 and {DB_INT_MAX}")
    return value


PayloadRef = Annotated[
    str,
    StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$"),
    AfterValidator(_ids_in_range),
]


class RequestActionIn(Schema):
    case_id: DbId
    kind: Kind
    payload_ref: PayloadRef = Field(
        description="What the action carries, e.g. 'draft:12' (a draft) or an appeal packet's id ('34'); it must "
        "belong to the case named by caseId, and each id in it is 1..2^63-1"
    )
    note: Annotated[str, Field(min_length=1, max_length=1000), MULTI_LINE] | None = Field(
        default=None, description="What the approvers should look at"
    )


class DecideActionIn(Schema):
    id: DbId
    decision: Decision
    reason: Reason = Field(description="Required on every decision, approve or reject")


class ExecuteIn(Schema):
    id: DbId
    target: Target | None = Field(
        default=None,
        description="The sandbox target (default by kind); 'sandbox-reject' answers with a rejection",
    )


class ActionRef(Schema):
    id: DbId


class ListActionsIn(PageInput):
    case_id: DbId | None = None
    kind: Kind | None = None
    state: State | None = Field(default=None, description="The stored state (written back by mutations)")


class ExecutionOut(Output):
    id: int
    target: str
    request: dict[str, Any] = Field(description="What the target was given: ids and the payload digest, never content")
    response: dict[str, Any]
    outcome: str
    tracking_number: str | None
    executed_by_user_id: int
    created_at: datetime


class ActionSummaryOut(Output):
    id: int
    case_id: int
    kind: str
    payload_ref: str
    payload_digest: str = Field(description="SHA-256 of the payload when requested; it runs only while unchanged")
    amount: Money = Field(description="The case's amount at stake when requested (sets how many approvers)")
    approval_id: int
    state: str = Field(description="As of now: follows its approval (expiry, withdrawal) until it runs")
    state_reason: str | None
    state_changed_at: datetime
    requested_by_user_id: int
    executed_at: datetime | None
    executed_by_user_id: int | None
    created_at: datetime


class ActionOut(ActionSummaryOut):
    approval: ApprovalOut
    execution: ExecutionOut | None
