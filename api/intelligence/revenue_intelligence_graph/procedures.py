"""revenueIntelligenceGraph.*: where denied revenue flows, payer -> denial category -> service."""

from __future__ import annotations

from api.infra.marts.serving import open_marts, snapshot_of
from api.intelligence.revenue_intelligence_graph import flows, queries
from api.intelligence.revenue_intelligence_graph.schemas import (
    FlowEdgeOut,
    FlowNodeOut,
    GraphIn,
    GraphOut,
    GraphTotalOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("revenueIntelligenceGraph")


@router.query("graph")
def graph(ctx: Context, input: GraphIn) -> GraphOut:
    """The denied money of the adjudication months as a tripartite graph, payer -> denial category ->
    service (CPT/HCPCS, else revenue code, else claim level), weighted by the denied amount of each payer's
    initial decisions, with the adjustments counted and what overturns recovered; each node with its share
    of the total and its degree. Bounded: at most `maxNodes` (<= 200) nodes, each layer keeping its heaviest
    and folding the rest into one `(other)` node, so the sum out of the payers equals the sum into the
    services equals the total. Names the snapshot."""
    with open_marts(ctx, *queries.MARTS) as m:
        cells, truncated = queries.denied_flows(m, input)
        snap = snapshot_of(m)
    bounded = flows.bound(cells, input.max_nodes)
    nodes, edges = flows.serialise(bounded)
    return GraphOut(
        snapshot=snap,
        nodes=[FlowNodeOut.model_validate(n) for n in nodes],
        edges=[FlowEdgeOut.model_validate(e) for e in edges],
        total=GraphTotalOut.model_validate(vars(bounded.total)),
        folded=bounded.folded,
        flows_truncated=truncated,
    )
