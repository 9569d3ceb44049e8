"""outcomeEvaluation: how a trained outcome model's answers held up on appeals decided after it was
trained. Never commits.

New outcomes: the client's decided appeals (withdrawn left out) recorded after the version was trained
(outcome id above the version's ``recorded_through``) AND decided on or after the day it was trained
(UTC): none of them informed the model or its held-out scores. Each is predicted as the platform would have
answered then (``TrainedModel.predict``: the model where it beat the prior, else the prior), with its
features as of its decision date. They are not filtered by the case-ledger guard: this asks how the
answers fared on what really happened, not what to learn from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from api.denials.outcomes import service as outcomes
from api.intelligence.outcome_evaluation import drift
from api.intelligence.outcome_learning import features, model
from api.intelligence.outcome_learning import service as learning
from api.intelligence.outcome_learning.models import OutcomeModel


@dataclass(frozen=True)
class Evaluation:
    model: OutcomeModel
    source: str  # "model" or "prior": which estimate answered with this version
    held_out_brier: dict[str, Any]  # the answering estimate's held-out Brier at training (value, low, high, n)
    n: int
    note: str
    drift: drift.Drift | None  # None: not enough new outcomes


def new_outcomes(db: Session, row: OutcomeModel) -> list[outcomes.DecidedAppeal]:
    trained_on = row.trained_at.date()
    appeals = outcomes.decided_appeals(db, recorded_after=row.recorded_through, limit=model.MAX_OUTCOMES)
    return [a for a in appeals if a.decided_on >= trained_on]


def evaluate(db: Session, version: int | None) -> Evaluation:
    """The version's predictions against the new outcomes (see the module); figures only when there
    are at least ``drift.MIN_NEW_OUTCOMES`` of them."""
    row = learning.model_row(db, version)
    source = "model" if row.beats_prior else "prior"
    held_out_brier = dict(row.metrics[source]["brier"])
    appeals = new_outcomes(db, row)
    n = len(appeals)
    if not drift.enough(n):
        note = (
            f"not enough new outcomes ({n}): at least {drift.MIN_NEW_OUTCOMES} appeals decided since version"
            f" {row.version} was trained are needed"
        )
        return Evaluation(row, source, held_out_brier, n, note, None)
    fitted = learning.trained(db, row)
    scored = []
    for appeal in appeals:
        outcome = learning.outcome_of(appeal)
        scored.append(
            drift.Scored(
                probability=fitted.predict(outcome).probability,
                success=appeal.decision in features.SUCCESS_DECISIONS,
                amount_at_stake=appeal.amount_at_stake,
                amount_recovered=appeal.amount_recovered,
            )
        )
    note = (
        f"{n} appeals decided since version {row.version} was trained, predicted by the {source}"
        " (the estimate this version answers with)"
    )
    return Evaluation(row, source, held_out_brier, n, note, drift.drift(scored))
