"""outcomeLearning.*: the model that predicts appeal success from decided outcomes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from api.core.errors import PreconditionFailed
from api.denials.human_attention import service as attention
from api.infra.jobs.queue import enqueue_for_client
from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.outcome_learning import queries, service
from api.intelligence.outcome_learning.models import OutcomeModel
from api.intelligence.outcome_learning.schemas import (
    ContributionOut,
    ModelOut,
    PredictIn,
    PredictionOut,
    TrainIn,
    VersionIn,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("outcomeLearning")


def model_out(row: OutcomeModel) -> ModelOut:
    metrics: dict[str, Any] = row.metrics
    return ModelOut.model_validate(
        {
            "version": row.version,
            "fingerprint": row.fingerprint,
            "trained_at": row.trained_at,
            "trained_by": row.trained_by,
            "snapshot_built_at": row.snapshot_built_at,
            "outcomes": row.outcomes,
            "trained_rows": row.outcomes - row.held_out,
            "held_out_rows": row.held_out,
            "split_date": row.split_date,
            "excluded_outcomes": row.excluded_outcomes,
            "model": metrics["model"],
            "prior": metrics["prior"],
            "brier_difference": metrics["brierDifference"],
            "beats_prior": row.beats_prior,
            "verdict": row.verdict,
            "calibrated": row.calibrated,
            "calibration_note": row.calibration_note,
            "libraries": row.libraries,
        }
    )


def guard_check(ctx: Context) -> service.GuardCheck:
    """The published snapshot's case-ledger guard for this client; PRECONDITION_FAILED without one."""
    try:
        with open_marts(ctx, queries.DIFFERENCES_MART) as m:
            differing = queries.differing_case_ids(m)
            snap = snapshot_of(m)
    except PreconditionFailed:
        raise PreconditionFailed(service.NO_SNAPSHOT) from None
    return service.GuardCheck(snap.data_built_at or snap.built_at, differing)


@router.mutation("train")
def train(ctx: Context, input: TrainIn) -> ModelOut:
    """Train a new version on this client's decided appeals (won or partially won = success; withdrawn left
    out) whose cases the published snapshot's case-ledger guard checked; the latest quarter by decision
    date is held out and scores the model against the payer x category Beta-binomial prior (AUC, Brier,
    log loss, calibration by decile, each with a bootstrap interval); queues the rescoring of the client's
    worklist, which ranks by the latest version only where it beat the prior. PRECONDITION_FAILED without a
    published snapshot or with fewer than 40 such appeals."""
    row = service.train(ctx.db, guard_check(ctx), user_id=ctx.user_id)
    ctx.note("outcome_model", row.id)
    # The latest version decides what ranks the worklist (the model only where it beat the prior): queue
    # the rescoring of every working case of the client (humanAttention.rescore, coalesced per client).
    enqueue_for_client(ctx.db, attention.RESCORE_JOB_KIND, "payers", None, max_listed=attention.MAX_RESCORE_PAYERS)
    return model_out(row)


@router.query("metrics")
def metrics(ctx: Context, input: VersionIn) -> ModelOut:
    """A trained version's held-out scores, model and prior, with their intervals and n (default: the latest)."""
    return model_out(service.model_row(ctx.db, input.version))


@router.query("predict")
def predict(ctx: Context, input: PredictIn) -> PredictionOut:
    """P(success) of an appeal on the case: the model's where it beat the prior on held-out data (with its
    largest feature contributions), else the payer x category prior's; says which answered and why."""
    today = datetime.now(UTC).date()
    got = service.predict(ctx.db, input.case_id, action=input.action, version=input.version, today=today)
    p = got.prediction
    return PredictionOut(
        case_id=got.case_id,
        action=got.action,
        model_version=got.row.version,
        probability=p.probability,
        low=p.low,
        high=p.high,
        n=p.n,
        source=p.source,
        why=p.note,
        contributions=[ContributionOut(feature=c.feature, value=c.value, log_odds=c.log_odds) for c in p.contributions],
    )
