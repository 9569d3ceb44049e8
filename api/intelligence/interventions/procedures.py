"""interventions.*: interventions against denial patterns."""

from __future__ import annotations

from typing import Any

from api.intelligence.interventions import service
from api.intelligence.interventions.models import Intervention
from api.intelligence.interventions.schemas import CreateIn, InterventionOut, InterventionRef, ListIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("interventions")


def intervention_out(row: Intervention) -> InterventionOut:
    """The wire form of an intervention, its scope as one object."""
    scope: dict[str, Any] = {
        "payer_key": row.payer_key,
        "category": row.category,
        "carc": row.carc,
        "service_line": row.service_line,
        "facility": row.facility,
    }
    return InterventionOut.model_validate(
        {c: getattr(row, c) for c in InterventionOut.model_fields if c != "scope"} | {"scope": scope}
    )


@router.mutation("create")
def create(ctx: Context, input: CreateIn) -> InterventionOut:
    """Plan an intervention against a pattern (patternKey, 16 hex) with an action key (a slug such as
    "eligibility-recheck"), its scope (category required; payer, CARC, service line and facility narrow it)
    and the start date from which its effect is measured. The intervention starts "planned"."""
    s = input.scope
    new = service.NewIntervention(
        name=input.name,
        pattern_key=input.pattern_key,
        action_key=input.action_key,
        category=s.category,
        start_date=input.start_date,
        payer_key=s.payer_key,
        carc=s.carc,
        service_line=s.service_line,
        facility=s.facility,
        description=input.description,
    )
    row = service.create(ctx.db, new, user_id=ctx.user_id)
    ctx.note("intervention", row.id)
    return intervention_out(row)


@router.query("list")
def list_interventions(ctx: Context, input: ListIn) -> Page[InterventionOut]:
    """The client's interventions, newest first; filter by state, pattern key and action key; paginated."""
    stmt = service.list_statement(state=input.state, pattern_key=input.pattern_key, action_key=input.action_key)
    return paginate(ctx.db, stmt, Intervention.id, input, intervention_out)


@router.query("get")
def get(ctx: Context, input: InterventionRef) -> InterventionOut:
    """One intervention of the selected client with its scope, state and dates."""
    return intervention_out(service.get(ctx.db, input.id))
