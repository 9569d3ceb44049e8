"""outcomeLearning: train the client's outcome model on its guard-checked decided appeals, keep what each
version was trained on and how it scored, and predict with it. Never commits.

Rules (each a decision of issue 26, documented here):

- Outcomes: the client's decided appeals (``outcomes.service.decided_appeals``: won, partially won, lost;
  withdrawn ones were never decided), their features by ``features`` (success = won or partially won).
- "Learn only from cases the case-ledger guard has checked": a case is checked when it existed when the
  published snapshot's data were built and is not listed in that snapshot's ``fct_case_ledger_differences``
  (the guard's findings, docs/architecture.md "The case ledger guard"). Without a published snapshot nothing
  is checked, so training is PRECONDITION_FAILED (run the pipeline first).
- The fitted estimator is never stored (see ``models``); a version is re-fitted from the same outcomes
  (recorded up to ``recorded_through``, minus ``excluded_case_ids``) when this process has no copy, and
  must reproduce its fingerprint. When those outcomes changed since (a case's features edited, the
  libraries upgraded), ``predict`` is PRECONDITION_FAILED "model version N was trained on other outcomes;
  train again": answering with the prior instead would hide that the stored metrics no longer describe
  what answers.
- ``predict`` answers with the model only where it beat the prior on held-out data (``model.TrainedModel``
  decides), else with the payer x category prior, and says which (``source``) and why (``note``).
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.core.errors import Conflict, NotFound, PreconditionFailed
from api.core.services import ModelProbabilities, OverturnFeatures
from api.denials.cases import service as cases
from api.denials.outcomes import service as outcomes
from api.infra.db.base import utcnow
from api.intelligence.outcome_learning import features, model
from api.intelligence.outcome_learning.models import OutcomeModel

HOLDOUT_FRACTION = 0.25
PRIOR_STRENGTH = 10.0
CACHE_SIZE = 16
NO_SNAPSHOT = (
    "no published snapshot: run the pipeline first (operations.runPipeline); the model learns only from"
    " cases the case-ledger guard has checked"
)

# (client id, version) -> the fitted model; bounded, most recently used last.
_cache: OrderedDict[tuple[int, int], model.TrainedModel] = OrderedDict()
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class GuardCheck:
    """What the published snapshot's case-ledger guard checked: cases opened up to ``built_at`` (the
    client's data build time), of which ``differing_case_ids`` disagree with the ledger."""

    built_at: datetime
    differing_case_ids: frozenset[int]


@dataclass(frozen=True)
class Gathered:
    rows: list[model.Outcome]
    appeals: list[outcomes.DecidedAppeal]
    excluded_case_ids: frozenset[int]
    excluded_outcomes: int
    recorded_through: int


def _start(appeal: outcomes.DecidedAppeal) -> date:
    return appeal.remittance_date or appeal.service_date or appeal.case_created_at.date()


def outcome_of(appeal: outcomes.DecidedAppeal) -> model.Outcome:
    case = features.case_features(
        payer=appeal.payer,
        payer_class=appeal.payer_class,
        category=appeal.denial_category,
        carc=appeal.carc,
        rarcs=appeal.rarcs,
        amount_at_stake=appeal.amount_at_stake,
        start=_start(appeal),
        at=appeal.decided_on,
        level=appeal.level,
    )
    return features.outcome(case, appeal.decided_on, appeal.decision)


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=utcnow().tzinfo)


def gather(db: Session, guard: GuardCheck) -> Gathered:
    """The client's decided appeals on guard-checked cases, as model rows."""
    appeals = outcomes.decided_appeals(db, limit=model.MAX_OUTCOMES + 1)
    built_at = _utc(guard.built_at)
    excluded = frozenset(
        a.case_id for a in appeals if a.case_id in guard.differing_case_ids or _utc(a.case_created_at) > built_at
    )
    kept = [a for a in appeals if a.case_id not in excluded]
    return Gathered(
        rows=[outcome_of(a) for a in kept],
        appeals=kept,
        excluded_case_ids=excluded,
        excluded_outcomes=len(appeals) - len(kept),
        recorded_through=max((a.outcome_id for a in appeals), default=0),
    )


