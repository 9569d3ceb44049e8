"""Inputs and outputs of cases.*. Money is a Decimal in, an exact decimal string on the wire.

A case's claim key (the provider's patient control number) is returned to members of the client;
note texts are returned by cases.get only, never in lists.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, PlainSerializer, field_validator

from api.rpc.schema import DbId, Output, Page, PageInput, Schema

MoneyOut = Annotated[Decimal, PlainSerializer(lambda d: f"{d:.2f}", return_type=str, when_used="json")]
#: A positive amount of money in an input: at most 14 digits before the point and 2 after.
MoneyIn = Annotated[Decimal, Field(gt=0, max_digits=16, decimal_places=2, description='Amount, e.g. "80.00"')]
CaseState = Literal[
    "open", "triaged", "in_appeal", "awaiting_payer", "won", "partially_won", "lost", "written_off", "closed"
]
Reason = Annotated[str, Field(min_length=3, max_length=1000)]
Code = Annotated[str, Field(min_length=1, max_length=10, pattern=r"^[A-Za-z0-9]+$")]


class CaseRef(Schema):
    id: DbId


class CaseOut(Output):
    """A case as the worklist shows it (no note texts)."""

    id: int
    origin: str = Field(description="remittance | manual | migration")
    event_kind: str = Field(description="denial | recoupment")
    claim_key: str = Field(description="The provider's claim number (CLP01)")
    payer: str
    payer_id: str | None
    payer_class: str | None
    source_batch_id: int | None
    payer_claim_number: str | None
    claim_status_code: str | None
    remittance_date: date | None
    service_date: date | None
    denial_category: str | None
    group_code: str | None
    carc: str | None
    rarcs: list[str]
    hard_or_soft: str | None
    preventable: str | None
    billed_amount: MoneyOut | None
    amount_at_stake: MoneyOut
    paid_before: MoneyOut
    recovered_amount: MoneyOut
    written_off_amount: MoneyOut
    state: CaseState
    state_changed_at: datetime
    owner_user_id: int | None
    escalated: bool
    on_hold: bool
    hold_reason: str | None
    appeal_due_on: date | None
    deadline_assumed: bool = Field(
        description="The payer is unknown: the deadlines assume the shortest common window (deadlines.forCase says which)"
    )
    stated_appeal_deadline: date | None = Field(description="The appeal deadline the hospital's own export stated")
    last_update_reason: str | None
    closed_at: datetime | None
    created_at: datetime


class CaseEventOut(Output):
    id: int
    kind: str
    from_state: str | None
    to_state: str | None
    reason: str | None
    actor_user_id: int | None = Field(description="None: the platform (a confirmed remittance)")
    details: dict[str, Any]
    created_at: datetime


class NoteOut(Output):
    id: int
    case_id: int
    author_user_id: int
    body: str
    created_at: datetime


class CaseDetailOut(Output):
    case: CaseOut
    events: list[CaseEventOut]
    notes: list[NoteOut]


class ListCasesIn(PageInput):
    states: list[CaseState] = Field(default_factory=list, max_length=9, description="Any of these states")
    owner: str | None = Field(
        default=None,
        max_length=20,
        pattern=r"^(me|unassigned|[1-9][0-9]{0,17})$",
        description="me | unassigned | a user id",
    )
    payer: str | None = Field(default=None, min_length=1, max_length=200, description="Payer name (case-insensitive)")
    category: str | None = Field(default=None, min_length=1, max_length=40)
    carc: Code | None = None
    min_amount: Decimal | None = Field(default=None, ge=0, max_digits=16, decimal_places=2)
    due_before: date | None = Field(default=None, description="Appeal due before this date")
    escalated: bool | None = None
    on_hold: bool | None = None


class OpenCaseIn(Schema):
    claim_key: str = Field(min_length=1, max_length=80)
    payer: str = Field(min_length=1, max_length=200)
    amount_at_stake: MoneyIn
    event_kind: Literal["denial", "recoupment"] = "denial"
    denial_category: str | None = Field(default=None, min_length=1, max_length=40)
    group_code: Literal["CO", "PR", "OA", "PI", "CR"] | None = None
    carc: Code | None = None
    rarcs: list[Code] = Field(default_factory=list, max_length=10)
    denied_on: date | None = None
    reference: str | None = Field(
        default=None, min_length=1, max_length=80, description="Payer claim number or letter reference"
    )

    @field_validator("carc")
    @classmethod
    def _upper(cls, value: str | None) -> str | None:
        return value.upper() if value else value


class OpenCaseOut(Output):
    case: CaseOut
    created: bool = Field(description="false: this denial already had its case, which is answered")


class AssignIn(Schema):
    id: DbId
    owner_user_id: DbId | None = Field(description="The new owner; null unassigns")


class TransitionIn(Schema):
    id: DbId
    to: CaseState
    reason: Reason | None = Field(default=None, description="Required to reopen a decided or closed case")


class AddNoteIn(Schema):
    id: DbId
    body: str = Field(min_length=1, max_length=10_000)


CasePage = Page[CaseOut]
