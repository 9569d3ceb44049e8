"""evidence: calculating, storing and reading the evidence that an intervention works. Functions take the
tenant-scoped Session and plain values; they never commit (the executor commits the call with its
audit event). The intervention is asked through the services' `intervention_of` port (interventions
live in the intelligence context, above this one)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import asdict
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, not_found
from api.core.services import InterventionFacts, InterventionOf
from api.evidence.evidence import design, estimators
from api.evidence.evidence.models import InterventionEvidence
from api.infra.db.lookup import get_by_id, where_given
from api.infra.db.tenant_filter import get_scope

__all__ = ["InterventionEvidence"]


def intervention(db: Session, intervention_of: InterventionOf, intervention_id: int) -> InterventionFacts:
    """The client's intervention, or NOT_FOUND."""
    found = intervention_of(db, intervention_id)
    if found is None:
        raise not_found("Intervention", intervention_id)
    return found


def windows_of(facts: InterventionFacts, months_before: int, months_after: int) -> design.Windows:
    """The before/after windows around the intervention's start date (its month is "after")."""
    try:
        return design.windows(facts.start_date, months_before, months_after)
    except ValueError as error:
        raise InvalidInput(str(error)) from None


def scope_of(facts: InterventionFacts) -> design.Scope:
    return design.Scope(facts.payer_key, facts.category, facts.carc, facts.service_line, facts.facility)


def record(
    db: Session,
    facts: InterventionFacts,
    w: design.Windows,
    rows: Iterable[design.CellRow],
    payer_class: str | None,
    *,
    snapshot_built_at: datetime,
    user_id: int,
    now: datetime | None = None,
) -> InterventionEvidence:
    """Tally the mart rows into the four cells, estimate, and store one evidence record."""
    scope = scope_of(facts)
    t = design.tally(rows, scope, w, payer_class)
    treated = estimators.before_after(t.treated_before, t.treated_after)
    control = did = None
    if t.control_before is not None and t.control_after is not None:
        control = estimators.before_after(t.control_before, t.control_after)
        did = estimators.difference_in_differences(t.treated_before, t.treated_after, t.control_before, t.control_after)
    row = InterventionEvidence(
        intervention_id=facts.id,
        pattern_key=facts.pattern_key,
        action_key=facts.action_key,
        scope=asdict(scope),
        start_date=facts.start_date,
        months_before=w.months_before,
        months_after=w.months_after,
        before_from=w.before_from,
        after_until=w.after_until,
        comparison_payer_class=payer_class if control is not None else None,
        has_comparison=control is not None,
        **_counts(t),
        treated=asdict(treated),
        control=asdict(control) if control is not None else None,
        **_did_fields(did, t),
        statement=design.statement(treated, control, did.statement if did else None),
        snapshot_built_at=snapshot_built_at,
        computed_at=now or datetime.now(UTC),
        computed_by=user_id,
    )
    db.add(row)
    db.flush()
    return row


def _counts(t: design.Tally) -> dict[str, int | None]:
    """The events/trials columns of the four cells (the comparison's None without a comparison group)."""
    cells = {
        "treated_before": t.treated_before,
        "treated_after": t.treated_after,
        "control_before": t.control_before,
        "control_after": t.control_after,
    }
    columns: dict[str, int | None] = {}
    for name, counts in cells.items():
        columns[f"{name}_events"] = counts[0] if counts else None
        columns[f"{name}_trials"] = counts[1] if counts else None
    return columns


def _did_fields(did: estimators.DiD | None, t: design.Tally) -> dict[str, Any]:
    """The difference-in-differences columns; without a comparison group, no estimate, never significant,
    and enough trials when both treated periods have the minimum."""
    if did is None:
        enough = all(n >= estimators.DEFAULT_MIN_TRIALS for _, n in (t.treated_before, t.treated_after))
        return {"min_trials": estimators.DEFAULT_MIN_TRIALS, "significant": False, "enough_trials": enough}
    return {
        "did_estimate": did.estimate,
        "did_standard_error": did.standard_error,
        "did_ci_low": did.ci_low,
        "did_ci_high": did.ci_high,
        "did_z": did.z,
        "did_p_value": did.p_value,
        "did_n_total": did.n_total,
        "min_trials": did.min_trials,
        "significant": did.significant,
        "enough_trials": did.enough_trials,
    }


