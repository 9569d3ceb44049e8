"""Inputs and outputs of roiScorecard.*."""

from __future__ import annotations

from pydantic import Field

from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import MartAnswer, Money
from api.rpc.schema import Output


class RoiIn(MonthRange):
    pass


class RoiFigures(Output):
    denials_worked: int
    cost_of_work: Money
    claims_recovered: int
    recovered_amount: Money
    net_benefit: Money = Field(description="recovered_amount - cost_of_work")
    roi: float | None = Field(description="(recovered - cost) / cost; null without cost")


class RoiMonth(RoiFigures):
    month: str


class ScorecardOut(MartAnswer):
    from_month: str | None
    to_month: str | None
    totals: RoiFigures


class TrendOut(MartAnswer):
    months: list[RoiMonth]
