"""revenueIntelligenceGraph.*: revenue intelligence graph."""

from __future__ import annotations

from api.intelligence.revenue_intelligence_graph import service
from api.intelligence.revenue_intelligence_graph.models import RevenueIntelligenceGraphItem
from api.intelligence.revenue_intelligence_graph.schemas import ItemOut, ItemRef, ListItemsIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("revenueIntelligenceGraph")


@router.query("list")
def list_items(ctx: Context, input: ListItemsIn) -> Page[ItemOut]:
    """Items of the selected client, newest first; filter by state and creation days (inclusive)."""
    stmt = service.list_statement(state=input.state, created_from=input.created_from, created_to=input.created_to)
    return paginate(ctx.db, stmt, RevenueIntelligenceGraphItem.id, input, ItemOut.model_validate)


@router.query("get")
def get(ctx: Context, input: ItemRef) -> ItemOut:
    """One item of the selected client."""
    return ItemOut.model_validate(service.get(ctx.db, input.id))
