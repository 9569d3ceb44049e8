"""policyImpact.*: policy impact."""

from __future__ import annotations

from api.intelligence.policy_impact import service
from api.intelligence.policy_impact.models import PolicyImpactItem
from api.intelligence.policy_impact.schemas import ItemOut, ItemRef, ListItemsIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("policyImpact")


@router.query("list")
def list_items(ctx: Context, input: ListItemsIn) -> Page[ItemOut]:
    """Items of the selected client, newest first; filter by state and creation days (inclusive)."""
    stmt = service.list_statement(state=input.state, created_from=input.created_from, created_to=input.created_to)
    return paginate(ctx.db, stmt, PolicyImpactItem.id, input, ItemOut.model_validate)


@router.query("get")
def get(ctx: Context, input: ItemRef) -> ItemOut:
    """One item of the selected client."""
    return ItemOut.model_validate(service.get(ctx.db, input.id))
