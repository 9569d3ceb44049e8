"""Inputs and outputs of revenueReconciliation.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.infra.marts.inputs import DateRange, MartPageInput, PayerKey
from api.infra.marts.serving import MartPage, Money, OptionalMoney
from api.money.revenue_reconciliation.deposit_basis import Basis
from api.rpc.schema import Output, Schema

EraMatchStatus = Literal["balanced", "explained_by_plb", "unexplained"]
DepositMatchStatus = Literal["matched", "amount_mismatch", "deposit_without_era", "era_without_deposit"]
MatchStatus = EraMatchStatus | DepositMatchStatus
Resolution = Literal["plb_posted", "recoupment_accepted", "payer_error", "bank_adjustment", "other"]


class DepositMatchesIn(DateRange, MartPageInput):
    payer: PayerKey | None = None
    status: MatchStatus | None = None


class DepositMatch(Output):
    match_key: str = Field(
        description="Key to resolve this row by: the remittance key (era basis) or the "
        "bank deposit key (bank_deposits basis)"
    )
    remittance_key: str | None = Field(description="The 835 transaction; null for a deposit without an ERA")
    payer_key: str | None
    payment_date: date | None
    trace_number: str | None
    payment_method: str | None
    deposit_key: str | None = Field(default=None, description="The bank deposit row (bank_deposits basis)")
    deposit_date: date | None = None
    deposit_amount: OptionalMoney = Field(default=None, description="Amount the bank credited (bank_deposits basis)")
    payment_amount: Money = Field(description="ERA payment (BPR02): what the bank deposit should show")
    posted_amount: Money = Field(description="Claim payments (CLP04) posted to claims")
    provider_adjustments: Money = Field(description="PLB withholdings (positive reduce the payment)")
    posting_variance: Money = Field(description="payment_amount - posted_amount")
    variance_amount: Money = Field(
        description="bank_deposits basis: deposit_amount - payment_amount (a missing "
        "side counts as zero); era basis: payment_amount - posted_amount"
    )
    status: str = Field(
        description="bank_deposits basis: matched | amount_mismatch | deposit_without_era | "
        "era_without_deposit; era basis: balanced | explained_by_plb | unexplained"
    )
    resolution: str | None = None
    resolved_at: datetime | None = None


class DepositMatchesOut(MartPage[DepositMatch]):
    basis: Basis = Field(
        description="bank_deposits when the client's bank deposits are in the snapshot, "
        "else era (ERA payments stand in for the deposits)"
    )
    total_variance: Money


class VariancesIn(DateRange, MartPageInput):
    payer: PayerKey | None = None
    include_resolved: bool = False


class ResolveVarianceIn(Schema):
    match_key: str = Field(
        min_length=1,
        max_length=200,
        description="matchKey of the row (the remittance key on the ERA basis, the deposit key on the bank-deposit basis)",
    )
    resolution: Resolution
    note: str | None = Field(default=None, max_length=1000)


class ResolutionOut(Output):
    id: int
    remittance_key: str
    variance_amount: Money
    resolution: str
    note: str | None
    resolved_by: int
    created_at: datetime
