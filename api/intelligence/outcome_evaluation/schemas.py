"""Inputs and outputs of outcomeEvaluation.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.infra.marts.serving import Money
from api.intelligence.outcome_learning.schemas import CalibrationBinOut, EstimateOut
from api.rpc.schema import Output, Schema


class VersionIn(Schema):
    version: int | None = Field(default=None, ge=1, le=1_000_000, description="Model version (default: the latest)")


class EvaluationOut(Output):
    """A version's predictions on appeals decided after it was trained. Every figure is null (and
    ``enough`` false, ``note`` saying how many there are) below 10 such appeals."""

    model_version: int
    source: Literal["model", "prior"] = Field(description="The estimate this version answers with")
    n: int = Field(description="Appeals decided since training (withdrawn left out)")
    enough: bool
    note: str
    success_rate: EstimateOut | None = Field(description="Realised success rate, Wilson 95% interval")
    mean_predicted: float | None
    realised_recovery: Money | None
    expected_recovery: Money | None = Field(description="Sum of P(success) x amount at stake")
    brier: EstimateOut | None = Field(description="Brier score on the new appeals, bootstrap 95% interval")
    held_out_brier: EstimateOut = Field(description="The same estimate's Brier score on the held-out set at training")
    brier_drift: float | None = Field(description="brier - heldOutBrier (positive: worse than at training)")


class CalibrationOut(Output):
    """Calibration by decile of predicted probability on the appeals decided after training (empty below 10)."""

    model_version: int
    source: Literal["model", "prior"]
    n: int
    enough: bool
    note: str
    deciles: list[CalibrationBinOut]
