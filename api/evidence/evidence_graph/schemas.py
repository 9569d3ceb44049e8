"""Inputs and outputs of evidenceGraph.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.evidence.evidence_graph.bfs import MAX_DEPTH
from api.rpc.schema import DbId, Output, Schema

NodeKind = Literal["document", "case", "claim", "appeal_packet"]
TargetKind = Literal["case", "claim", "appeal_packet"]


class NodeRef(Schema):
    kind: NodeKind
    id: DbId


class NodeOut(Output):
    kind: str
    id: int
    doc_type: str | None = Field(default=None, description="Documents only")
    purged: bool | None = Field(default=None, description="Documents only: a purged document's tombstone")


class NeighboursOut(Output):
    node: NodeOut
    neighbours: list[NodeOut]


class PathIn(Schema):
    from_: NodeRef = Field(alias="from")
    to: NodeRef
    max_depth: int = Field(default=6, ge=1, le=MAX_DEPTH, description="Most links to follow")


class PathOut(Output):
    found: bool
    hops: int | None
    nodes: list[NodeOut]


class LinkIn(Schema):
    document_id: DbId
    target_kind: TargetKind
    target_id: DbId


class LinkOut(Output):
    document_id: int
    target_kind: str
    target_id: int
