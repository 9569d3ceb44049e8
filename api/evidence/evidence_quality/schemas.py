"""Inputs and outputs of evidenceQuality.*."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, Schema


class CaseRef(Schema):
    case_id: DbId


class ScoreOut(Output):
    case_id: int
    denial_category: str | None
    rule: str = Field(description="The requirement used: the denial category, or 'default'")
    required: list[str]
    recommended: list[str]
    present: list[str] = Field(description="Document types among the case's active documents")
    missing: list[str] = Field(description="Required types not present")
    completeness: float = Field(description="Required types present / required types")
    strength: float = Field(
        description="0-1: mean best quality of the required types (1 full text, 0.75 short text, 0.5 no text, "
        "0 missing) x (0.8 + 0.2 x share of recommended types present)"
    )
    documents: int


class GapOut(Output):
    doc_type: str
    kind: Literal["missing", "weak", "recommended"]
    message: str


class GapsOut(Output):
    case_id: int
    denial_category: str | None
    rule: str
    gaps: list[GapOut]
