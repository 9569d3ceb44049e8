"""outcomeEvaluation.*: did the outcome model's predictions hold up."""

from __future__ import annotations

import dataclasses

from api.intelligence.outcome_evaluation import service
from api.intelligence.outcome_evaluation.schemas import CalibrationOut, EvaluationOut, VersionIn
from api.intelligence.outcome_learning.schemas import CalibrationBinOut, EstimateOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("outcomeEvaluation")


@router.query("evaluate")
def evaluate(ctx: Context, input: VersionIn) -> EvaluationOut:
    """On the appeals decided since the version (default: the latest) was trained: the realised success
    rate (Wilson interval, n) vs the mean predicted probability, realised vs expected recovery, and the
    Brier score (bootstrap interval) vs the held-out Brier at training. Says "not enough new outcomes (n)"
    below 10 rather than inventing figures."""
    got = service.evaluate(ctx.db, input.version)
    d = got.drift
    held = EstimateOut.model_validate(got.held_out_brier)
    return EvaluationOut(
        model_version=got.model.version,
        source="model" if got.source == "model" else "prior",
        n=got.n,
        enough=d is not None,
        note=got.note,
        success_rate=None if d is None else EstimateOut.model_validate(dataclasses.asdict(d.success_rate)),
        mean_predicted=None if d is None else d.mean_predicted,
        realised_recovery=None if d is None else d.realised_recovery,
        expected_recovery=None if d is None else d.expected_recovery,
        brier=None if d is None else EstimateOut.model_validate(dataclasses.asdict(d.brier)),
        held_out_brier=held,
        brier_drift=None if d is None or held.value is None else d.brier.value - held.value,
    )


@router.query("calibration")
def calibration(ctx: Context, input: VersionIn) -> CalibrationOut:
    """Calibration by decile of predicted probability (count, mean predicted, observed rate with its
    Wilson interval) on the appeals decided since the version was trained; empty below 10 of them."""
    got = service.evaluate(ctx.db, input.version)
    bins = [] if got.drift is None else got.drift.calibration
    return CalibrationOut(
        model_version=got.model.version,
        source="model" if got.source == "model" else "prior",
        n=got.n,
        enough=got.drift is not None,
        note=got.note,
        deciles=[CalibrationBinOut.model_validate(dataclasses.asdict(b)) for b in bins],
    )