def get(db: Session, evidence_id: int) -> InterventionEvidence:
    """One evidence record of the selected client, or NOT_FOUND."""
    return get_by_id(db, InterventionEvidence, evidence_id, "Evidence")


def list_statement(*, intervention_id: int | None = None, pattern_key: str | None = None) -> Select[Any]:
    """Evidence records of an intervention or a pattern; each filter only when given; unordered, for paging."""
    return where_given(
        select(InterventionEvidence),
        (InterventionEvidence.intervention_id, intervention_id),
        (InterventionEvidence.pattern_key, pattern_key),
    )


def latest_for_intervention(db: Session, intervention_id: int) -> InterventionEvidence | None:
    """The intervention's most recent evidence record, or None (interventionExecution.status shows it)."""
    return db.scalar(
        select(InterventionEvidence)
        .where(InterventionEvidence.intervention_id == intervention_id)
        .order_by(InterventionEvidence.id.desc())
        .limit(1)
    )


def compare(
    db: Session, first_id: int, second_id: int
) -> tuple[InterventionEvidence, InterventionEvidence, design.Difference]:
    """Two records of the client and the difference of their difference-in-differences estimates."""
    first, second = get(db, first_id), get(db, second_id)
    diff = design.compare(first.did_estimate, first.did_standard_error, second.did_estimate, second.did_standard_error)
    if diff.significant and not (first.enough_trials and second.enough_trials):
        # Too few claims in a cell: the normal approximation behind both intervals is not trustworthy.
        diff = design.Difference(
            diff.estimate,
            diff.standard_error,
            diff.ci_low,
            diff.ci_high,
            diff.p_value,
            False,
            diff.statement
            + " A record has fewer claims than the minimum in a cell, so this is not called a difference.",
        )
    return first, second, diff


def month_label(month: date) -> str:
    return f"{month.year:04d}-{month.month:02d}"


def count_for_intervention(db: Session, intervention_id: int) -> int:
    """How many evidence records the intervention has."""
    return int(
        db.scalar(
            select(func.count())
            .select_from(InterventionEvidence)
            .where(InterventionEvidence.intervention_id == intervention_id)
        )
        or 0
    )


def latest_for_pattern_action(
    db: Session, pattern_key: str, action_key: str, reach: Collection[int] | None, *, limit: int
) -> list[InterventionEvidence]:
    """The latest evidence record of every intervention against `pattern_key` with `action_key`, across the
    clients of the session's organization the caller reaches (`reach`: None for every client of the
    organization, else those clients), newest first, at most `limit` (evidenceSynthesis pools them).

    The session's tenant filter limits a statement to the selected client, so this one is read without it
    and carries the organization of the session's scope and the reach itself: never another organization's
    rows, never a client outside the reach."""
    scope = get_scope(db)
    if scope is None:
        raise RuntimeError("latest_for_pattern_action needs a tenant-scoped session")
    conditions = [
        InterventionEvidence.organization_id == scope.organization_id,
        InterventionEvidence.pattern_key == pattern_key,
        InterventionEvidence.action_key == action_key,
    ]
    if reach is not None:
        conditions.append(InterventionEvidence.client_id.in_(sorted(reach)))
    latest = select(func.max(InterventionEvidence.id)).where(*conditions).group_by(InterventionEvidence.intervention_id)
    stmt = (
        select(InterventionEvidence)
        .where(InterventionEvidence.id.in_(latest), *conditions)
        .order_by(InterventionEvidence.id.desc())
        .limit(limit)
        .execution_options(skip_tenant_scope=True)
    )
    return list(db.scalars(stmt))
