"""evidenceSynthesis: pooling the evidence that an action works against a pattern, storing and reading the
syntheses. Functions take the tenant-scoped Session and plain values; they never commit (the executor
commits the call with its audit event).

A study is one intervention's latest evidence record (evidence.service) with a difference-in-differences
estimate: the record's effect on the denial rate, its standard error and its claims. The studies come from
every client of the organization the caller reaches; a synthesis is stored in the caller's client with the
clients it pooled, and a member reads it only when they reach every one of those clients.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import PreconditionFailed, not_found
from api.evidence.evidence import service as evidence
from api.evidence.evidence.estimators import Z_CRIT
from api.evidence.evidence_synthesis import comparison, pooling
from api.evidence.evidence_synthesis.models import EvidenceSynthesis, EvidenceSynthesisClient
from api.infra.db.lookup import where_given

__all__ = ["EvidenceSynthesis"]

Reach = Collection[int] | None  # the clients the caller reaches; None: every client of the organization


def _study(row: evidence.InterventionEvidence) -> pooling.Study | None:
    """The record as a study, or None when it has no usable estimate (no comparison group, an empty cell,
    a zero standard error)."""
    est, se, n = row.did_estimate, row.did_standard_error, row.did_n_total
    if est is None or se is None or n is None or n < 1 or not math.isfinite(est) or not math.isfinite(se) or se <= 0:
        return None
    return pooling.Study(f"evidence {row.id}", float(est), float(se), int(n))


def _points(x: float) -> str:
    return f"{x * 100:+.1f}"


def statement(pooled: pooling.Pooled, clients: int, organization_wide: bool, excluded: int) -> str:
    """What the synthesis can and cannot say, in plain words."""
    where = (
        "across every client of the organization" if organization_wide else "across the clients your membership reaches"
    )
    parts = [
        f"Pooled {pooled.n_studies} intervention(s)' latest difference-in-differences of the denial rate "
        f"({pooled.n_total} claims, {clients} client(s), {where}).",
        f"Random effects: {_points(pooled.random_effect)} percentage points (95% interval "
        f"{_points(pooled.random_ci_low)} to {_points(pooled.random_ci_high)}, SE {pooled.random_standard_error * 100:.1f}); "
        f"fixed effect: {_points(pooled.fixed_effect)} (95% interval {_points(pooled.fixed_ci_low)} to "
        f"{_points(pooled.fixed_ci_high)}). A negative value means the denial rate fell more where the action "
        "was taken than in the comparison cells.",
        pooled.statement,
    ]
    if pooled.n_studies == 1:
        parts.append("No heterogeneity can be estimated from one study, and one setting says nothing about others.")
    elif pooled.n_studies < 5:
        # DerSimonian-Laird's tau² is imprecise with few studies (Veroniki et al. 2016, Res Synth Methods 7:55).
        parts.append(f"With {pooled.n_studies} studies the between-study variance (tau²) is poorly estimated.")
    if excluded:
        parts.append(
            f"{excluded} intervention(s) were left out: their latest evidence record has no difference-in-differences "
            "estimate (no comparison group or an empty cell)."
        )
    parts.append(
        "Each study is observational (before/after against untreated cells): pooling narrows the interval but does "
        "not remove confounding common to the studies."
    )
    return " ".join(parts)


def calculate(
    db: Session, pattern_key: str, action_key: str, reach: Reach, *, user_id: int, now: datetime | None = None
) -> EvidenceSynthesis:
    """Pool the latest evidence of every intervention against `pattern_key` with `action_key` in the
    clients of `reach` and store the synthesis; PRECONDITION_FAILED without a single usable study."""
    rows = evidence.latest_for_pattern_action(db, pattern_key, action_key, reach, limit=pooling.MAX_STUDIES + 1)
    if len(rows) > pooling.MAX_STUDIES:
        raise PreconditionFailed(
            f"More than {pooling.MAX_STUDIES} interventions have evidence for this pattern and action; "
            "a synthesis pools at most that many."
        )
    used = [(row, study) for row in rows if (study := _study(row)) is not None]
    excluded = len(rows) - len(used)
    if not used:
        found = f" ({excluded} intervention(s) have evidence, but none with an estimate)" if excluded else ""
        raise PreconditionFailed(
            f"No evidence with a difference-in-differences estimate for pattern {pattern_key} and action "
            f"{action_key} in the clients you reach{found}: calculate it first with "
            "evidence.calculateForIntervention, for an intervention whose scope names a service line or facility."
        )
    used.reverse()  # oldest first: the studies in the order they were measured
    try:
        pooled = pooling.pool([study for _, study in used])
    except ValueError as error:
        raise PreconditionFailed(f"The evidence cannot be pooled: {error}") from None
    clients = sorted({row.client_id for row, _ in used})
    studies: list[dict[str, Any]] = [
        {
            "evidence_id": row.id,
            "intervention_id": row.intervention_id,
            "client_id": row.client_id,
            "effect": study.effect,
            "standard_error": study.standard_error,
            "ci_low": study.effect - Z_CRIT * study.standard_error,
            "ci_high": study.effect + Z_CRIT * study.standard_error,
            "n": study.n,
            "computed_at": row.computed_at.isoformat(),
        }
        for row, study in used
    ]
    synthesis = EvidenceSynthesis(
        pattern_key=pattern_key,
        action_key=action_key,
        organization_wide=reach is None,
        studies=studies,
        excluded=excluded,
        fixed_effect=pooled.fixed_effect,
        fixed_standard_error=pooled.fixed_standard_error,
        fixed_ci_low=pooled.fixed_ci_low,
        fixed_ci_high=pooled.fixed_ci_high,
        random_effect=pooled.random_effect,
        random_standard_error=pooled.random_standard_error,
        random_ci_low=pooled.random_ci_low,
        random_ci_high=pooled.random_ci_high,
        tau2=pooled.tau2,
        q=pooled.q,
        q_df=pooled.q_df,
        q_p_value=pooled.q_p_value,
        i2=pooled.i2,
        n_studies=pooled.n_studies,
        n_total=pooled.n_total,
        statement=statement(pooled, len(clients), reach is None, excluded),
        computed_at=now or datetime.now(UTC),
        computed_by=user_id,
    )
    db.add(synthesis)
    db.flush()
    db.add_all(EvidenceSynthesisClient(synthesis_id=synthesis.id, study_client_id=c) for c in clients)
    db.flush()
    return synthesis


def _visible(reach: Reach) -> Any:
    """Syntheses every pooled client of which the caller reaches (None: no condition, organization-wide)."""
    if reach is None:
        return None
    outside = select(EvidenceSynthesisClient.id).where(
        EvidenceSynthesisClient.synthesis_id == EvidenceSynthesis.id,
        EvidenceSynthesisClient.study_client_id.not_in(sorted(reach)),
    )
    return ~outside.exists()


def get(db: Session, synthesis_id: int, reach: Reach) -> EvidenceSynthesis:
    """One synthesis of the selected client whose pooled clients the caller all reaches, or NOT_FOUND."""
    stmt = select(EvidenceSynthesis).where(EvidenceSynthesis.id == synthesis_id)
    visible = _visible(reach)
    if visible is not None:
        stmt = stmt.where(visible)
    found = db.scalar(stmt)
    if found is None:
        raise not_found("Evidence synthesis", synthesis_id)
    return found


def list_statement(reach: Reach, *, pattern_key: str | None = None, action_key: str | None = None) -> Select[Any]:
    """The client's syntheses the caller may read, of a pattern or an action; unordered, for paging."""
    stmt = where_given(
        select(EvidenceSynthesis),
        (EvidenceSynthesis.pattern_key, pattern_key),
        (EvidenceSynthesis.action_key, action_key),
    )
    visible = _visible(reach)
    return stmt if visible is None else stmt.where(visible)


def compare(
    db: Session, first_id: int, second_id: int, reach: Reach
) -> tuple[EvidenceSynthesis, EvidenceSynthesis, comparison.Difference]:
    """Two syntheses and the difference of their random-effects estimates (taken as independent)."""
    first, second = get(db, first_id, reach), get(db, second_id, reach)
    shared = {s["evidence_id"] for s in first.studies} & {s["evidence_id"] for s in second.studies}
    diff = comparison.difference(
        first.random_effect,
        first.random_standard_error,
        second.random_effect,
        second.random_standard_error,
        len(shared),
    )
    return first, second, diff
