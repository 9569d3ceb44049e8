"""``read_tabular``: bytes of a CSV/TSV/pipe/XLSX/JSON export -> validated canonical frame."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from pipelines.ingest.detect import DetectedFormat, detect_format
from pipelines.ingest.tabular.delimited import read_delimited
from pipelines.ingest.tabular.entities import entity_spec
from pipelines.ingest.tabular.errors import TabularFileError
from pipelines.ingest.tabular.jsonrows import read_json_rows
from pipelines.ingest.tabular.profiles import ConnectorProfile
from pipelines.ingest.tabular.raw import RawTable
from pipelines.ingest.tabular.spreadsheet import read_xlsx
from pipelines.ingest.tabular.validate import canonicalise, summarise_errors
from pipelines.ingest.tabular.workbook_guard import SpreadsheetLimits

_DELIMITED = {"csv", "tsv", "psv"}


@dataclass(frozen=True)
class TabularResult:
    """Outcome of reading one tabular file."""

    entity: str
    profile_used: str
    """Profile name, or ``auto:<entity>`` when headers were matched by synonyms."""
    rows: pl.DataFrame
    """Canonical columns + row_number, row_status ('valid'|'invalid'), row_errors (list[str])."""
    header_row: int
    """1-based line (sheet row for XLSX; 0 for JSON, which has no header line)."""
    errors_summary: dict[str, int]
    """Field -> number of invalid rows with an error on it."""
    source_format: str = ""
    encoding: str = ""
    unmapped_columns: tuple[str, ...] = field(default=())

    @property
    def invalid_count(self) -> int:
        """Number of rows flagged invalid."""
        return int((self.rows["row_status"] == "invalid").sum())


def read_tabular(
    data: bytes,
    *,
    filename: str,
    profile: ConnectorProfile | None = None,
    spreadsheet_limits: SpreadsheetLimits | None = None,
) -> TabularResult:
    """Detect, read and validate a tabular export.

    Raises ``TabularFileError`` (with the line when known) when the file as a
    whole cannot be read, ``SpreadsheetRefused`` (a subclass) when a workbook is
    beyond ``spreadsheet_limits`` (defaults when None); bad values only flag their rows.
    """
    detected = detect_format(data, filename)
    raw = _read_raw(data, detected, profile, spreadsheet_limits)
    spec = entity_spec(raw.header.entity)
    rows = canonicalise(
        raw.frame,
        spec,
        date_format=profile.date_format if profile else None,
        money_format=profile.money_format if profile else "us",
    )
    mapped = set(raw.header.columns)
    unmapped = tuple(name for pos, name in enumerate(raw.header.source_names) if pos not in mapped and name.strip())
    return TabularResult(
        entity=spec.name,
        profile_used=profile.name if profile else f"auto:{spec.name}",
        rows=rows,
        header_row=raw.header_line,
        errors_summary=summarise_errors(rows),
        source_format=detected.kind,
        encoding=raw.encoding,
        unmapped_columns=unmapped,
    )


def _read_raw(
    data: bytes, detected: DetectedFormat, profile: ConnectorProfile | None, limits: SpreadsheetLimits | None
) -> RawTable:
    entity = profile.entity if profile else None
    column_map = profile.column_map if profile else None
    if detected.kind in _DELIMITED:
        delimiter = (profile.delimiter if profile and profile.delimiter else None) or detected.detail.get(
            "delimiter", ","
        )
        return read_delimited(data, delimiter=delimiter, entity=entity, column_map=column_map)
    if detected.kind == "xlsx":
        return read_xlsx(data, entity=entity, column_map=column_map, limits=limits)
    if detected.kind == "json":
        return read_json_rows(data, entity=entity, column_map=column_map)
    raise TabularFileError(f"this is an {detected.kind} file, not a tabular export; use the X12 parser")
