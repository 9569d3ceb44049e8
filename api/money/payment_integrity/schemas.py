"""Inputs and outputs of paymentIntegrity.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.infra.marts.inputs import AmountInput, MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money, OptionalMoney
from api.rpc.schema import Output, Schema

ProcedureCode = Field(default=None, pattern=r"^[A-Za-z0-9]{4,5}$", description="CPT/HCPCS or revenue code")


class VariancesIn(MonthRange, MartPageInput):
    """Payment months, payer and procedure filters."""

    payer: PayerKey | None = None
    procedure_code: str | None = ProcedureCode
    min_amount: AmountInput | None = Field(
        default=None, ge=0, description="Only claims whose variance is at least this"
    )


class ClaimVariance(Output):
    claim_key: str
    payer_key: str
    payment_date: date | None
    lines: int
    procedure_codes: list[str]
    expected_allowed_amount: Money
    allowed_amount: OptionalMoney
    paid_amount: Money
    variance_amount: Money = Field(
        description="Allowed minus contracted on the lines off contract (negative = underpaid)"
    )
    flagged: bool


class VariancesOut(MartPage[ClaimVariance]):
    claims: int = Field(description="Claims matching the filters (all pages)")
    total_variance: Money = Field(description="Sum of variance_amount over all pages")


class FlagVarianceIn(Schema):
    claim_key: str = Field(min_length=1, max_length=80)
    direction: Literal["underpayment", "overpayment"]
    reason: Literal["contract_rate", "fee_schedule_update", "bundling", "payer_error", "other"] = "contract_rate"
    note: str | None = Field(default=None, max_length=1000)


class VarianceFlagOut(Output):
    id: int
    claim_key: str
    direction: str
    variance_amount: Money
    reason: str
    note: str | None
    status: str
    flagged_by: int
    created_at: datetime


class ExpectedReimbursementIn(Schema):
    claim_key: str = Field(min_length=1, max_length=80)


TermMethod = Literal["fee_schedule", "percent_of_charges", "drg_case_rate", "per_diem"]
NoTermReason = Literal["reversal", "predetermination", "denied", "no_contract_for_payer", "no_term_in_effect"]

NO_TERM_EXPLANATIONS: dict[str, str] = {
    "reversal": "A reversal (CLP02=22) undoes an earlier adjudication; it is not priced",
    "predetermination": "A predetermination (CLP02=25) quotes a price; nothing was adjudicated to price",
    "denied": "Every line was denied: a denial, not an underpayment",
    "no_contract_for_payer": "This client has no contract term (uploaded or default) for this payer",
    "no_term_in_effect": "The payer has terms, but none for this claim's DRG, procedure codes or service dates",
}


class ContractTermRef(Output):
    """The contract term that set an expected amount."""

    term_id: str = Field(description="ct-<id>: a term the client uploaded; seed:<payer>:<code>: a demo default")
    method: TermMethod
    source: Literal["upload", "seed"]
    effective_from: date | None = Field(description="First day the term is in effect (null: always)")
    effective_to: date | None = Field(description="Last day the term is in effect (null: open-ended)")


class ExpectedLine(Output):
    line_index: int
    procedure_code: str | None
    modifier: str | None
    units: float | None
    charge_amount: Money
    expected_allowed_amount: OptionalMoney
    allowed_amount: OptionalMoney = Field(description="AMT*B6, else paid + patient share; null when unknown")
    allowed_source: Literal["amt_b6", "paid_plus_patient"] | None
    paid_amount: Money
    patient_responsibility: Money
    variance_amount: OptionalMoney
    term: ContractTermRef | None = Field(description="The term that priced this line (null: none, or priced per claim)")


class ClaimPricing(Output):
    """How the claim's latest adjudication was priced."""

    level: Literal["claim", "line", "none"] = Field(
        description="claim: one DRG case rate or per diem term priced the claim; line: each line its own term"
    )
    term: ContractTermRef | None = Field(description="The claim-level term (level claim)")
    drg_code: str | None = Field(description="CLP11")
    priced_on: date | None = Field(description="The date the claim-level term was chosen on")
    stay_days: int | None = Field(description="Per diem days")
    expected_allowed_amount: OptionalMoney
    no_term_reason: NoTermReason | None = Field(description="Why no term applies (level none)")
    explanation: str | None


class ExpectedClaim(Output):
    """The claim against its contract (expected_allowed_amount null when no term applies: see pricing)."""

    claim_key: str
    payer_key: str | None
    billed_amount: Money
    expected_allowed_amount: OptionalMoney
    allowed_amount: OptionalMoney
    paid_amount: Money
    patient_responsibility: Money
    variance_amount: OptionalMoney


# Bases in reverse wire order: the snapshot, then the claim, then its lines.
class ExpectedReimbursementOut(ExpectedClaim, MartAnswer):
    pricing: ClaimPricing | None = Field(description="Null only for a claim with no remittance yet")
    lines: list[ExpectedLine]
