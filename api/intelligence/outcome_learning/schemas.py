"""Inputs and outputs of outcomeLearning.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field

from api.intelligence.outcome_learning.features import ACTION_PATTERN
from api.rpc.schema import DbId, Output, Schema


class TrainIn(Schema):
    pass


class VersionIn(Schema):
    version: int | None = Field(default=None, ge=1, le=1_000_000, description="Model version (default: the latest)")


class PredictIn(Schema):
    case_id: DbId
    action: str | None = Field(
        default=None,
        max_length=20,
        pattern=ACTION_PATTERN,
        description="appeal-level-<1..9> (default: the level after the highest already decided on the case)",
    )
    version: int | None = Field(default=None, ge=1, le=1_000_000, description="Model version (default: the latest)")


class EstimateOut(Output):
    """A figure with its 95% interval (low..high, null when none could be computed) and its n."""

    value: float | None
    low: float | None
    high: float | None
    n: int


class CalibrationBinOut(Output):
    decile: int
    lower: float
    upper: float
    count: int
    mean_predicted: float
    observed_rate: float
    observed_low: float = Field(description="Wilson (1927) 95% interval of the observed rate")
    observed_high: float


class HeldOutMetricsOut(Output):
    """Scores on the held-out (latest) outcomes; intervals: 95% percentile bootstrap (Efron & Tibshirani 1993)."""

    n: int
    successes: int
    auc: EstimateOut
    brier: EstimateOut
    log_loss: EstimateOut
    calibration: list[CalibrationBinOut]


class ModelOut(Output):
    """A trained version: what it learned from and how it scored against the payer x category prior."""

    version: int
    fingerprint: str
    trained_at: datetime
    trained_by: int
    snapshot_built_at: datetime = Field(description="Data build time of the snapshot whose case-ledger guard was used")
    outcomes: int = Field(description="Decided appeals used (training + held out)")
    trained_rows: int
    held_out_rows: int
    split_date: date = Field(description="Outcomes decided on or after this day were held out")
    excluded_outcomes: int = Field(description="Decided appeals left out: their case was not guard-checked")
    model: HeldOutMetricsOut
    prior: HeldOutMetricsOut
    brier_difference: EstimateOut = Field(description="Brier(model) - Brier(prior), paired bootstrap interval")
    beats_prior: bool
    verdict: str
    calibrated: bool
    calibration_note: str
    libraries: dict[str, str]


class ContributionOut(Output):
    feature: str
    value: float
    log_odds: float


class PredictionOut(Output):
    case_id: int
    action: str
    model_version: int
    probability: float
    low: float
    high: float
    n: int
    source: Literal["model", "prior"]
    why: str = Field(description="Which estimate answered and why (the model only where it beat the prior)")
    contributions: list[ContributionOut]
