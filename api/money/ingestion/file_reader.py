"""Turning an uploaded file into import rows: detect, parse, summarise.

Pure (bytes in, `ParsedFile` out) so the job queue can run it later for big
files. A file that cannot be parsed raises `ParseFailure` carrying a report
(file, segment or line, what was expected) with no partial rows; a file that
is not a format we read raises `UnsupportedFormat`.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl

from api.money.ingestion.records import ParsedRow, rows_from_835, rows_from_837, rows_from_tabular
from pipelines.ingest.classify import unknown_carcs
from pipelines.ingest.detect import EmptyFileError, UnknownFormatError, detect_format
from pipelines.ingest.money import ZERO, read_money
from pipelines.ingest.tabular import (
    ConnectorProfile,
    SpreadsheetLimits,
    SpreadsheetRefused,
    TabularFileError,
    read_tabular,
)
from pipelines.ingest.x12 import X12ParseError, parse_x12

# Bump when the rows a file produces change; reprocess records the version it used.
PARSER_VERSION = "ingest-2026.11.1"

TABULAR_FORMATS = frozenset({"csv", "tsv", "psv", "xlsx", "json"})
X12_KINDS = {"x12_835": "era_835", "x12_837": "claims_837"}
TABULAR_KINDS = {
    "claim": "csv_claims",
    "payment": "csv_payments",
    "denial": "csv_denials",
    "deposit": "csv_deposits",
    "contract_term": "csv_contract_terms",
}


class UnsupportedFormat(ValueError):
    """Empty file or a format we do not read; the message says what was seen."""


class FileRefused(ValueError):
    """A file refused for its size or shape (a workbook beyond the limits, or whose reader crashed);
    the message says which limit and what to do. Not a parse failure: nothing about it is a batch."""


@dataclass
class ParseFailure(Exception):
    """The file is in a known format but is broken; `report` says where and what was expected."""

    kind: str
    source_format: str
    report: dict[str, Any]

    def __str__(self) -> str:
        message: str = self.report.get("message", "parse failed")
        return message


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


DETECT_PREFIX_BYTES = 1024 * 1024


def detect_file(path: Path, filename: str) -> str:
    """`detect` for a file too big to hold in memory: the sniffers read only the first bytes, except a
    workbook (its zip directory is at the end) and JSON (checked whole when it is parsed)."""
    with path.open("rb") as fh:
        prefix = fh.read(DETECT_PREFIX_BYTES)
    if prefix.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                if any(name.startswith("xl/") for name in archive.namelist()):
                    return "xlsx"
        except zipfile.BadZipFile:
            pass  # not a workbook: the sniffer names what it is
    if prefix.lstrip()[:1] in (b"[", b"{"):
        return "json"
    return detect(prefix, filename)


def parse_file(
    data: bytes,
    filename: str,
    source_format: str,
    profile: ConnectorProfile | None = None,
    spreadsheet_limits: SpreadsheetLimits | None = None,
) -> ParsedFile:
    """Parse `data` of a detected `source_format` into rows, totals and a quality summary."""
    if source_format in X12_KINDS:
        return _parse_x12(data, filename, source_format)
    if source_format in TABULAR_FORMATS:
        return _parse_tabular(data, filename, source_format, profile, spreadsheet_limits)
    raise UnsupportedFormat(f"{filename}: format {source_format} is not supported")


def _sum(frame: pl.DataFrame, column: str) -> str:
    total = frame[column].sum() if frame.height else None
    return str(Decimal(total if total is not None else 0).quantize(Decimal("0.01")))


def _parse_x12(data: bytes, filename: str, source_format: str) -> ParsedFile:
    kind = X12_KINDS[source_format]
    try:
        result = parse_x12(data, source=filename)
    except X12ParseError as strict_error:
        # A wrong SE/GE/IEA count or control number means segments may have been lost or added
        # on the way, so an upload never posts from it: the batch fails with the report. The
        # report says whether the content parses once the envelope is ignored (the parser's
        # lenient mode, which the warehouse loader keeps using for dropped files).
        try:
            parse_x12(data, source=filename, strict_envelopes=False)
        except X12ParseError as exc:
            raise ParseFailure(kind, source_format, _x12_report(exc, filename)) from None
        report = {
            **_x12_report(strict_error, filename),
            "category": "envelope",
            "lenientParse": True,
            "hint": "the envelope control values are wrong; ask the sender for a corrected file",
        }
        raise ParseFailure(kind, source_format, report) from None
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
        "envelope_warnings": [],
        "header_warnings": list(result.warnings),
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
            "bpr_total": _sum(tables["remittances"].with_columns(_signed_bpr02()), "total_paid"),
        }
        checks_failed = dict(zip(failed["check"].to_list(), failed["len"].to_list(), strict=True))
        quality_summary = {
            **base_quality,
            "checks_run": quality.height,
            "checks_failed": checks_failed,
            "balancing_failed": int(sum(checks_failed.values())),
            "claims": tables["remittance_claims"].height,
            # Codes the reference map does not know: unclassified (never denials) and listed here so that
            # someone classifies them instead of their money silently leaving the denial figures.
            "unknown_carcs": unknown_carcs(tables["remittance_adjustments"]),
        }
        extra = {"imbalance": imbalance(quality, tables), "remittances": remittance_identities(tables["remittances"])}
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
        extra = {}
    return ParsedFile(kind, source_format, rows, totals, quality_summary, extra=extra)


def _x12_report(exc: X12ParseError, filename: str) -> dict[str, Any]:
    return {
        "message": str(exc),
        "file": filename,
        "segmentNumber": exc.segment_number,
        "segmentId": exc.segment_id,
        "expected": exc.expected,
    }


def _signed_bpr02() -> pl.Expr:
    """BPR02 with the sign of BPR03: a debit (D) is money the payer takes back."""
    paid = pl.col("total_paid")
    return pl.when(pl.col("credit_debit") == "D").then(-paid).otherwise(paid).alias("total_paid")


def _money_text(value: Any) -> str:
    """A parsed amount (a Decimal(18, 2) column's value) as exact text; a null amount is 0.00."""
    return f"{read_money(value) or ZERO:.2f}"


def imbalance(quality: pl.DataFrame, tables: dict[str, pl.DataFrame]) -> dict[str, Any] | None:
    """The transactions (BPR02 vs sum CLP04 - sum PLB) and claims (CLP03 - CLP04 vs CAS) that do not
    balance, with their amounts; None when everything balances. Claims are named by their row number
    in the batch, never by patient control number (PHI)."""
    failed = quality.filter(~pl.col("ok") & pl.col("check").is_in(["transaction_balance", "claim_balance"]))
    if failed.height == 0:
        return None
    traces = dict(zip(tables["remittances"]["transaction_index"], tables["remittances"]["trace_number"], strict=True))
    claims = tables["remittance_claims"]["claim_index"].to_list()
    transactions, unbalanced_claims = [], []
    for r in failed.to_dicts():
        amounts = {k: _money_text(r[k]) for k in ("expected", "actual", "difference")}
        if r["check"] == "transaction_balance":
            transactions.append(
                {
                    "transactionIndex": r["transaction_index"],
                    "traceNumber": traces.get(r["transaction_index"]),
                    **amounts,
                }
            )
        else:
            unbalanced_claims.append(
                {"claimIndex": r["claim_index"], "claimOrdinal": claims.index(r["claim_index"]) + 1, **amounts}
            )
    return {"transactions": transactions, "claims": unbalanced_claims}


def remittance_identities(remittances: pl.DataFrame) -> list[dict[str, Any]]:
    """One identity per 835 transaction: payer (N1*PR N104 or REF*2U, else the payer name), TRN02
    trace number, BPR02 signed by BPR03 and the payment date. The same remittance re-sent in a new
    envelope has the same identity, whatever its ISA13 or content hash."""
    out = []
    for r in remittances.with_columns(_signed_bpr02()).to_dicts():
        payer = (r["payer_id"] or r["payer_name"] or "").strip().upper()
        amount = _money_text(r["total_paid"])
        paid_on = r["payment_date"].isoformat() if r["payment_date"] else ""
        trace = (r["trace_number"] or "").strip()
        out.append(
            {
                "transactionIndex": r["transaction_index"],
                "key": f"{payer}|{trace}|{amount}|{paid_on}",
                "traceNumber": trace,
                "amount": amount,
                "paymentDate": paid_on or None,
                "debit": r["credit_debit"] == "D",
                # the payer's order of its remittances (case intake, api/denials/cases/history.py) and
                # its identity as the marts read it (N1*PR N104 / REF*2U, else TRN03)
                "payerId": (r.get("payer_id") or r.get("payer_originating_id") or "").strip().upper() or None,
                "interchangeDate": r.get("interchange_date") or "",
                "interchangeTime": r.get("interchange_time") or "",
                "interchangeControlNumber": r.get("interchange_control_number") or "",
            }
        )
    return out


_TABULAR_TOTALS = {
    "claim": {"total_billed": "billed_amount"},
    "payment": {"total_paid": "paid_amount", "total_adjustment": "adjustment_amount"},
    "denial": {"total_denied": "denied_amount"},
    "deposit": {"total_deposited": "amount"},
    "contract_term": {},
}


def _parse_tabular(
    data: bytes,
    filename: str,
    source_format: str,
    profile: ConnectorProfile | None,
    spreadsheet_limits: SpreadsheetLimits | None,
) -> ParsedFile:
    try:
        result = read_tabular(data, filename=filename, profile=profile, spreadsheet_limits=spreadsheet_limits)
    except SpreadsheetRefused as exc:
        raise FileRefused(f"Cannot import {filename}: {exc.message}") from None
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