def _regather(db: Session, row: OutcomeModel) -> list[model.Outcome]:
    excluded = set(row.excluded_case_ids)
    appeals = outcomes.decided_appeals(db, recorded_through=row.recorded_through, limit=model.MAX_OUTCOMES + 1)
    return [outcome_of(a) for a in appeals if a.case_id not in excluded]


def _fit(rows: Sequence[model.Outcome]) -> model.TrainedModel:
    return model.train(rows, holdout_fraction=HOLDOUT_FRACTION, prior_strength=PRIOR_STRENGTH)


def _remember(client_id: int, version: int, trained: model.TrainedModel) -> None:
    with _cache_lock:
        _cache[(client_id, version)] = trained
        _cache.move_to_end((client_id, version))
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def forget_cached() -> None:
    """Drop every cached fitted model (the next use re-fits from the stored outcomes)."""
    with _cache_lock:
        _cache.clear()


def train(db: Session, guard: GuardCheck | None, *, user_id: int) -> OutcomeModel:
    """Train a new version on the client's guard-checked decided appeals and store what it scored."""
    if guard is None:
        raise PreconditionFailed(NO_SNAPSHOT)
    gathered = gather(db, guard)
    n = len(gathered.rows)
    if n < model.MIN_OUTCOMES:
        raise PreconditionFailed(
            f"{n} decided appeals on guard-checked cases; training needs at least {model.MIN_OUTCOMES}"
            f" (record {model.MIN_OUTCOMES - n} more decisions, or resolve the case-ledger differences"
            f" excluding {gathered.excluded_outcomes})",
            details={"outcomes": n, "needed": model.MIN_OUTCOMES, "excludedOutcomes": gathered.excluded_outcomes},
        )
    try:
        trained = _fit(gathered.rows)
    except ValueError as exc:  # counts, dates and classes only: no PHI in the core's messages
        raise PreconditionFailed(f"The outcomes cannot train a model: {exc}") from None
    version = int(db.scalar(select(func.max(OutcomeModel.version))) or 0) + 1
    row = OutcomeModel(
        version=version,
        fingerprint=trained.version.fingerprint,
        trained_at=utcnow(),
        trained_by=user_id,
        snapshot_built_at=guard.built_at,
        outcomes=n,
        held_out=trained.version.held_out_rows,
        split_date=trained.version.split_date,
        recorded_through=gathered.recorded_through,
        excluded_case_ids=sorted(gathered.excluded_case_ids),
        excluded_outcomes=gathered.excluded_outcomes,
        metrics={
            "model": _jsonable(trained.model_metrics),
            "prior": _jsonable(trained.prior_metrics),
            "brierDifference": _jsonable(trained.brier_difference),
        },
        beats_prior=trained.beats_prior,
        verdict=trained.reason[:1000],
        calibrated=trained.calibrated,
        calibration_note=trained.calibration_note[:500],
        libraries=dict(trained.version.libraries),
    )
    try:
        # Two trainings of one client at once would both number themselves max + 1: the unique
        # (client_id, version) lets one win; the savepoint keeps this transaction usable to say so.
        with db.begin_nested():
            db.add(row)
            db.flush()
    except IntegrityError:
        raise Conflict(
            f"Another training of this client stored version {version} first: call outcomeLearning.train again"
        ) from None
    _remember(row.client_id, version, trained)
    return row


