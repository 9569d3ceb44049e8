"""The evidence links as a graph: a node's neighbours and the shortest path between two nodes."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.evidence.evidence_control import service as control
from api.evidence.evidence_control.models import EvidenceDocument, EvidenceLink
from api.evidence.evidence_graph.bfs import MAX_NODES, Node, shortest_path


def check_node(db: Session, node: Node) -> None:
    """A document, case or claim must exist in the caller's client (NOT_FOUND otherwise). An appeal
    packet is only known by its links, which are the client's own."""
    kind, ident = node
    if kind == "document":
        control.get(db, ident)
    elif kind in ("case", "claim"):
        control.check_target(db, kind, ident)


def neighbours(db: Session, node: Node) -> list[Node]:
    """The nodes linked to `node`, ordered by kind and id."""
    kind, ident = node
    if kind == "document":
        rows = db.execute(
            select(EvidenceLink.target_kind, EvidenceLink.target_id).where(EvidenceLink.document_id == ident)
        ).all()
        return sorted((str(k), int(i)) for k, i in rows)
    ids = db.scalars(
        select(EvidenceLink.document_id).where(EvidenceLink.target_kind == kind, EvidenceLink.target_id == ident)
    ).all()
    return sorted(("document", int(i)) for i in ids)


def path(db: Session, start: Node, goal: Node, max_depth: int) -> list[Node] | None:
    check_node(db, start)
    check_node(db, goal)
    return shortest_path(start, goal, lambda n: neighbours(db, n), max_depth=max_depth, max_nodes=MAX_NODES)


def describe(db: Session, nodes: list[Node]) -> list[dict[str, object]]:
    """The wire form of nodes: documents with their type and whether they were purged."""
    doc_ids = [i for k, i in nodes if k == "document"]
    docs = (
        {d.id: d for d in db.scalars(select(EvidenceDocument).where(EvidenceDocument.id.in_(doc_ids)))}
        if doc_ids
        else {}
    )
    out: list[dict[str, object]] = []
    for kind, ident in nodes:
        doc = docs.get(ident) if kind == "document" else None
        out.append(
            {
                "kind": kind,
                "id": ident,
                "doc_type": doc.doc_type if doc else None,
                "purged": (doc.purged_at is not None) if doc else None,
            }
        )
    return out
