"""revenueGraph.*: a claim's lineage from its remittances to its denial cases, their outcomes and the money."""

from __future__ import annotations

from dataclasses import asdict

from api.intelligence.revenue_graph import lineage, service
from api.intelligence.revenue_graph.schemas import EdgeOut, ForClaimIn, ForClaimOut, NodeOut, TotalsOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("revenueGraph")


@router.query("forClaim")
def for_claim(ctx: Context, input: ForClaimIn) -> ForClaimOut:
    """Claim -> remittance -> case -> outcome -> money, as a graph: the claim (by id or claim key); each
    remittance of it per payer in ledger order (adjudication, reversal, the correction after it,
    recoupment, PLB) with its billed, paid, denied, adjusted and patient amounts; each denial case with its
    state and amounts; each appeal outcome; the payments, recoveries and write-offs; typed edges between
    them; at most `maxNodes` (<= 500) nodes, `truncated` when more. Totals over every record reconcile:
    billed, each payer's paid / denied / adjusted / patient responsibility (balanced against its CLP03s),
    what the cases have at stake, recovered and wrote off. Another client's or an unknown claim: NOT_FOUND."""
    claim, found = service.for_claim(
        ctx.db, claim_id=input.claim_id, claim_key=input.claim_key, max_nodes=input.max_nodes
    )
    nodes, edges = lineage.serialise(found.graph)
    return ForClaimOut(
        claim_id=claim.id,
        claim_key=claim.claim_key,
        nodes=[NodeOut.model_validate(n) for n in nodes],
        edges=[EdgeOut.model_validate(e) for e in edges],
        truncated=found.truncated,
        totals=TotalsOut.model_validate(asdict(found.totals)),
    )
