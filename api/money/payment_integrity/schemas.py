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
    allowed_amount: Money
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


class ExpectedLine(Output):
    line_index: int
    procedure_code: str | None
    units: float | None
    charge_amount: Money
    expected_allowed_amount: OptionalMoney
    allowed_amount: Money
    paid_amount: Money
    patient_responsibility: Money
    variance_amount: OptionalMoney


class ExpectedClaim(Output):
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
    lines: list[ExpectedLine]
