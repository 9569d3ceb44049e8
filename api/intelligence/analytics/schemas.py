"""Inputs and outputs of analytics.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.infra.marts.fields import ClaimVolume, MonthSpanAnswer
from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import MartAnswer, Money, OptionalMoney
from api.rpc.schema import Output

TrendMetric = Literal[
    "initial_denial_rate",
    "initial_denial_rate_dollars",
    "clean_claim_rate",
    "denial_write_off_pct",
    "overturn_rate",
    "avg_days_to_pay",
    "billed_amount",
    "paid_amount",
    "claims_adjudicated",
]
BreakdownDimension = Literal["category", "carc", "payer", "group_code", "hard_or_soft", "preventable", "claim_type"]


class KpisIn(MonthRange):
    """Adjudication months to cover (default: every month in the snapshot)."""


class Kpis(ClaimVolume):
    patient_responsibility: Money
    initially_denied_claims: int
    initial_denied_amount: Money
    initial_denial_rate: float = Field(description="initially_denied_claims / claims_adjudicated")
    initial_denial_rate_dollars: float = Field(description="initial_denied_amount / billed_amount")
    clean_claims: int
    clean_claim_rate: float
    denial_write_off_amount: Money
    denial_write_off_pct: float = Field(description="denial_write_off_amount / (paid + patient responsibility)")
    overturned_claims: int
    overturn_rate: float = Field(description="overturned_claims / initially_denied_claims")
    recovered_amount: Money
    avg_days_to_pay: float | None


class KpisOut(MonthSpanAnswer):
    months: int
    kpis: Kpis


class TrendIn(MonthRange):
    metric: TrendMetric = "initial_denial_rate"


class TrendPoint(Output):
    month: str
    value: float | None
    numerator: float | None = Field(default=None, description="For rates: the counted part")
    denominator: float | None = Field(default=None, description="For rates: the whole")


class TrendOut(MartAnswer):
    metric: str
    points: list[TrendPoint]


class BreakdownIn(MonthRange):
    by: BreakdownDimension = "category"
    limit: int = Field(default=50, ge=1, le=500)


class BreakdownRow(Output):
    key: str
    denied_claims: int
    denied_amount: Money
    share_of_denials: float = Field(description="denied_claims / all initially denied claims in the range")
    overturned_claims: int
    recovered_amount: OptionalMoney = None


class BreakdownOut(MartAnswer):
    by: str
    total_denied_claims: int
    total_denied_amount: Money
    rows: list[BreakdownRow]
