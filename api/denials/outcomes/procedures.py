"""outcomes.*: payer decisions on appeals and the money they recovered."""

from __future__ import annotations

from api.denials.outcomes import service
from api.denials.outcomes.models import AppealOutcome
from api.denials.outcomes.schemas import ListOutcomesIn, OutcomeOut, OutcomeRef, RecordedOutcomeOut, RecordOutcomeIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("outcomes")


@router.mutation("record")
def record(ctx: Context, input: RecordOutcomeIn) -> RecordedOutcomeOut:
    """Record the payer's decision on a case's appeal (level, won / partially_won / lost / withdrawn, the
    amount recovered, the decision date, the payer's reference). The case must be in_appeal or
    awaiting_payer (else PRECONDITION_FAILED naming its state); it moves to the decision's state (a
    withdrawn appeal back to in_appeal) and its recovered amount grows by the amount. The amount is 0
    for lost or withdrawn, at most what is still at stake, and less than that for a partial win. The
    worklist's overturn probabilities of the case's category are refreshed in the same transaction."""
    data = service.NewOutcome(
        case_id=input.case_id,
        decision=input.decision,
        decided_on=input.decided_on,
        level=input.level,
        amount_recovered=input.amount_recovered,
        payer_reference=input.payer_reference,
    )
    outcome, case = service.record(ctx.db, data, user_id=ctx.user_id)
    ctx.services.outcome_recorded.emit(ctx.db, case.id)  # e.g. humanAttention rescoring the category
    ctx.note("appeal_outcome", outcome.id, after=service.audit_view(outcome, case))
    return RecordedOutcomeOut.model_validate(
        {**OutcomeOut.model_validate(outcome).model_dump(), "case_recovered_amount": case.recovered_amount}
    )


@router.query("get")
def get(ctx: Context, input: OutcomeRef) -> OutcomeOut:
    """One recorded decision with the case's state before and after it and who recorded it when."""
    return OutcomeOut.model_validate(service.get(ctx.db, input.id))


@router.query("list")
def list_outcomes(ctx: Context, input: ListOutcomesIn) -> Page[OutcomeOut]:
    """Recorded decisions of the selected client, most recently recorded first; filter by case,
    decision, payer and decision-date range (inclusive)."""
    stmt = service.list_statement(
        case_id=input.case_id,
        decision=input.decision,
        payer=input.payer,
        decided_from=input.decided_from,
        decided_to=input.decided_to,
    )
    return paginate(ctx.db, stmt, AppealOutcome.id, input, OutcomeOut.model_validate)
