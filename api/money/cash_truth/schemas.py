"""Inputs and outputs of cashTruth.*."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import cast

from pydantic import Field

from api.infra.marts.inputs import AmountInput, DateRange, MartPageInput, MonthRange, PayerKey
from api.infra.marts.serving import MartAnswer, MartPage, Money
from api.money.revenue_reconciliation.deposit_basis import Basis
from api.rpc.schema import Output

_BASIS = Field(description="bank_deposits: cash received is the bank deposits; era: the ERA payments stand in")


# The contract publishes this default as the number 0; a Decimal default would be published as "0".
_ZERO = cast(Decimal, 0)


class CashIn(DateRange, MartPageInput):
    """Payment dates (BPR16) and payer."""

    payer: PayerKey | None = None


class CashFigures(Output):
    remittances: int
    cash_received: Money = Field(
        description="Bank deposits (bank_deposits basis) or ERA payment amounts "
        "(BPR02, era basis): the cash that arrived"
    )
    era_payments: Money = Field(description="ERA payment amounts (BPR02) of those rows")
    claim_payments: Money = Field(description="Claim payments (CLP04) in those ERAs")
    provider_adjustments: Money = Field(
        description="PLB amounts withheld (positive) or added (negative): provider-level, not in the gap"
    )
    plb_recoupments: Money = Field(
        default=_ZERO,
        description="Of the PLB: money taken back for a named claim (WO/WU, FB withholding; X12 835 TR3 PLB03), "
        "followed up as A/R",
    )
    plb_interest: Money = Field(default=_ZERO, description="Of the PLB: interest paid to the provider (L6...): income")
    contract_shortfall: Money = Field(description="Money allowed below contract on the paid lines")
    cash_expected: Money = Field(
        description="Cash had every line been allowed at contract: ERA payments + shortfall (PLB apart)"
    )
    gap: Money = Field(description="cash_expected - cash_received: the real shortfall, PLB excluded")


class CashDay(CashFigures):
    payment_date: date


class DailyOut(MartPage[CashDay]):
    basis: Basis = _BASIS


class CashPayer(CashFigures):
    payer_key: str


class ByPayerIn(DateRange):
    pass


class ByPayerOut(MartAnswer):
    basis: Basis = _BASIS
    payers: list[CashPayer]
    total: CashFigures


class GapsIn(MonthRange, MartPageInput):
    payer: PayerKey | None = None
    min_gap: AmountInput = Field(default=_ZERO, ge=0, description="Only payer-months whose gap is at least this")


class CashGap(CashFigures):
    payer_key: str
    month: str


class GapsOut(MartPage[CashGap]):
    basis: Basis = _BASIS
    total_gap: Money
    total_provider_adjustments: Money = Field(
        default=_ZERO, description="PLB money of every payer-month in the range, apart from the gap"
    )