def _jsonable(value: Any) -> Any:
    """A metrics dataclass as JSON: NaN (an AUC no resample could compute) becomes None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def model_row(db: Session, version: int | None) -> OutcomeModel:
    """The client's model of that version (the latest when None); NOT_FOUND / PRECONDITION_FAILED."""
    stmt = select(OutcomeModel)
    if version is not None:
        found = db.scalar(stmt.where(OutcomeModel.version == version))
        if found is None:
            raise NotFound(f"Outcome model version {version} not found")
        return found
    latest = db.scalar(stmt.order_by(OutcomeModel.version.desc()).limit(1))
    if latest is None:
        raise PreconditionFailed("No outcome model has been trained for this client: call outcomeLearning.train")
    return latest


def trained(db: Session, row: OutcomeModel) -> model.TrainedModel:
    """The fitted model of a stored version: this process's copy, or re-fitted from the same outcomes
    (PRECONDITION_FAILED when they no longer give the stored fingerprint)."""
    key = (row.client_id, row.version)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None and cached.version.fingerprint == row.fingerprint:
        return cached
    stale = PreconditionFailed(
        f"model version {row.version} was trained on other outcomes; train again",
        details={"version": row.version},
    )
    try:
        refitted = _fit(_regather(db, row))
    except ValueError:
        raise stale from None
    if refitted.version.fingerprint != row.fingerprint:
        raise stale
    _remember(row.client_id, row.version, refitted)
    return refitted


@dataclass(frozen=True)
class Predicted:
    row: OutcomeModel
    case_id: int
    action: str
    prediction: model.Prediction


def case_as_of(case: cases.Case, level: int, today: date) -> model.Case:
    """A case's features for an appeal of ``level`` taken ``today``."""
    start = case.remittance_date or case.service_date or case.created_at.date()
    return features.case_features(
        payer=case.payer,
        payer_class=case.payer_class,
        category=case.denial_category,
        carc=case.carc,
        rarcs=tuple(case.rarcs or ()),
        amount_at_stake=case.amount_at_stake,
        start=start,
        at=today,
        level=level,
    )


def predict(db: Session, case_id: int, *, action: str | None, version: int | None, today: date) -> Predicted:
    """P(success) of the action (default: the case's next appeal level) on the case, by the model where
    it beat the prior on held-out data, else by the prior."""
    case = cases.get_case(db, case_id)
    row = model_row(db, version)
    level = features.level_of(action) if action else min(outcomes.last_level(db, case.id) + 1, 9)
    fitted = trained(db, row)
    prediction = fitted.predict(case_as_of(case, level, today))
    return Predicted(row, case.id, features.action_for(level), prediction)


def success_probability(db: Session, cases_: Sequence[OverturnFeatures], today: date) -> ModelProbabilities | None:
    """The services' ``success_probability`` port (the worklist ranks by it): P(success) of an appeal of
    each case's next level taken ``today``, by the client's LATEST version, only when that version's
    stored ``beats_prior`` is true; None otherwise (no version, or the latest did not beat the prior:
    an older one that did is not used, the latest verdict is the client's current evidence).

    Also None when the latest version can no longer be re-fitted from its outcomes (``trained`` is
    PRECONDITION_FAILED "train again"): ``predict`` says so to whoever asks about the model, but the
    worklist must keep working, and its own Beta-binomial estimate is what it used before any model.
    The fitted model is cached per (client, version) in this process (``trained``), so a batch costs
    one ``predict_proba`` over the batch after the first fit."""
    latest = db.scalar(select(OutcomeModel).order_by(OutcomeModel.version.desc()).limit(1))
    if latest is None or not latest.beats_prior:
        return None
    try:
        fitted = trained(db, latest)
    except PreconditionFailed:
        return None
    rows = [
        features.case_features(
            payer=c.payer,
            payer_class=c.payer_class,
            category=c.category,
            carc=c.carc,
            rarcs=c.rarcs,
            amount_at_stake=c.amount_at_stake,
            start=c.start,
            at=today,
            level=c.appeal_level,
        )
        for c in cases_
    ]
    return ModelProbabilities(latest.version, tuple(fitted.probabilities(rows)))
