"""caseRecovery.*: the recovery plan of a case and the money recovered, per case and in total."""

from __future__ import annotations

from decimal import Decimal

from api.denials.case_recovery import service
from api.denials.case_recovery.schemas import (
    CasePlanOut,
    CaseRef,
    PlanOut,
    RecordRecoveryIn,
    RecoveredTotalRow,
    RecoveredTotalsIn,
    RecoveredTotalsOut,
    RecoveryOut,
    SetPlanIn,
)
from api.denials.cases import service as cases
from api.denials.cases.models import DenialCase
from api.denials.cases.rules import ZERO, money
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("caseRecovery")


def _plan_out(ctx: Context, case: DenialCase) -> CasePlanOut:
    recovered = Decimal(case.recovered_amount)
    by_hand = Decimal(case.recovered_by_hand)
    events = service.recoveries_of(ctx.db, case.id)
    return CasePlanOut(
        id=case.id,
        state=case.state,
        plan=PlanOut.model_validate(case.recovery_plan or {}),
        amount_at_stake=case.amount_at_stake,
        paid_before=case.paid_before,
        recovered_amount=recovered,
        recovered_by_hand=by_hand,
        recovered_from_ledger=money(recovered - by_hand),
        written_off_amount=case.written_off_amount,
        remaining=money(max(case.amount_at_stake - recovered - case.written_off_amount, ZERO)),
        recoveries=[
            RecoveryOut(
                event_id=e.id,
                kind=e.kind,
                amount=Decimal(str(e.details.get("delta") or "0")),
                source=e.details.get("source") or ("ledger" if e.kind == "ledger_update" else None),
                reference=e.details.get("reference"),
                actor_user_id=e.actor_user_id,
                recorded_at=e.created_at,
            )
            for e in events
        ],
    )


@router.query("plan")
def plan(ctx: Context, input: CaseRef) -> CasePlanOut:
    """A case's recovery plan and its money: at stake, paid before, recovered (from the ledger and by
    hand), written off, what remains, and every recovery recorded with its date."""
    return _plan_out(ctx, cases.get_case(ctx.db, input.id))


@router.mutation("setPlan")
def set_plan(ctx: Context, input: SetPlanIn) -> CasePlanOut:
    """Set a case's recovery plan: strategy, expected recovery (at most the amount at stake), next step."""
    given = input.model_dump(exclude={"id"}, mode="json")
    case = service.set_plan(ctx.db, input.id, given, user_id=ctx.user_id)
    ctx.note("case", case.id, after={"strategy": input.strategy})
    return _plan_out(ctx, case)


@router.mutation("recordRecovery")
def record_recovery(ctx: Context, input: RecordRecoveryIn) -> CasePlanOut:
    """Record money recovered outside the remittances (source and reference), adding to the case's
    recovered amount. Refused when it would exceed the amount at stake (the message says how much
    more fits) or for a closed case."""
    before = cases.get_case(ctx.db, input.id).recovered_amount
    case = service.record_recovery(ctx.db, input.id, input.amount, input.source, input.reference, user_id=ctx.user_id)
    ctx.note(
        "case", case.id, before={"recovered": f"{before:.2f}"}, after={"recovered": f"{case.recovered_amount:.2f}"}
    )
    return _plan_out(ctx, case)


@router.query("recoveredTotals")
def recovered_totals(ctx: Context, input: RecoveredTotalsIn) -> RecoveredTotalsOut:
    """Money recovered on the client's cases by payer, category, owner and month of recovery (the
    month of the event that recorded it, UTC), optionally between two dates."""
    total, rows = service.recovered_totals(ctx.db, input.from_date, input.to_date)
    return RecoveredTotalsOut(
        from_date=input.from_date,
        to_date=input.to_date,
        total=total,
        rows=[RecoveredTotalRow.model_validate(r) for r in rows],
    )
