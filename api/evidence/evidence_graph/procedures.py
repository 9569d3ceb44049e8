"""evidenceGraph.*: which documents support which cases, claims and appeal packets, and how they connect."""

from __future__ import annotations

from api.evidence.evidence_control import service as control
from api.evidence.evidence_graph import service
from api.evidence.evidence_graph.schemas import LinkIn, LinkOut, NeighboursOut, NodeOut, NodeRef, PathIn, PathOut
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("evidenceGraph")


@router.query("neighbours")
def neighbours(ctx: Context, input: NodeRef) -> NeighboursOut:
    """The nodes linked to a document (its cases, claims, appeal packets) or to a case, claim or appeal
    packet (its documents, purged ones flagged). A document, case or claim not in the client is NOT_FOUND."""
    node = (input.kind, input.id)
    service.check_node(ctx.db, node)
    described = service.describe(ctx.db, [node, *service.neighbours(ctx.db, node)])
    return NeighboursOut(
        node=NodeOut.model_validate(described[0]), neighbours=[NodeOut.model_validate(n) for n in described[1:]]
    )


@router.query("path")
def path(ctx: Context, input: PathIn) -> PathOut:
    """The shortest chain of links from one node to another (breadth-first, at most `maxDepth` links and
    5,000 nodes visited); `found: false` when there is none within the bound."""
    found = service.path(ctx.db, (input.from_.kind, input.from_.id), (input.to.kind, input.to.id), input.max_depth)
    if found is None:
        return PathOut(found=False, hops=None, nodes=[])
    return PathOut(
        found=True, hops=len(found) - 1, nodes=[NodeOut.model_validate(n) for n in service.describe(ctx.db, found)]
    )


@router.mutation("link")
def link(ctx: Context, input: LinkIn) -> LinkOut:
    """Link a document to a case, a claim or an appeal packet of the same client (idempotent). A document,
    case or claim not in the client is NOT_FOUND; a purged document is PRECONDITION_FAILED."""
    control.link_document(ctx.db, input.document_id, input.target_kind, input.target_id)
    ctx.note("evidence_document", input.document_id, after=input.model_dump())
    return LinkOut(document_id=input.document_id, target_kind=input.target_kind, target_id=input.target_id)
