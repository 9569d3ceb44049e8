"""evidence.*: evidence that an intervention works, per pattern (before/after and difference-in-differences)."""

from __future__ import annotations

from api.evidence.evidence import design, queries, service
from api.evidence.evidence.models import InterventionEvidence
from api.evidence.evidence.schemas import (
    CalculateIn,
    CompareIn,
    CompareOut,
    DifferenceOut,
    EvidenceOut,
    EvidenceRef,
    ForInterventionIn,
    ForPatternIn,
)
from api.infra.marts.serving import open_marts, snapshot_of
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("evidence")


def evidence_out(row: InterventionEvidence) -> EvidenceOut:
    """The wire form of a stored evidence record."""
    w = design.Windows(design.month_of(row.start_date), row.months_before, row.months_after)
    did = None
    if row.has_comparison:
        did = {
            "estimate": row.did_estimate,
            "standard_error": row.did_standard_error,
            "ci_low": row.did_ci_low,
            "ci_high": row.did_ci_high,
            "z": row.did_z,
            "p_value": row.did_p_value,
            "n_total": row.did_n_total or 0,
            "min_trials": row.min_trials,
        }
    return EvidenceOut.model_validate(
        {
            **{c: getattr(row, c) for c in EvidenceOut.model_fields if hasattr(row, c)},
            "before_first_month": service.month_label(w.before_from),
            "before_last_month": service.month_label(w.before_last),
            "after_first_month": service.month_label(w.after_from),
            "after_last_month": service.month_label(w.after_last),
            "did": did,
        }
    )


@router.mutation("calculateForIntervention")
def calculate_for_intervention(ctx: Context, input: CalculateIn) -> EvidenceOut:
    """Measure an intervention on the current snapshot (fct_denial_cells_monthly) and store the record.
    The outcome rate is the claims denied with the scope's category (and CARC when given) over all
    claims of the treated slice (the scope's payer, service line, facility). Before = the monthsBefore
    months ending with the month before the start date's; after = the monthsAfter months from the start
    date's month, which counts as after. The comparison group is the same payer class's cells of other
    service lines or facilities; a scope naming neither has none (before/after only, said in the
    statement). Answers counts, rates and changes with 95% intervals, the difference-in-differences with
    its standard error, interval and p-value, and a plain statement."""
    facts = service.intervention(ctx.db, ctx.services.intervention_of, input.intervention_id)
    w = service.windows_of(facts, input.months_before, input.months_after)
    with open_marts(ctx, queries.CELLS_MART) as m:
        payer_class = queries.payer_class_of(m, facts.payer_key) if facts.payer_key else None
        rows = queries.cell_rows(m, w)
        built_at = snapshot_of(m).built_at
    row = service.record(ctx.db, facts, w, rows, payer_class, snapshot_built_at=built_at, user_id=ctx.user_id)
    ctx.note("intervention_evidence", row.id)
    return evidence_out(row)


@router.query("getById")
def get_by_id(ctx: Context, input: EvidenceRef) -> EvidenceOut:
    """One evidence record of the selected client."""
    return evidence_out(service.get(ctx.db, input.id))


@router.query("listForIntervention")
def list_for_intervention(ctx: Context, input: ForInterventionIn) -> Page[EvidenceOut]:
    """The intervention's evidence records, newest first; paginated. NOT_FOUND without the intervention."""
    service.intervention(ctx.db, ctx.services.intervention_of, input.intervention_id)
    stmt = service.list_statement(intervention_id=input.intervention_id)
    return paginate(ctx.db, stmt, InterventionEvidence.id, input, evidence_out)


@router.query("listForPattern")
def list_for_pattern(ctx: Context, input: ForPatternIn) -> Page[EvidenceOut]:
    """Evidence records of every intervention against a pattern (patternKey), newest first; paginated."""
    stmt = service.list_statement(pattern_key=input.pattern_key)
    return paginate(ctx.db, stmt, InterventionEvidence.id, input, evidence_out)


@router.query("compare")
def compare(ctx: Context, input: CompareIn) -> CompareOut:
    """Two evidence records side by side and the difference of their difference-in-differences estimates,
    taken as independent: se = sqrt(se1^2 + se2^2), normal 95% interval, p-value, and a statement.
    Null numbers (with the reason in the statement) when a record has no estimate."""
    first, second, diff = service.compare(ctx.db, input.first_id, input.second_id)
    n_total = (first.did_n_total or 0) + (second.did_n_total or 0)
    difference = DifferenceOut.model_validate({**diff.__dict__, "n_total": n_total})
    return CompareOut(
        first=evidence_out(first), second=evidence_out(second), difference=difference, statement=diff.statement
    )
