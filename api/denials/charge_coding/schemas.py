"""Inputs and outputs of chargeCoding.*."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from api.rpc.schema import DbId, Output, Schema

Code = Annotated[str, StringConstraints(to_upper=True, pattern=r"^[0-9A-Za-z]{5}$")]
EditKindOut = Literal["ptp", "mue", "modifier", "diagnosis_invalid", "diagnosis_not_billable", "diagnosis_procedure"]


class EditsIn(Schema):
    code: Code = Field(description="A CPT/HCPCS code (5 characters)")
    pair_with: Code | None = Field(default=None, description="Only the PTP rows of this pair, either column order")
    limit: int = Field(default=50, ge=1, le=200, description="PTP rows per page (max 200)")
    cursor: str | None = Field(default=None, max_length=40, description="nextCursor of the previous page")


class ReferenceOut(Output):
    version: str = Field(description="Every table's version, as stored with a validation")
    ptp: str
    mue: str
    icd10cm: str
    ncd: str


class PtpOut(Output):
    table: str
    version: str
    quarter: str
    column_1: str
    column_2: str
    prior_to_1996: bool
    effective: date = Field(description="The first date of service the edit applies to")
    deleted: date | None = Field(description="The last date of service it applies to; null: still in force")
    modifier_indicator: int = Field(description="0 not allowed, 1 allowed with an NCCI-associated modifier, 9 n/a")
    rationale: str


class MueOut(Output):
    table: str
    quarter: str
    code: str
    value: int = Field(description="The most units of the code per line (MAI 1) or per date of service (2, 3)")
    mai: int = Field(description="MUE adjudication indicator: 1 line, 2 date of service (policy), 3 (clinical)")
    mai_description: str
    rationale: str


class NcdOut(Output):
    ncd: str
    title: str
    procedure_code: str
    diagnoses: list[str] = Field(description="ICD-10-CM codes (with dots) that support the test")
    basis: str = Field(description="How the rows were taken from the NCD coding policy manual")


class EditsOut(Output):
    code: str
    pair_with: str | None
    ptp: list[PtpOut]
    next_cursor: str | None
    mue: MueOut | None
    ncd: NcdOut | None
    reference: ReferenceOut


class ValidateIn(Schema):
    claim_id: DbId


class SourceOut(Output):
    table: str
    version: str
    quarter: str
    key: str


class EditOut(Output):
    kind: EditKindOut
    rule: str = Field(description="Which rule of the kind, e.g. ptp_indicator_1, mue_date_of_service")
    severity: Literal["error", "warning"]
    lines: list[int] = Field(description="The claim's line numbers concerned (empty: a claim-level diagnosis)")
    codes: list[str]
    message: str
    source: SourceOut | None = Field(description="The reference row (table, version, quarter, key)")


class ValidationOut(Output):
    id: int
    claim_id: int
    reference_version: str
    lines_checked: int
    error_count: int
    warning_count: int
    edits: list[EditOut]
    unchecked_diagnoses: list[str] = Field(
        description="Diagnoses of categories the reference extract does not hold: not judged"
    )
    created_at: datetime
    created_by: int | None


class CodingDenialsIn(Schema):
    limit: int = Field(default=200, ge=1, le=500, description="The newest coding denials to examine (max 500)")


class KindCount(Output):
    kind: EditKindOut
    cases: int = Field(description="Coding denials an edit of this kind would have caught")


class CarcCount(Output):
    carc: str | None
    cases: int
    caught: int


class CodingDenialOut(Output):
    case_id: int
    carc: str | None
    denial_category: str | None
    claim_id: int | None = Field(description="null: the client has no claim with the case's claim key")
    caught: bool
    caught_by: list[EditKindOut]
    expected_kinds: list[EditKindOut] = Field(description="The edit kinds that prevent the CARC (empty: any)")
    edits: list[EditOut]


class CodingDenialsOut(Output):
    total: int = Field(description="Coding denials examined")
    caught: int = Field(description="Those an edit would have caught before submission")
    share: float | None = Field(description="caught / total; null without coding denials")
    truncated: bool = Field(description="More coding denials exist than the limit")
    by_kind: list[KindCount]
    by_carc: list[CarcCount]
    items: list[CodingDenialOut]
    reference: ReferenceOut
