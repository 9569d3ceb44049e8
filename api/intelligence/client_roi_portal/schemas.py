"""Inputs and outputs of clientRoiPortal.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import MartAnswer, Money
from api.intelligence.roi_scorecard.schemas import RoiFigures
from api.rpc.schema import Output


class PortalIn(MonthRange):
    pass


class PortalSummaryOut(MartAnswer):
    from_month: str | None
    to_month: str | None
    roi: RoiFigures
    claims_adjudicated: int
    billed_amount: Money
    paid_amount: Money
    initial_denial_rate: float
    initially_denied_claims: int
    overturn_rate: float
    overturned_claims: int


class ExportIn(MonthRange):
    format: Literal["csv", "rows"] = "csv"


class ExportRow(Output):
    month: str
    claims_adjudicated: int
    billed_amount: Money
    paid_amount: Money
    initially_denied_claims: int
    initial_denial_rate: float
    overturned_claims: int
    recovered_amount: Money
    cost_of_work: Money
    net_benefit: Money
    roi: float | None


class ExportOut(MartAnswer):
    format: str
    filename: str
    columns: list[str]
    csv: str | None = Field(default=None, description="The CSV text (format=csv)")
    rows: list[ExportRow] | None = Field(default=None, description="The rows (format=rows)")
