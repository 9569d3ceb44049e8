"""Inputs and outputs of clientRoiPortal.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.infra.marts.fields import ClaimVolume, ClientResults, MonthKey, MonthSpanAnswer, RoiFigures
from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import MartAnswer, Money
from api.rpc.schema import Output


class PortalIn(MonthRange):
    pass


class PortalKpis(ClaimVolume):
    initial_denial_rate: float | None
    initially_denied_claims: int
    overturn_rate: float | None
    overturned_claims: int


class _PortalRoi(MonthSpanAnswer):
    roi: RoiFigures


# Bases in reverse wire order: snapshot, months and roi first, then the client's KPIs.
class PortalSummaryOut(PortalKpis, _PortalRoi):
    pass


class ExportIn(MonthRange):
    format: Literal["csv", "rows"] = "csv"


class ExportRow(ClientResults, MonthKey):
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


__all__ = ["ExportIn", "ExportOut", "ExportRow", "Output", "PortalIn", "PortalKpis", "PortalSummaryOut"]
