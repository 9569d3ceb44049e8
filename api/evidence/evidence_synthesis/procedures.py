"""evidenceSynthesis.*: the evidence that an action works against a pattern, pooled across interventions and
clients (fixed and DerSimonian-Laird random effects, heterogeneity stated)."""

from __future__ import annotations

from api.evidence.evidence_synthesis import service
from api.evidence.evidence_synthesis.models import EvidenceSynthesis
from api.evidence.evidence_synthesis.schemas import (
    CalculateIn,
    CompareIn,
    CompareOut,
    DifferenceOut,
    ForActionIn,
    ForPatternIn,
    SynthesisOut,
    SynthesisRef,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("evidenceSynthesis")


def synthesis_out(row: EvidenceSynthesis) -> SynthesisOut:
    """The wire form of a stored synthesis."""
    heterogeneity = None
    if row.q is not None:
        heterogeneity = {"tau2": row.tau2, "q": row.q, "q_df": row.q_df, "q_p_value": row.q_p_value, "i2": row.i2}
    return SynthesisOut.model_validate(
        {
            **{c: getattr(row, c) for c in SynthesisOut.model_fields if hasattr(row, c)},
            "excluded_interventions": row.excluded,
            "fixed": {
                "estimate": row.fixed_effect,
                "standard_error": row.fixed_standard_error,
                "ci_low": row.fixed_ci_low,
                "ci_high": row.fixed_ci_high,
            },
            "random": {
                "estimate": row.random_effect,
                "standard_error": row.random_standard_error,
                "ci_low": row.random_ci_low,
                "ci_high": row.random_ci_high,
            },
            "heterogeneity": heterogeneity,
        }
    )


@router.mutation("calculateForPattern")
def calculate_for_pattern(ctx: Context, input: CalculateIn) -> SynthesisOut:
    """Pool the evidence that an action (actionKey) works against a pattern (patternKey) and store it.
    The studies are the latest evidence record of every intervention with that pattern and action, in every
    client of the organization the caller's membership reaches, that has a difference-in-differences
    estimate (evidence.calculateForIntervention): its effect on the denial rate, standard error and claims.
    Answers the fixed-effect (inverse-variance) and DerSimonian-Laird random-effects estimates, each with
    its standard error and 95% interval, the heterogeneity (tau², Cochran's Q with df and p-value, I²;
    null with one study), the studies used, the claims behind them and a statement of what the synthesis
    can and cannot say. PRECONDITION_FAILED when no intervention has such an estimate yet."""
    row = service.calculate(ctx.db, input.pattern_key, input.action_key, ctx.tenant.reach, user_id=ctx.user_id)
    ctx.note("evidence_synthesis", row.id)
    return synthesis_out(row)


@router.query("getById")
def get_by_id(ctx: Context, input: SynthesisRef) -> SynthesisOut:
    """One synthesis of the selected client (NOT_FOUND when it pooled a client the caller does not reach)."""
    return synthesis_out(service.get(ctx.db, input.id, ctx.tenant.reach))


@router.query("listForPattern")
def list_for_pattern(ctx: Context, input: ForPatternIn) -> Page[SynthesisOut]:
    """The client's syntheses of a pattern (patternKey), newest first; paginated."""
    stmt = service.list_statement(ctx.tenant.reach, pattern_key=input.pattern_key)
    return paginate(ctx.db, stmt, EvidenceSynthesis.id, input, synthesis_out)


@router.query("listForAction")
def list_for_action(ctx: Context, input: ForActionIn) -> Page[SynthesisOut]:
    """The client's syntheses of an action (actionKey) against any pattern, newest first; paginated."""
    stmt = service.list_statement(ctx.tenant.reach, action_key=input.action_key)
    return paginate(ctx.db, stmt, EvidenceSynthesis.id, input, synthesis_out)


@router.query("compare")
def compare(ctx: Context, input: CompareIn) -> CompareOut:
    """Two syntheses side by side and the difference of their random-effects estimates, taken as
    independent: se = sqrt(se1² + se2²), normal 95% interval, two-sided p-value, the evidence records
    both pooled (sharedStudies: then they are not independent) and a statement."""
    first, second, diff = service.compare(ctx.db, input.first_id, input.second_id, ctx.tenant.reach)
    difference = DifferenceOut(
        estimate=diff.estimate,
        standard_error=diff.standard_error,
        ci_low=diff.ci_low,
        ci_high=diff.ci_high,
        p_value=diff.p_value,
        significant=diff.significant,
        shared_studies=diff.shared_studies,
        n_total=first.n_total + second.n_total,
    )
    return CompareOut(
        first=synthesis_out(first), second=synthesis_out(second), difference=difference, statement=diff.statement
    )
