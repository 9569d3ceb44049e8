"""Inputs and outputs of migrationFactory.*."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import SINGLE_LINE
from api.rpc.uploads import UploadedFileField

Kind = Literal["denials", "open_ar"]
State = Literal["planned", "dry_run", "committed"]
Outcome = Literal["create", "match", "refuse"]
MAX_ROWS_PAGE = 500


class PlanIn(Schema):
    """The old system's export (a multipart part 'file', or JSON 'filename' + 'content'/'contentBase64'),
    what it holds and where it comes from."""

    file: UploadedFileField | None = None
    filename: str | None = Field(default=None, max_length=255, description="Required with content/contentBase64")
    content: str | None = Field(default=None, description="The CSV as UTF-8 text (JSON callers, small files)")
    content_base64: str | None = Field(default=None, description="The file's bytes, base64-encoded (JSON callers)")
    kind: Kind = Field(description="denials: open denials; open_ar: open receivables")
    source_system: Annotated[str, Field(min_length=2, max_length=120), SINGLE_LINE] = Field(
        description="The old system's name, e.g. 'Legacy PM 4.2'"
    )


class MigrationRef(Schema):
    id: DbId


class GetMigrationIn(Schema):
    id: DbId
    rows_after: int = Field(default=0, ge=0, le=10_000_000, description="Lines after this row number")
    rows_limit: int = Field(default=100, ge=1, le=MAX_ROWS_PAGE)
    outcome: Outcome | None = Field(default=None, description="Only lines with this outcome (after a dry run)")


class ListMigrationsIn(PageInput):
    state: State | None = None
    kind: Kind | None = None


class RefusalOut(Output):
    field: str = Field(description="The field (camelCase), or 'row'")
    reason: str


class RowOut(Output):
    row_number: int = Field(description="The line in the file (the header is row 1)")
    values: dict[str, str] = Field(description="What was read, normalized; unknown columns are never kept")
    refusals: list[RefusalOut]
    outcome: Outcome | None = Field(description="None until the dry run")
    plan: dict[str, Any] = Field(
        description="The dry run's decision: claim/case {action create|match, id, state, updates}, or refusals"
    )
    claim_id: int | None = Field(description="After the commit: the claim created or matched")
    case_id: int | None = Field(description="After the commit: the denial case created or matched")


class CountsOut(Output):
    rows: int = 0
    created: int = 0
    matched: int = 0
    refused: int = 0
    claims_created: int = 0
    claims_matched: int = 0
    cases_created: int = 0
    cases_matched: int = 0
    updates: int = Field(default=0, description="Blank fields of matched claims/cases the migration fills")


class MigrationOut(Output):
    id: int
    kind: Kind
    source_system: str
    filename: str
    content_sha256: str
    columns: dict[str, str] = Field(description="field -> the header it was read from")
    ignored_columns: list[str] = Field(description="Headers not read (and not stored)")
    row_count: int
    state: State
    allowed_moves: list[str]
    state_changed_at: datetime
    counts: CountsOut = Field(description="Refused lines after planning; every outcome after the dry run")
    plan_digest: str | None = Field(description="SHA-256 of the dry run's plan; a commit needs it unchanged")
    planned_by_user_id: int | None
    created_at: datetime
    dry_run_by_user_id: int | None
    dry_run_at: datetime | None
    committed_by_user_id: int | None
    committed_at: datetime | None


class MigrationDetailOut(MigrationOut):
    rows: list[RowOut] = Field(description="Lines in row order, a page of at most rowsLimit")
    next_rows_after: int | None = Field(description="Send as rowsAfter for the next lines; None at the end")
