"""Inputs and outputs of revenueReconciliation.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.marts.inputs import DateRange, MartPageInput, PayerKey
from api.marts.serving import MartPage, Money
from api.rpc.schema import Output, Schema

MatchStatus = Literal["balanced", "explained_by_plb", "unexplained"]
Resolution = Literal["plb_posted", "recoupment_accepted", "payer_error", "bank_adjustment", "other"]


class DepositMatchesIn(DateRange, MartPageInput):
    payer: PayerKey | None = None
    status: MatchStatus | None = None


class DepositMatch(Output):
    remittance_key: str
    payer_key: str
    payment_date: date | None
    trace_number: str | None
    payment_method: str | None
    payment_amount: Money = Field(description="ERA payment (BPR02): what the bank deposit should show")
    posted_amount: Money = Field(description="Claim payments (CLP04) posted to claims")
    provider_adjustments: Money = Field(description="PLB withholdings (positive reduce the payment)")
    variance_amount: Money = Field(description="payment_amount - posted_amount")
    status: str = Field(description="balanced | explained_by_plb | unexplained")
    resolution: str | None = None
    resolved_at: datetime | None = None


class DepositMatchesOut(MartPage[DepositMatch]):
    total_variance: Money


class VariancesIn(DateRange, MartPageInput):
    payer: PayerKey | None = None
    include_resolved: bool = False


class ResolveVarianceIn(Schema):
    remittance_key: str = Field(min_length=1, max_length=200)
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
