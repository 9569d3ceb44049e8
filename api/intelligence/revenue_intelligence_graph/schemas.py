"""Inputs and outputs of revenueIntelligenceGraph.*."""

from __future__ import annotations

from pydantic import Field

from api.infra.marts.inputs import MonthRange
from api.infra.marts.serving import MartAnswer, Money
from api.intelligence.revenue_intelligence_graph.flows import MAX_NODES, MIN_NODES
from api.rpc.schema import Output


class GraphIn(MonthRange):
    """Adjudication months (the payer's first decision of the claim; default: every month) and the node cap."""

    max_nodes: int = Field(
        default=60,
        ge=MIN_NODES,
        le=MAX_NODES,
        description=f"At most {MAX_NODES}: each layer keeps maxNodes // 3 nodes, the rest folded into `(other)`",
    )


class _Figures(Output):
    denied: Money = Field(description="Denied amount (the weight)")
    recovered: Money = Field(description="What the payers' overturns recovered of it (allocated by denied amount)")
    adjustments: int = Field(description="Denial adjustments (CAS amounts) counted")
    share: float = Field(description="Of the total denied amount, 0..1")


class FlowNodeOut(_Figures):
    id: str = Field(description="layer:name, e.g. payer:ACME, category:medical_necessity, service:99213")
    layer: str = Field(description="payer | category | service")
    name: str = Field(
        description="The payer key, the denial category, or the service: CPT/HCPCS code, rev:<revenue code>, "
        "(claim level); (other): the folded rest of the layer"
    )
    folded: int = Field(description="How many names the (other) node holds; 0 otherwise")
    in_degree: int
    out_degree: int


class FlowEdgeOut(_Figures):
    source: str
    target: str


class GraphTotalOut(Output):
    denied: Money
    recovered: Money
    adjustments: int


class GraphOut(MartAnswer):
    nodes: list[FlowNodeOut] = Field(description="Payers, then categories, then services; heaviest first")
    edges: list[FlowEdgeOut] = Field(description="payer -> category and category -> service, heaviest first")
    total: GraphTotalOut = Field(
        description="Every denial of the months: the sum out of the payers = the sum into the services"
    )
    folded: dict[str, int] = Field(description="Per layer, how many names were folded into its (other) node")
    flows_truncated: bool = Field(description="More cells than the read cap: the graph holds the heaviest only")
