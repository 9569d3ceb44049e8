"""Inputs and outputs of revenueRecoveryDigitalTwin.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field

from api.intelligence.revenue_recovery_digital_twin.process import MAX_HORIZON_WEEKS, MAX_REPLICATIONS, MAX_STAFF
from api.rpc.schema import DbId, Output, Schema

Category = Annotated[str, Field(min_length=1, max_length=40)]
SEED_FIELD = Field(default=0, ge=0, le=2**53, description="Seed of the random streams (numpy PCG64); stored")


class BuildIn(Schema):
    as_of: date | None = Field(default=None, description="Last day of the calibration window (default: today, UTC)")
    window_weeks: int = Field(
        default=52, ge=13, le=104, description="Weeks of history to calibrate on (13..104); the last 13 are backtested"
    )
    seed: int = SEED_FIELD


class TwinRef(Schema):
    id: DbId


class RunIn(Schema):
    twin_id: DbId
    horizon_weeks: int = Field(
        default=13, ge=1, le=MAX_HORIZON_WEEKS, description=f"Weeks to run (1..{MAX_HORIZON_WEEKS})"
    )
    replications: int = Field(
        default=200, ge=1, le=MAX_REPLICATIONS, description=f"Replications (1..{MAX_REPLICATIONS})"
    )
    seed: int = SEED_FIELD
    staff_delta: int = Field(
        default=0, ge=-MAX_STAFF, le=MAX_STAFF, description="Specialists added (negative: removed)"
    )
    order: Literal["fifo", "deadline", "amount"] = Field(
        default="fifo", description="Queue order: oldest first, earliest deadline first, or largest amount first"
    )
    skip_categories: list[Category] = Field(
        default_factory=list, max_length=20, description="Categories written off on arrival instead of worked"
    )
    success_multiplier: float = Field(
        default=1.0, ge=0, le=10, description="Factor on every success probability (a new strategy), capped at 1"
    )


class EstimateOut(Output):
    """A parameter with its 95% interval, the count behind it and the estimator used."""

    value: float
    low: float
    high: float
    n: int
    estimator: str


class ArrivalOut(EstimateOut):
    payer: str
    category: str


class SuccessOut(EstimateOut):
    category: str


class CalibrationOut(Output):
    first: date
    last: date
    weeks: float
    arrivals: list[ArrivalOut] = Field(description="Cases a week per payer x category")
    success: list[SuccessOut] = Field(description="P(won or partially won) of a decided appeal per category")
    work_days: EstimateOut = Field(description="Days a specialist works one case")
    team_size: int = Field(description="Distinct owners of the cases decided in the window")
    missed_deadlines: EstimateOut = Field(description="Share of the window's deadlines passed with no decision")
    recovered_share: dict[str, float] = Field(description="Mean recovered / at stake of a success, per category")


class SummaryOut(Output):
    """The replications' mean and 95% predictive interval (2.5th..97.5th percentiles)."""

    mean: float
    low: float
    high: float


class BacktestOut(Output):
    """The stated error: calibrated without the window's last quarter, forecast over it, compared."""

    available: bool
    reason: str | None
    quarter_from: date
    quarter_to: date
    seed: int
    replications: int | None = None
    predicted_backlog: SummaryOut | None = None
    actual_backlog: int | None = None
    backlog_error: float | None = Field(default=None, description="|mean - actual| / max(actual, 1)")
    backlog_within_interval: bool | None = None
    predicted_recovered: SummaryOut | None = None
    actual_recovered: float | None = None
    recovered_error: float | None = Field(default=None, description="|mean - actual| / max(actual, 1)")
    recovered_within_interval: bool | None = None


class ScenarioOut(Output):
    staff_delta: int
    order: str
    skip_categories: list[str]
    success_multiplier: float


class WeekOut(Output):
    week: int
    backlog: SummaryOut = Field(description="Cases in the backlog at the week's end")
    recovered: SummaryOut = Field(description="Money recovered by the week's decisions")


class ForecastOut(Output):
    weeks: list[WeekOut]
    final_backlog: SummaryOut
    total_recovered: SummaryOut
    decided: SummaryOut
    expired: SummaryOut = Field(description="Cases lost at their deadline before anyone worked them")
    written_off: SummaryOut = Field(description="Cases of skipped categories written off on arrival")
    staff: int


class RunOut(Output):
    id: int
    twin_id: int
    seed: int
    horizon_weeks: int
    replications: int
    scenario: ScenarioOut
    forecast: ForecastOut
    ran_on: datetime
    ran_by: int


class TwinOut(Output):
    id: int
    as_of: date
    window_from: date
    created_at: datetime
    built_by: int
    cases: int = Field(description="Cases opened in the window")
    seed: int
    calibration: CalibrationOut
    backtest: BacktestOut
    start_backlog: int = Field(description="Cases in the backlog at asOf, where runs start")
    runs: list[RunOut] = Field(description="The latest runs, newest first (at most 50)")
