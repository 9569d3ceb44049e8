"""payerInteractions.*: calls, portal checks and correspondence with payers."""

from __future__ import annotations

from api.denials.payer_interactions import service
from api.denials.payer_interactions.models import PayerInteraction
from api.denials.payer_interactions.schemas import ForCaseIn, InteractionOut, ListInteractionsIn, LogInteractionIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("payerInteractions")


@router.mutation("log")
def log(ctx: Context, input: LogInteractionIn) -> InteractionOut:
    """Log a call, portal check or correspondence with a payer on a case (its event history gets a
    `payer_interaction` entry) or on a claim. The caller is recorded as who; `occurredAt` may not be
    in the future; the payer defaults to the case's. The summary is returned to members, never audited."""
    data = service.NewInteraction(
        case_id=input.case_id,
        claim_key=input.claim_key,
        channel=input.channel,
        direction=input.direction,
        occurred_at=input.occurred_at,
        payer=input.payer,
        payer_representative=input.payer_representative,
        reference_number=input.reference_number,
        summary=input.summary,
        outcome=input.outcome,
        next_step=input.next_step,
        next_step_on=input.next_step_on,
    )
    row = service.log(ctx.db, data, user_id=ctx.user_id)
    ctx.note("payer_interaction", row.id, after=service.audit_view(row))
    return InteractionOut.model_validate(row)


@router.query("list")
def list_interactions(ctx: Context, input: ListInteractionsIn) -> Page[InteractionOut]:
    """Interactions of the selected client, most recently logged first; filter by payer, channel,
    case and the day range of `occurredAt` (UTC, inclusive)."""
    stmt = service.list_statement(
        payer=input.payer,
        channel=input.channel,
        case_id=input.case_id,
        occurred_from=input.occurred_from,
        occurred_to=input.occurred_to,
    )
    return paginate(ctx.db, stmt, PayerInteraction.id, input, InteractionOut.model_validate)


@router.query("forCase")
def for_case(ctx: Context, input: ForCaseIn) -> Page[InteractionOut]:
    """Every interaction logged on one case, most recently logged first; NOT_FOUND for a case
    outside the selected client."""
    stmt = service.for_case_statement(ctx.db, input.case_id)
    return paginate(ctx.db, stmt, PayerInteraction.id, input, InteractionOut.model_validate)
