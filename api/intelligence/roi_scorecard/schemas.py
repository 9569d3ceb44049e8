"""Inputs and outputs of roiScorecard.*."""

from __future__ import annotations

from api.infra.marts.fields import MonthSpanAnswer, RoiFigures
from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import MartAnswer

__all__ = ["RoiFigures", "RoiIn", "RoiMonth", "ScorecardOut", "TrendOut"]


class RoiIn(MonthRange):
    pass


class RoiMonth(RoiFigures):
    month: str


class ScorecardOut(MonthSpanAnswer):
    totals: RoiFigures


class TrendOut(MartAnswer):
    months: list[RoiMonth]
