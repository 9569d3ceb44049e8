"""Inputs and outputs of payerApplicability.*."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pydantic import Field

from api.rpc.schema import Day, DbId, Output, Schema


class ForClaimIn(Schema):
    claim_id: DbId = Field(description="The claim's id (claims.get)")
    as_of: Day | None = Field(default=None, description="Default: today in the client's time zone")


class ClaimFactsOut(Output):
    """The claim facts the rules were chosen by (codes and dates, no patient data)."""

    case_id: int | None = Field(description="The working denial case whose facts were used; null: the claim's own")
    payer_id: str | None = Field(description="The payer id the rules and facts are keyed by (after the tenant's alias)")
    payer_type: str | None = Field(description="Whose limits apply; null: self-pay, none")
    payer_class: str | None
    filing_indicator: str | None = Field(description="CLP06 of the case's 835, else the 837's SBR09")
    assumed: bool = Field(description="The payer is unknown: the shortest common window is assumed")
    why: str = Field(description="Which evidence chose the payer type")
    notice_date: date | None = Field(description="The denial's remittance date (null: no denial, no appeal limit)")
    service_date: date | None = Field(description="The date of service (an institutional claim's through date)")
    soft_denial: bool


class SelectorOut(Output):
    fact: str = Field(description="filing_indicator, payer_class, payer_type, payer_id, notice_date, service_date, ...")
    value: str


class ScopeOut(Output):
    origin: str = Field(description="client (the client's own, approved rule) | platform (the reference seed)")
    breadth: str = Field(description="payer_specific (one payer id) | type_wide (every payer of the type)")
    payer_type: str
    payer_id: str = Field(description="* for every payer of the type")


class LimitOut(Output):
    level: str
    due_on: date
    basis_date: date
    days_left: int = Field(description="Days from asOf to dueOn (negative: passed)")
    days: int
    day_count: str
    roll_forward: bool
    receipt_days: int


class AuthorizationOut(Output):
    line_number: int
    procedure_code: str = Field(description="The line's CPT/HCPCS code")
    procedure_codes: str = Field(description="The requirement's code or range, e.g. 70551-70553")
    plan: str
    place_of_service: str
    revenue_code: str
    requires_authorization: bool = Field(description="false: an exemption (nothing to cover)")
    effective_to: date | None
    version: int
    assumed: bool = Field(description="The payer type is unknown: a common payer type's requirement is assumed")
    covered: bool | None = Field(description="The claim's approved authorizations cover the line; null: an exemption")
    covered_by: int | None = Field(description="The approved request covering it (priorAuthorization.get)")
    missing: str | None = Field(description="Why none covers it: none_requested, pending, denied, expired, ...")
    explanation: str | None


class EarlierOut(Output):
    service_date: date
    units: Decimal
    claim_key: str = Field(description="The claim of the earlier service (claims.list's claimKey)")


class FrequencyOut(Output):
    line_number: int
    procedure_code: str = Field(description="The line's CPT/HCPCS code")
    procedure_codes: str = Field(description="The limit's code or range, e.g. G0438-G0439")
    plan: str
    max_units: int
    period: str = Field(description="day | rolling_days | months | calendar_year | lifetime")
    period_length: int | None
    effective_to: date | None
    version: int
    assumed: bool = Field(description="The payer type is unknown: a common payer type's limit is assumed")
    window_from: date | None = Field(description="The first day an earlier service counts from; null: a lifetime")
    window_to: date
    used: Decimal = Field(description="Units of the patient's earlier services of the limit's codes in the window")
    units: Decimal = Field(description="The line's own units")
    exceeds: bool = Field(description="used + units is more than maxUnits")
    earlier: list[EarlierOut] = Field(description="The earlier services counted, in date order")


class LineOut(Output):
    line_number: int
    procedure_code: str | None
    authorization_reference: str | None = Field(
        description="The reference of the authorization requirement in `rules` that applies; null: none applies"
    )
    needs_authorization: bool
    covered: bool | None = Field(description="null: nothing to cover")
    frequency_reference: str | None = Field(
        default=None, description="The reference of the frequency limit in `rules` that applies; null: none applies"
    )
    exceeds_frequency: bool | None = Field(default=None, description="null: no frequency limit applies")


class AppliedRuleOut(Output):
    kind: str = Field(description="appeal_limit | timely_filing_limit | authorization_requirement | frequency_limit")
    scope: ScopeOut
    effective_from: date | None = Field(description="Null: a platform default, in force for every date")
    source: str = Field(description="The citation (CFR section) or the client's own source")
    reference: str
    selected_by: list[SelectorOut] = Field(description="The claim facts that selected this rule")
    why: str
    limit: LimitOut | None = Field(description="The limit's terms and due date (the limit kinds)")
    authorization: AuthorizationOut | None = Field(
        default=None, description="The line, the requirement's terms and whether the claim's authorizations cover it"
    )
    frequency: FrequencyOut | None = Field(
        default=None,
        description="The line, the limit's terms, its window, the patient's earlier services counted in it (dates, "
        "units, claims) and whether the line exceeds it",
    )


class PayerFactOut(Output):
    id: int
    kind: str
    label: str
    value: str
    source: str
    effective_from: date
    effective_to: date | None


class ForClaimOut(Output):
    claim_id: int
    as_of: date
    facts: ClaimFactsOut
    rules: list[AppliedRuleOut]
    payer_facts: list[PayerFactOut] = Field(description="The payer's facts in force on asOf (payerKnowledge)")
    lines: list[LineOut] = Field(
        description="Each claim line with the authorization requirement and the frequency limit that apply, or none"
    )
