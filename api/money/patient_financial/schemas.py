"""Inputs and outputs of patientFinancial.*."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import cast

from pydantic import Field

from api.infra.marts.inputs import AmountInput, MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money, OptionalMoney
from api.rpc.schema import Output, Schema

# The contract publishes this default as the number 0; a Decimal default would be published as "0".
_ZERO = cast(Decimal, 0)


class BalancesIn(MonthRange, MartPageInput):
    """Adjudication months, payer and a minimum balance."""

    payer: PayerKey | None = None
    min_amount: AmountInput = Field(default=_ZERO, ge=0)


class PatientBalance(Output):
    claim_key: str
    payer_key: str | None
    statement_from: date | None
    statement_to: date | None
    billed_amount: Money
    paid_amount: Money
    patient_responsibility: Money = Field(description="Net patient responsibility over the remittance history")


class BalancesOut(MartPage[PatientBalance]):
    claims: int
    total_patient_responsibility: Money


class EstimateIn(Schema):
    payer: PayerKey
    procedure_code: str = Field(pattern=r"^[A-Za-z0-9]{4,5}$", description="CPT/HCPCS or revenue code")


class EstimateOut(MartAnswer):
    payer_key: str
    procedure_code: str
    observed_lines: int = Field(description="Paid lines of this payer and procedure the estimate rests on")
    contract_allowed_amount: OptionalMoney = Field(description="Contracted allowed amount (latest seen)")
    mean_allowed_amount: OptionalMoney
    mean_paid_amount: OptionalMoney
    mean_patient_responsibility: OptionalMoney = Field(description="The estimate of what the patient owes")
    median_patient_responsibility: OptionalMoney
    max_patient_responsibility: OptionalMoney


class BreakdownIn(MonthRange):
    payer: PayerKey | None = None


class ResponsibilityRow(Output):
    carc: str
    description: str | None
    adjustments: int
    claims: int
    amount: Money
    share: float = Field(description="amount / total patient responsibility")


class BreakdownOut(MartAnswer):
    total_amount: Money
    rows: list[ResponsibilityRow]
