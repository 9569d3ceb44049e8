"""Inputs and outputs of payerRules.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from api.rpc.schema import Day, DbId, Output, Page, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

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


AuthPayerId = Annotated[
    str, StringConstraints(min_length=1, max_length=80, pattern=r"^(\*|[A-Za-z0-9._:-]+)$"), Field(description="or *")
]
Plan = Annotated[
    str, StringConstraints(min_length=1, max_length=80, pattern=r"^(\*|[A-Za-z0-9._: -]+)$"), Field(description="or *")
]
CodeOrRange = Annotated[
    str,
    StringConstraints(min_length=1, max_length=11, pattern=r"^[A-Za-z0-9-]+$"),
    Field(description="A CPT/HCPCS code or a range of one kind, e.g. 70551-70553"),
]
PlaceOfService = Annotated[
    str, StringConstraints(pattern=r"^(\*|[0-9]{2})$"), Field(description="2-digit CMS place-of-service code, or *")
]
RevenueCode = Annotated[str, StringConstraints(pattern=r"^(\*|[0-9]{3,4})$"), Field(description="e.g. 0450, or *")]


class AuthorizationIn(Schema):
    """A prior-authorization requirement (or, `requiresAuthorization` false, an exemption) for a scope."""

    payer_type: PayerType
    payer_id: AuthPayerId = "*"
    plan: Plan = "*"
    procedure_codes: CodeOrRange
    place_of_service: PlaceOfService = "*"
    revenue_code: RevenueCode = "*"
    requires_authorization: bool = True
    effective_from: Day
    effective_to: Day | None = None
    source: Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE] = Field(
        description="The payer's list, contract clause or regulation it comes from"
    )

    @model_validator(mode="after")
    def _dates(self) -> AuthorizationIn:
        if self.effective_to is not None and self.effective_to < self.effective_from:
            raise ValueError("'effectiveTo' is before 'effectiveFrom'")
        return self


class RequirementOut(Output):
    """A prior-authorization requirement as priorAuthorization.requirements shows it."""

    id: int | None = Field(description="The client's requirement id (priorAuthorization.requirements); null: new")
    origin: str = Field(description="platform (reference list) | client")
    reference: str
    payer_type: str
    payer_id: str
    plan: str
    procedure_codes: str = Field(description="A code or a range, e.g. 70551-70553")
    place_of_service: str
    revenue_code: str
    requires_authorization: bool = Field(description="false: an exemption overriding a broader requirement")
    effective_from: date
    effective_to: date | None
    source: str
    version: int = Field(description="1 for a new requirement; each approved update of its scope and date adds one")


Period = Literal["day", "rolling_days", "months", "calendar_year", "lifetime"]


class FrequencyIn(Schema):
    """A frequency limit: at most `maxUnits` units of a code or range per period per patient, for a scope."""

    payer_type: PayerType
    payer_id: AuthPayerId = "*"
    plan: Plan = "*"
    procedure_codes: CodeOrRange
    max_units: int = Field(ge=1, le=9999, description="At most this many units per period per patient")
    period: Period = Field(
        description="day (the date of service) | rolling_days (the N days ending on the date of service) | months "
        "(N full months must pass following the month of the last service, 42 CFR 410.34's count) | calendar_year "
        "| lifetime"
    )
    period_length: int | None = Field(
        default=None, ge=1, le=3660, description="N: required for rolling_days (days) and months (full months) only"
    )
    effective_from: Day
    effective_to: Day | None = None
    source: Annotated[str, Field(min_length=3, max_length=500), SINGLE_LINE] = Field(
        description="The payer's policy, contract clause or regulation it comes from"
    )

    @model_validator(mode="after")
    def _dates(self) -> FrequencyIn:
        if self.effective_to is not None and self.effective_to < self.effective_from:
            raise ValueError("'effectiveTo' is before 'effectiveFrom'")
        return self


class FrequencyLimitOut(Output):
    """A frequency limit (the platform's or the client's)."""

    id: int | None = Field(description="The client's limit id; null for a platform default (or a new one)")
    origin: str = Field(description="platform (the reference file) | client")
    reference: str
    payer_type: str
    payer_id: str
    plan: str
    procedure_codes: str = Field(description="A code or a range, e.g. G0438-G0439")
    max_units: int
    period: str
    period_length: int | None
    terms: str = Field(description="e.g. at most 1 per 11 full months")
    effective_from: date
    effective_to: date | None = Field(
        description="Its own end, or the day before its next version (same scope, later date) starts"
    )
    source: str
    version: int = Field(description="1 for a new limit; each approved update of its scope and date adds one")


class FrequencyLimitsIn(PageInput):
    payer_type: PayerType | None = None
    payer_id: AuthPayerId | None = None
    procedure_code: (
        Annotated[str, StringConstraints(min_length=5, max_length=5, pattern=r"^[A-Za-z0-9]{5}$")] | None
    ) = Field(default=None, description="Limits whose codes include this one (a CPT/HCPCS code)")


class FrequencyLimitsOut(Page[FrequencyLimitOut]):
    defaults: list[FrequencyLimitOut] = Field(description="The platform's frequency limits matching the filters")


class ChangeOut(Output):
    id: int
    kind: str = Field(
        description="limit (an appeal or timely-filing limit) | authorization (a prior-authorization requirement) "
        "| frequency (a frequency limit)"
    )
    state: str = Field(description="proposed | approved | rejected | withdrawn")
    payload: dict[str, Any] = Field(description="The rule as proposed, checked by its kind's checker")
    proposed_by: int | None
    proposed_at: datetime
    decided_by: int | None
    decided_at: datetime | None
    reason: str | None = Field(description="Why it was approved or rejected")
    applied_rule_id: int | None = Field(
        description="The row an approval wrote: payerRules.list's id (limit), priorAuthorization.requirements' "
        "id (authorization), payerRules.frequencyLimits' id (frequency)"
    )


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


class ProposeAuthorizationOut(Output):
    requirement: RequirementOut = Field(
        description="The requirement as it will read once approved: its id is the one it would update (null: new)"
    )
    created: bool = Field(description="Approving it adds a requirement (false: updates the one of its scope and date)")
    change: ChangeOut


class ProposeFrequencyOut(Output):
    limit: FrequencyLimitOut = Field(
        description="The limit as it will read once approved: its id is the one it would update (null: new)"
    )
    created: bool = Field(description="Approving it adds a limit (false: updates the one of its scope and date)")
    change: ChangeOut


class DecideOut(Output):
    change: ChangeOut
    rule: RuleOut | None = Field(description="The limit written (an approved limit change), else null")
    requirement: RequirementOut | None = Field(
        default=None, description="The requirement written (an approved authorization change), else null"
    )
    frequency_limit: FrequencyLimitOut | None = Field(
        default=None, description="The frequency limit written (an approved frequency change), else null"
    )
    created: bool = Field(description="The approval added a rule (false: updated one, or rejected)")
    rescheduled: int = Field(
        description="Working cases whose deadlines the approved rule may change: the deadlines.reschedule job "
        "recomputes them once this call commits"
    )


class WithdrawIn(Schema):
    id: DbId


class ChangesIn(PageInput):
    state: Literal["proposed", "approved", "rejected", "withdrawn"] | None = None
    kind: Literal["limit", "authorization", "frequency"] | None = None


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
