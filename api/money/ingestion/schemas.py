"""Inputs and outputs of ingestion.*. Money is a Decimal in, an exact decimal string on the wire."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, PlainSerializer

from api.rpc.schema import Output, PageInput, Schema

MoneyOut = Annotated[Decimal, PlainSerializer(lambda d: f"{d:.2f}", return_type=str, when_used="json")]
BatchStatus = Literal[
    "parsing", "parsed", "needs_review", "held", "confirmed", "discarded", "failed", "duplicate_remittance"
]
BatchKind = Literal[
    "era_835",
    "claims_837",
    "csv_claims",
    "csv_payments",
    "csv_denials",
    "csv_deposits",
    "csv_contract_terms",
    "tabular_unknown",
]
EntryType = Literal[
    "payment",
    "adjustment",
    "patient_responsibility",
    "denial",
    "reversal",
    "recoupment",
    "provider_adjustment",
    "charge",
    "deposit",
]


class BatchRef(Schema):
    batch_id: int = Field(ge=1)


class ImportBatchOut(Output):
    id: int
    kind: str
    status: BatchStatus
    source_filename: str
    source_format: str | None
    profile_name: str | None
    content_sha256: str
    size_bytes: int
    parser_version: str
    error_report: dict[str, Any] | None
    row_count: int
    valid_count: int
    invalid_count: int
    excluded_count: int
    totals: dict[str, str] = Field(description="Parsed money totals, exact decimal strings")
    quality: dict[str, Any]
    entries_posted: int
    created_by: int | None
    created_at: datetime
    confirmed_by: int | None
    confirmed_at: datetime | None
    imbalance: dict[str, Any] | None = Field(
        description="What does not balance: transactions (BPR02 vs sum CLP04 - sum PLB) and claims, with "
        "expected, actual and difference as exact decimal strings; the batch is held until acknowledged"
    )
    imbalance_ack_reason: str | None
    imbalance_ack_by: int | None
    imbalance_ack_at: datetime | None
    remittances: list[dict[str, Any]] = Field(
        description="The 835 remittances of the file (trace number, signed amount, payment date); "
        "`postedByBatchId` names the batch that already posted one (it is not posted again)"
    )
    redelivery_of_batch_id: int | None = Field(
        description="The batch that already posted this file's remittances (status duplicate_remittance)"
    )


class ImbalanceAck(Schema):
    reason: str = Field(min_length=10, max_length=2000, description="Why posting despite the imbalance is right")


class ConfirmIn(BatchRef):
    acknowledge_imbalance: ImbalanceAck | None = Field(
        default=None, description="Required to confirm a held batch: the reason is recorded on the batch"
    )


class UploadOut(Output):
    batch: ImportBatchOut
    duplicate: bool = Field(description="True when the same content was already uploaded to this client")


class ListBatchesIn(PageInput):
    status: BatchStatus | None = None
    kind: BatchKind | None = None


class ImportRowOut(Output):
    id: int
    batch_id: int
    row_number: int
    entity: str
    parent_row_number: int | None
    data: dict[str, Any]
    status: Literal["valid", "invalid", "repaired"]
    errors: list[str]
    decision: Literal["include", "exclude"]


class ListRowsIn(PageInput):
    batch_id: int = Field(ge=1)
    status: Literal["valid", "invalid", "repaired"] | None = None
    decision: Literal["include", "exclude"] | None = None


class RepairRowIn(Schema):
    row_id: int = Field(ge=1)
    fields: dict[str, str | None] = Field(min_length=1, description="Canonical field -> new value (text)")


class RowDecisionIn(Schema):
    row_id: int = Field(ge=1)
    decision: Literal["include", "exclude"]


class ConfirmOut(Output):
    batch: ImportBatchOut
    entries_posted: int
    posted_totals: dict[str, str] = Field(description="Sum of posted amounts by entry type")


class FinancialEntryOut(Output):
    id: int
    batch_id: int
    row_id: int | None
    entry_type: str
    component: str
    amount: MoneyOut
    claim_key: str | None
    payer_claim_number: str | None
    claim_status_code: str | None
    billed_amount: MoneyOut | None
    payer: str | None
    group_code: str | None
    carc: str | None
    rarcs: list[str]
    denial_category: str | None
    is_denial: bool
    service_date: date | None
    payment_date: date | None
    reference: str | None
    reverses_entry_id: int | None
    review_status: str
    review_note: str | None
    created_at: datetime


class ListEntriesIn(PageInput):
    entry_type: EntryType | None = None
    payer: str | None = Field(default=None, max_length=200)
    claim_key: str | None = Field(default=None, max_length=80)
    batch_id: int | None = None
    date_from: date | None = Field(default=None, description="Payment (or else service) date on or after")
    date_to: date | None = Field(default=None, description="Payment (or else service) date on or before")
    review_status: Literal["unreviewed", "accepted", "flagged"] | None = None


class ReviewEntryIn(Schema):
    entry_id: int = Field(ge=1)
    review_status: Literal["accepted", "flagged"]
    note: str | None = Field(default=None, max_length=2000)


class RunRef(Schema):
    run_id: int = Field(ge=1)


class ReconciliationExceptionOut(Output):
    id: int
    run_id: int
    exception_type: str
    claim_key: str | None
    payer: str | None
    expected_amount: MoneyOut | None
    actual_amount: MoneyOut | None
    detail: str
    entry_ids: list[int]
    status: str
    resolution: str | None
    resolution_note: str | None
    resolved_by: int | None
    resolved_at: datetime | None


class ReconciliationRunOut(Output):
    id: int
    status: str
    started_by: int | None
    created_at: datetime
    finished_at: datetime | None
    claims_considered: int
    remittances_considered: int
    matched: int
    exception_counts: dict[str, int]


class ReconciliationRunDetailOut(ReconciliationRunOut):
    exceptions: list[ReconciliationExceptionOut]


class ResolveExceptionIn(Schema):
    exception_id: int = Field(ge=1)
    resolution: Literal["matched_manually", "write_off", "payer_follow_up", "rebilled", "not_an_issue", "other"]
    note: str = Field(min_length=1, max_length=2000)
