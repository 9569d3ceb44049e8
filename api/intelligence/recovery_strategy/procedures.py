"""recoveryStrategy.*: a manager's strategy per payer x category, and the history's suggestion."""

from __future__ import annotations

from api.core.errors import PreconditionFailed
from api.infra.marts.inputs import month_text
from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.action_taxonomy import catalogue
from api.intelligence.recovery_strategy import queries, rule, service
from api.intelligence.recovery_strategy.schemas import (
    CellIn,
    SetStrategyIn,
    SetStrategyOut,
    StrategyAnswer,
    StrategyOut,
    SuggestionOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("recoveryStrategy")


@router.query("get")
def get(ctx: Context, input: CellIn) -> StrategyAnswer:
    """The strategy a manager set for the payer x category (null when none), and the suggestion of the
    published denial history: over the payer x category's last 12 months of denials, appeal when the 95%
    Wilson interval's lower bound of the overturn rate times the average denied amount exceeds the cost of a
    first-level appeal (its effort hours x the cost per hour), write off otherwise; with the sample size and
    the rule in words. Without a snapshot (or without denials in the window) the suggestion is null and
    suggestionNote says why."""
    row = service.find(ctx.db, input.payer_key, input.category)
    strategy = None if row is None else StrategyOut.model_validate(row)
    appeal = catalogue.BY_KEY[rule.APPEAL_KEY]
    cost = catalogue.effort_cost(appeal.effort_hours)
    try:
        with open_marts(ctx, queries.DENIALS_MART) as m:
            history = queries.denial_history(m, input.payer_key, input.category)
            snap = snapshot_of(m)
    except PreconditionFailed as unavailable:
        return StrategyAnswer(
            payer_key=input.payer_key,
            category=input.category,
            strategy=strategy,
            suggestion=None,
            suggestion_note=f"No suggestion. {unavailable.message}",
        )
    found = rule.suggest(history.overturned_claims, history.denied_claims, history.denied_amount, cost)
    if found is None or history.from_month is None or history.to_month is None:
        note = "No suggestion: the published snapshot holds no denial of this payer x category in its last 12 months"
        return StrategyAnswer(
            payer_key=input.payer_key,
            category=input.category,
            strategy=strategy,
            suggestion=None,
            suggestion_note=note,
            snapshot=snap,
        )
    suggestion = SuggestionOut(
        action_key=found.action_key,
        sample_size=found.denied_claims,
        overturned_claims=found.overturned_claims,
        overturn_rate=found.overturn_rate,
        rate_low=found.rate_low,
        rate_high=found.rate_high,
        average_denied_amount=found.average_denied_amount,
        pessimistic_recovery=found.pessimistic_recovery,
        appeal_effort_cost=found.appeal_effort_cost,
        from_month=month_text(history.from_month),
        to_month=month_text(history.to_month),
        rule=found.rule,
    )
    return StrategyAnswer(
        payer_key=input.payer_key,
        category=input.category,
        strategy=strategy,
        suggestion=suggestion,
        suggestion_note=found.rule,
        snapshot=snap,
    )


@router.mutation("set", permission="approve")
def set_strategy(ctx: Context, input: SetStrategyIn) -> SetStrategyOut:
    """Set the strategy of a payer x category to an active action of the taxonomy that applies to the
    category, with an optional note; replaces the previous one (kept in the audit log). Managers and admins
    only (the 'approve' permission): anyone else is FORBIDDEN."""
    row, before = service.set_strategy(
        ctx.db, input.payer_key, input.category, input.action_key, input.note, user_id=ctx.user_id
    )
    ctx.note("recovery_strategy", row.id, before=before, after={"action_key": row.action_key, "note": row.note})
    return SetStrategyOut(
        payer_key=row.payer_key,
        category=row.category,
        strategy=StrategyOut.model_validate(row),
        previous_action_key=None if before is None else before["action_key"],
    )
