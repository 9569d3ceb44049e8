"""Inputs and outputs of payerRules.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from api.rpc.schema import Day, DbId, Output, Page, PageInput, Schema
from api.rpc.text import MULTI_LINE

PayerType = Literal["medicare", "medicare_advantage", "medicaid", "tricare", "commercial", "erisa"]
PayerClass = Literal["medicare", "medicaid", "commercial", "other_government", "other", "self_pay"]
Level = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[a-z_]+$", description="e.g. timely_filing")]
PayerId = Annotated[str, Field(min_length=1, max_length=80, description="The payer id (N1*PR N104 / REF*2U), or *")]
FilingIndicator = Annotated[str, Field(pattern=r"^[A-Za-z0-9]{1,2}$", description="CLP06 / SBR09, e.g. 16, CH, MB")]


class ListIn(PageInput):
    payer_type: PayerType | None = None
    payer_id: PayerId | None = None
    level: Level | None = None


class RuleOut(Output):
    id: int | None = Field(description="The client's rule id; null for a platform default")
    origin: str = Field(description="platform (the reference seed) | client (payerRules.upsert)")
    payer_type: str
    payer_id: str = Field(description="* for every payer of the type")
    level: str
    kind: str = Field(description="appeal | timely_filing")
    days: int
    day_count: str = Field(description="calendar | business")
    roll_forward: bool = Field(description="A due date on a weekend or federal holiday moves to the next business day")
    basis: str = Field(description="What the days count from, e.g. date_of_denial, date_of_service")
    receipt_days: int = Field(description="Days after the notice date it is presumed received (Medicare: 5)")
    effective_from: date
    effective_to: date | None = Field(
        default=None,
        description="payerRules.list: the day before the next version of the same payer type, payer and level "
        "starts (null: the latest version; always null elsewhere)",
    )
    is_default: bool = Field(description="A default that a contract or state program may change")
    source: str = Field(description="The citation (CFR section) or the client's own source")
    reference: str


class ListOut(Page[RuleOut]):
    defaults: list[RuleOut] = Field(description="The platform defaults (all of them, whatever the filters)")


class UpsertIn(Schema):
    payer_type: PayerType
    payer_id: PayerId = "*"
    level: Level
    days: int = Field(ge=1, le=3650)
    day_count: Literal["calendar", "business"] = "calendar"
    roll_forward: bool = False
    receipt_days: int = Field(default=0, ge=0, le=30)
    effective_from: Day = Field(description="The rule applies to deadlines whose basis date is on or after it")
    source: str = Field(min_length=1, max_length=500, description="Contract clause, state rule, payer manual")


class ChangeOut(Output):
    id: int
    kind: str = Field(description="limit (an appeal or timely-filing limit); more kinds may follow")
    state: str = Field(description="proposed | approved | rejected | withdrawn")
    payload: dict[str, Any] = Field(description="The rule as proposed, checked by its kind's checker")
    proposed_by: int | None
    proposed_at: datetime
    decided_by: int | None
    decided_at: datetime | None
    reason: str | None = Field(description="Why it was approved or rejected")
    applied_rule_id: int | None = Field(description="The rule an approval wrote (payerRules.list's id)")


class UpsertOut(Output):
    rule: RuleOut = Field(
        description="The rule as it will read once approved: its id is the rule it would update (null: a new one)"
    )
    created: bool = Field(description="Approving it adds a rule (false: it updates the rule of the same key and date)")
    rescheduled: int = Field(
        description="Always 0: a proposed rule changes no deadline until another manager approves it "
        "(payerRules.decide answers how many working cases it re-schedules)"
    )
    change: ChangeOut


class DecideIn(Schema):
    id: DbId = Field(description="The change's id (payerRules.changes)")
    decision: Literal["approve", "reject"]
    reason: Annotated[str, Field(min_length=1, max_length=1000), MULTI_LINE]


class DecideOut(Output):
    change: ChangeOut
    rule: RuleOut | None = Field(description="The rule written (approved), else null")
    created: bool = Field(description="The approval added a rule (false: updated one, or rejected)")
    rescheduled: int = Field(
        description="Working cases whose deadlines the approved rule may change: the deadlines.reschedule job "
        "recomputes them once this call commits"
    )


class WithdrawIn(Schema):
    id: DbId


class ChangesIn(PageInput):
    state: Literal["proposed", "approved", "rejected", "withdrawn"] | None = None
    kind: Literal["limit"] | None = None


class ClaimFacts(Schema):
    """A claim described by hand (no case needed)."""

    payer_class: PayerClass | None = None
    filing_indicator: FilingIndicator | None = None
    payer_id: PayerId | None = None
    notice_date: Day | None = Field(default=None, description="The remittance (notice) date")
    service_date: Day | None = Field(default=None, description="Date of service (institutional: the through date)")
    soft_denial: bool = False


class EvaluateIn(Schema):
    case_id: DbId | None = None
    claim: ClaimFacts | None = None
    as_of: Day | None = Field(default=None, description="Default: today in the client's time zone")

    @model_validator(mode="after")
    def _one_subject(self) -> EvaluateIn:
        if (self.case_id is None) == (self.claim is None):
            raise ValueError("give exactly one of caseId or claim")
        return self


class AppliedRule(Output):
    level: str
    kind: str
    due_on: date
    basis_date: date
    days_left: int
    payer_type: str
    assumed: bool
    source: str
    rule: RuleOut


class EvaluateOut(Output):
    case_id: int | None
    payer_type: str | None = Field(description="Whose limits apply; null: self-pay, no deadline")
    payer_class: str | None
    filing_indicator: str | None
    assumed: bool = Field(description="The payer is unknown: the shortest common window is assumed")
    soft_denial: bool = Field(description="Fix and resubmit: the corrected claim's timely filing, no appeal")
    why: str = Field(description="Which evidence chose the payer type")
    as_of: date
    items: list[AppliedRule]


class AliasIn(Schema):
    alias_kind: Literal["payer_id", "payer_name"]
    alias: str = Field(min_length=1, max_length=200)
    canonical_payer_key: str = Field(min_length=1, max_length=200)
    canonical_payer_id: PayerId | None = None
    payer_class: PayerClass | None = Field(default=None, description="Overrides the class the filing indicator implies")


class AliasOut(Output):
    id: int
    alias_kind: str
    alias: str
    canonical_payer_key: str
    canonical_payer_id: str | None
    payer_class: str | None
    created: bool
    rescheduled: int
