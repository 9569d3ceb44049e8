"""actionTaxonomy.*: the vocabulary of recovery actions."""

from __future__ import annotations

from dataclasses import asdict

from api.core.errors import InvalidInput
from api.intelligence.action_taxonomy import catalogue, service
from api.intelligence.action_taxonomy.schemas import (
    ActionOut,
    ActionsOut,
    ListActionsIn,
    UpsertActionIn,
    UpsertActionOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("actionTaxonomy")


def _out(action: service.Action) -> ActionOut:
    return ActionOut.model_validate({**asdict(action), "applies_to": list(action.applies_to)})


@router.query("list")
def list_actions(ctx: Context, input: ListActionsIn) -> ActionsOut:
    """The built-in actions (appeal levels, external review, corrected claim, reopening, peer-to-peer, payer
    call, patient billing, write-off) and the client's own, ordered by key; filter by kind, by a denial
    category the action applies to, inactive ones included on request; paginated by key."""
    actions = service.listed(ctx.db, kind=input.kind, category=input.category, include_inactive=input.include_inactive)
    if input.cursor is not None:
        if catalogue.check_key(input.cursor):
            raise InvalidInput("Invalid input: 'cursor' is not a nextCursor of actionTaxonomy.list")
        actions = [a for a in actions if a.key > input.cursor]
    page = actions[: input.limit]
    more = len(actions) > input.limit
    return ActionsOut(items=[_out(a) for a in page], next_cursor=page[-1].key if more else None)


@router.mutation("upsert")
def upsert(ctx: Context, input: UpsertActionIn) -> UpsertActionOut:
    """Create or update one of the client's own actions by key. A built-in key is a CONFLICT: built-ins
    mean the same for every client; add your own action under another key to use another effort."""
    change = service.ActionChange(
        key=input.key,
        label=input.label,
        kind=input.kind,
        effort_hours=input.effort_hours,
        applies_to=tuple(input.applies_to),
        active=input.active,
    )
    action, created = service.upsert(ctx.db, change, user_id=ctx.user_id)
    ctx.note("recovery_action", action.key, after={"key": action.key, "kind": action.kind, "active": action.active})
    return UpsertActionOut(action=_out(action), created=created)
