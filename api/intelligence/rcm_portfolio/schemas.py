"""Inputs and outputs of rcmPortfolio.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.infra.marts.fields import ClientResults
from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import MartAnswer, Money
from api.rpc.schema import DbId, Output

PortfolioMetric = Literal[
    "initial_denial_rate",
    "first_pass_yield",
    "overturn_rate",
    "avg_days_to_pay",
    "billed_amount",
    "paid_amount",
    "recovered_amount",
    "claims_adjudicated",
]


class OverviewIn(MonthRange):
    pass


class _ClientNamed(Output):
    client_id: int
    client_name: str


# Bases in reverse wire order: the client, then its results, then its own fields.
class ClientFigures(ClientResults, _ClientNamed):
    overturn_rate: float | None
    recovered_amount: Money
    cost_of_work: Money
    roi: float | None


class OverviewOut(MartAnswer):
    clients: list[ClientFigures] = Field(description="Every client of the organization, with data or not")
    totals: ClientFigures = Field(description="The organization (clientId 0)")


class CompareIn(MonthRange):
    metric: PortfolioMetric = "initial_denial_rate"
    client_ids: list[DbId] | None = Field(default=None, max_length=50, description="Default: every client")


class ComparePoint(Output):
    month: str
    value: float | None


class ClientSeries(Output):
    client_id: int
    client_name: str
    points: list[ComparePoint]


class CompareOut(MartAnswer):
    metric: str
    clients: list[ClientSeries]
