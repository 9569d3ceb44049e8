"""Turning an uploaded file into import rows: detect, parse, summarise.

Pure (bytes in, `ParsedFile` out) so the job queue can run it later for big
files. A file that cannot be parsed raises `ParseFailure` carrying a report
(file, segment or line, what was expected) with no partial rows; a file that
is not a format we read raises `UnsupportedFormat`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import polars as pl

from api.money.ingestion.records import ParsedRow, rows_from_835, rows_from_837, rows_from_tabular
from pipelines.ingest.detect import EmptyFileError, UnknownFormatError, detect_format
from pipelines.ingest.tabular import ConnectorProfile, TabularFileError, read_tabular
from pipelines.ingest.x12 import X12ParseError, parse_x12

# Bump when the rows a file produces change; reprocess records the version it used.
PARSER_VERSION = "ingest-2026.11.1"

TABULAR_FORMATS = frozenset({"csv", "tsv", "psv", "xlsx", "json"})
X12_KINDS = {"x12_835": "era_835", "x12_837": "claims_837"}
TABULAR_KINDS = {"claim": "csv_claims", "payment": "csv_payments", "denial": "csv_denials", "deposit": "csv_deposits"}


class UnsupportedFormat(ValueError):
    """Empty file or a format we do not read; the message says what was seen."""


@dataclass
class ParseFailure(Exception):
    """The file is in a known format but is broken; `report` says where and what was expected."""

    kind: str
    source_format: str
    report: dict[str, Any]

    def __str__(self) -> str:
        return self.report.get("message", "parse failed")


@dataclass
class ParsedFile:
    kind: str
    source_format: str
    rows: list[ParsedRow]
    totals: dict[str, str]
    quality: dict[str, Any]
    profile_name: str | None = None
    parser_version: str = PARSER_VERSION
    extra: dict[str, Any] = field(default_factory=dict)


def detect(data: bytes, filename: str) -> str:
    """The source format ("x12_835", "csv", ...); UnsupportedFormat for empty or unknown content."""
    if not data:
        raise UnsupportedFormat(f"{filename}: the file is empty (0 bytes)")
    try:
        return detect_format(data, filename).kind
    except EmptyFileError as exc:
        raise UnsupportedFormat(f"{filename}: {exc}") from None
    except UnknownFormatError as exc:
        raise UnsupportedFormat(f"{filename}: {exc}") from None


def parse_file(data: bytes, filename: str, source_format: str, profile: ConnectorProfile | None = None) -> ParsedFile:
    """Parse `data` of a detected `source_format` into rows, totals and a quality summary."""
    if source_format in X12_KINDS:
        return _parse_x12(data, filename, source_format)
    if source_format in TABULAR_FORMATS:
        return _parse_tabular(data, filename, source_format, profile)
    raise UnsupportedFormat(f"{filename}: format {source_format} is not supported")


def _sum(frame: pl.DataFrame, column: str) -> str:
    total = frame[column].sum() if frame.height else None
    return str(Decimal(total if total is not None else 0).quantize(Decimal("0.01")))


def _parse_x12(data: bytes, filename: str, source_format: str) -> ParsedFile:
    kind = X12_KINDS[source_format]
    envelope_warnings: list[str] = []
    try:
        result = parse_x12(data, source=filename)
    except X12ParseError as strict_error:
        # Wrong SE/GE/IEA counts and control numbers are common in real files and do not
        # change the money: accept them with a warning, but only if everything else parses.
        try:
            result = parse_x12(data, source=filename, strict_envelopes=False)
        except X12ParseError as exc:
            raise ParseFailure(
                kind,
                source_format,
                {
                    "message": str(exc),
                    "file": filename,
                    "segmentNumber": exc.segment_number,
                    "segmentId": exc.segment_id,
                    "expected": exc.expected,
                },
            ) from None
        envelope_warnings.append(str(strict_error))
    tables = result.tables
    if result.kind != source_format.removeprefix("x12_"):
        raise ParseFailure(
            kind,
            source_format,
            {"message": f"{filename}: detected {source_format} but parsed {result.kind}", "file": filename},
        )
    base_quality = {
        "interchanges": result.interchanges,
        "transactions": result.transactions,
        "segments": result.segments,
        "envelope_warnings": envelope_warnings,
    }
    if result.kind == "835":
        rows = rows_from_835(tables)
        quality = result.quality
        failed = quality.filter(~pl.col("ok")).group_by("check").len()
        totals = {
            "total_charge": _sum(tables["remittance_claims"], "total_charge"),
            "total_paid": _sum(tables["remittance_claims"], "paid_amount"),
            "patient_responsibility": _sum(tables["remittance_claims"], "patient_responsibility"),
            "cas_total": _sum(tables["remittance_adjustments"], "amount"),
            "plb_total": _sum(tables["provider_adjustments"], "amount"),
            "bpr_total": _sum(tables["remittances"], "total_paid"),
        }
        checks_failed = dict(zip(failed["check"].to_list(), failed["len"].to_list(), strict=True))
        quality_summary = {
            **base_quality,
            "checks_run": quality.height,
            "checks_failed": checks_failed,
            "balancing_failed": int(sum(checks_failed.values())),
            "claims": tables["remittance_claims"].height,
        }
    else:
        rows = rows_from_837(tables)
        totals = {"total_charge": _sum(tables["claims"], "total_charge")}
        quality_summary = {
            **base_quality,
            "checks_run": 0,
            "checks_failed": {},
            "balancing_failed": 0,
            "claims": tables["claims"].height,
        }
    return ParsedFile(kind, source_format, rows, totals, quality_summary)


_TABULAR_TOTALS = {
    "claim": {"total_billed": "billed_amount"},
    "payment": {"total_paid": "paid_amount", "total_adjustment": "adjustment_amount"},
    "denial": {"total_denied": "denied_amount"},
    "deposit": {"total_deposited": "amount"},
}


def _parse_tabular(data: bytes, filename: str, source_format: str, profile: ConnectorProfile | None) -> ParsedFile:
    try:
        result = read_tabular(data, filename=filename, profile=profile)
    except TabularFileError as exc:
        kind = TABULAR_KINDS[profile.entity] if profile else "tabular_unknown"
        raise ParseFailure(
            kind,
            source_format,
            {
                "message": f"{filename}: {exc}",
                "file": filename,
                "line": exc.line,
                "expected": exc.message,
            },
        ) from None
    rows = rows_from_tabular(result.entity, result.rows)
    valid = result.rows.filter(pl.col("row_status") == "valid")
    totals = {name: _sum(valid, column) for name, column in _TABULAR_TOTALS[result.entity].items()}
    quality = {
        "errors_by_field": result.errors_summary,
        "header_row": result.header_row,
        "unmapped_columns": list(result.unmapped_columns),
        "encoding": result.encoding,
    }
    return ParsedFile(
        TABULAR_KINDS[result.entity], source_format, rows, totals, quality, profile_name=result.profile_used
    )
