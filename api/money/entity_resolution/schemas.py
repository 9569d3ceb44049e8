"""Inputs and outputs of entityResolution.*. No field carries a patient's data: identities are ids,
claims are the platform's claim keys, payers are spellings (not PHI)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE

CandidateKind = Literal["patient", "payer", "claim"]
PayerSpelling = Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]


class CandidatesIn(PageInput):
    kind: CandidateKind
    min_score: float | None = Field(
        default=None,
        ge=0,
        le=1000,
        description="Default: the kind's review threshold (patient 12 bits, claim 0.6, payer 0.8); never lower",
    )


class FieldOut(Output):
    field: str
    level: str = Field(description="agree | partial | disagree | missing")
    weight: float = Field(description="What this field adds to the score (bits for patients, share for claims)")


class CandidateOut(Output):
    kind: str
    id: int | None = Field(description="The candidate (patient, claim); None for a payer spelling")
    left_id: int | None = Field(description="Identity (patient) or claim record (claim) id; None for a payer")
    right_id: int | None
    left_refs: list[str] = Field(description="source:claim key of the left side (up to 5 for an identity)")
    right_refs: list[str]
    spelling: str | None = Field(description="Payer: the spelling seen in the files")
    suggested_payer: str | None = Field(description="Payer: the best-matching known canonical payer key")
    score: float
    fields: list[FieldOut]


class MergeIn(Schema):
    kind: CandidateKind
    left_id: DbId | None = Field(default=None, description="patient / claim: one identity or claim record")
    right_id: DbId | None = Field(default=None, description="patient / claim: the other")
    spelling: PayerSpelling | None = Field(default=None, description="payer: the spelling to alias")
    canonical_payer_key: PayerSpelling | None = Field(default=None, description="payer: the payer it is")

    @model_validator(mode="after")
    def _one_shape(self) -> Self:
        if self.kind == "payer":
            if self.spelling is None or self.canonical_payer_key is None or self.left_id or self.right_id:
                raise ValueError("a payer merge takes spelling and canonicalPayerKey, not ids")
        elif self.left_id is None or self.right_id is None or self.spelling or self.canonical_payer_key:
            raise ValueError("a patient or claim merge takes leftId and rightId, not payer spellings")
        return self


#: Why a merge is undone, from a fixed list: free text could carry a patient's name into the link's history.
SplitReason = Literal["different_patients", "different_claims", "different_payers", "entered_in_error"]


class SplitIn(Schema):
    link_id: DbId
    reason: SplitReason


class LinkOut(Output):
    id: int
    kind: str
    left_ref: str
    right_ref: str
    candidate_id: int | None
    score: float | None
    state: str = Field(description="active | split")
    merged_by: int
    created_at: datetime
    split_by: int | None
    split_at: datetime | None
    split_reason: str | None


class PayerAliasesIn(PageInput):
    alias_kind: Literal["payer_id", "payer_name"] | None = None
    canonical_payer_key: PayerSpelling | None = Field(default=None, description="Only this payer's aliases")


class PayerAliasOut(Output):
    id: int
    alias_kind: str
    alias: str
    canonical_payer_key: str
    canonical_payer_id: str | None
    payer_class: str | None
    created_at: datetime
