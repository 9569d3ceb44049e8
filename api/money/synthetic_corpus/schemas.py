"""Inputs and outputs of syntheticCorpus.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import Field

from api.rpc.schema import Output, PageInput, Schema

MAX_SYNC_CLAIMS = 50_000


class DenialMixIn(Schema):
    denial_rate: float = Field(default=0.11, ge=0, le=0.6, description="Share of claims denied first time")
    overturn_rate: float = Field(default=0.35, ge=0, le=1)
    underpayment_rate: float = Field(default=0.03, ge=0, le=1)


class GenerateIn(Schema):
    seed: int = Field(default=42, ge=0)
    claims: int = Field(default=1000, ge=1, description=f"Up to {MAX_SYNC_CLAIMS:,} here; larger corpora: use the CLI")
    start: date = date(2026, 1, 1)
    months: int = Field(default=6, ge=1, le=60)
    payers: int = Field(default=8, ge=2)
    facilities: int = Field(default=2, ge=1)
    claims_per_file: int = Field(default=5000, ge=1)
    denial_mix: DenialMixIn = Field(default_factory=DenialMixIn)
    write_csv: bool = True


class CorpusRef(Schema):
    corpus_id: int = Field(ge=1)


class CorpusFileOut(Output):
    name: str
    sha256: str
    bytes: int


class CorpusOut(Output):
    id: int
    status: str
    seed: int
    claims: int
    spec: dict[str, Any]
    generator_version: str | None
    files: list[CorpusFileOut]
    created_at: datetime
    finished_at: datetime | None


class CorpusDetailOut(CorpusOut):
    manifest: dict[str, Any]
    ground_truth_summary: dict[str, Any] = Field(
        description="counts, x12 and money totals, denials, overturned, underpaid"
    )


class ListCorporaIn(PageInput):
    pass
