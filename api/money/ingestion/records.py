"""Parsed files as import rows: one canonical record per claim, line, adjustment, PLB or CSV row.

Pure: Polars frames in, plain dicts out. Row `data` holds canonical fields as
JSON-ready values (money as exact decimal strings, dates as ISO strings) and
contains PHI, so it is never logged or put in a message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import polars as pl

from api.money.ingestion import rules
from pipelines.ingest import contract_terms
from pipelines.ingest.classify import ordered_rarcs


@dataclass
class ParsedRow:
    row_number: int
    entity: str
    data: dict[str, Any]
    status: str = "valid"
    errors: list[str] = field(default_factory=list)
    parent_row_number: int | None = None


def _records(frame: pl.DataFrame, columns: list[str] | None = None) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts; money and dates become strings in Polars (vectorised, exact)."""
    if columns is not None:
        frame = frame.select([c for c in columns if c in frame.columns])
    as_text = [
        pl.col(name).cast(pl.String)
        for name, dtype in frame.schema.items()
        if isinstance(dtype, pl.Decimal) or dtype == pl.Date
    ]
    return (frame.with_columns(as_text) if as_text else frame).to_dicts()


_CLAIM_FIELDS = [
    "transaction_index",
    "claim_index",
    "patient_control_number",
    "claim_status_code",
    "total_charge",
    "paid_amount",
    "patient_responsibility",
    "filing_indicator",
    "payer_claim_control_number",
    "facility_type_code",
    "frequency_code",
    "drg_code",
    "patient_last_name",
    "patient_first_name",
    "patient_member_id",
    "insured_member_id",
    "rendering_provider_npi",
    "statement_from",
    "statement_to",
    "claim_received_date",
    "covered_amount",
    "claim_level_adjustment_total",
    "line_adjustment_total",
    "remark_codes",
    "payer_name",
    "payment_date",
    "trace_number",
    "line_count",
    "segment_number",
]
_LINE_FIELDS = [
    "line_index",
    "procedure_qualifier",
    "procedure_code",
    "modifier_1",
    "modifier_2",
    "modifier_3",
    "modifier_4",
    "charge_amount",
    "paid_amount",
    "revenue_code",
    "units",
    "service_date_from",
    "service_date_to",
    "line_control_number",
    "allowed_amount",
    "remark_codes",
    "adjustment_total",
    "segment_number",
]


def _by_claim(records: list[dict[str, Any]]) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """Records grouped by their (transaction, claim) index; the index fields are dropped from each record."""
    grouped: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for record in records:
        grouped.setdefault((record.pop("transaction_index"), record.pop("claim_index")), []).append(record)
    return grouped


def _validated(rows: list[ParsedRow]) -> list[ParsedRow]:
    """Each row checked against the X12 rules: valid, or invalid with its reasons."""
    for row in rows:
        row.errors = rules.validate(row.entity, row.data)
        row.status = "invalid" if row.errors else "valid"
    return rows


def rows_from_835(tables: dict[str, pl.DataFrame]) -> list[ParsedRow]:
    """Claim rows, each followed by its service lines and CAS adjustments; PLB rows last."""
    lines_by_claim = _by_claim(
        _records(tables["remittance_service_lines"], ["transaction_index", "claim_index", *_LINE_FIELDS])
    )
    adjustments_by_claim = _by_claim(_records(tables["remittance_adjustments"]))
    out: list[ParsedRow] = []
    for claim in _records(tables["remittance_claims"], _CLAIM_FIELDS):
        key = (claim["transaction_index"], claim["claim_index"])
        claim_number = len(out) + 1
        out.append(ParsedRow(claim_number, "remittance_claim", claim))
        lines = lines_by_claim.get(key, [])
        for line in lines:
            data = _service_line_data(line, claim)
            out.append(ParsedRow(len(out) + 1, "service_line", data, parent_row_number=claim_number))
        line_by_index = {line["line_index"]: line for line in lines}
        for adj in adjustments_by_claim.get(key, []):
            data = _adjustment_data(adj, claim, line_by_index)
            out.append(ParsedRow(len(out) + 1, "adjustment", data, parent_row_number=claim_number))
    remits = {r["transaction_index"]: r for r in _records(tables["remittances"])}
    for plb in _records(tables["provider_adjustments"]):
        out.append(ParsedRow(len(out) + 1, "provider_adjustment", _provider_adjustment_data(plb, remits)))
    return _validated(out)


def _service_line_data(line: dict[str, Any], claim: dict[str, Any]) -> dict[str, Any]:
    return {
        **line,
        "patient_control_number": claim["patient_control_number"],
        "claim_status_code": claim["claim_status_code"],
    }


def _adjustment_data(
    adj: dict[str, Any], claim: dict[str, Any], line_by_index: dict[Any, dict[str, Any]]
) -> dict[str, Any]:
    """A CAS adjustment with what posting needs from its claim, and from its service line when it is
    a line-level one (the line's remarks and date win over the claim's)."""
    line = line_by_index.get(adj.get("line_index"), {}) if adj.get("level") == "line" else {}
    return {
        **adj,
        "patient_control_number": claim["patient_control_number"],
        "payer_claim_control_number": claim["payer_claim_control_number"],
        "claim_status_code": claim["claim_status_code"],
        "payer_name": claim["payer_name"],
        "payment_date": claim["payment_date"],
        "trace_number": claim["trace_number"],
        # The first-RARC rule (pipelines.ingest.classify.ordered_rarcs): the line's LQ codes in file
        # order, then the claim's MOA/MIA codes in file order; the marts order the same way.
        "rarcs": ordered_rarcs(line.get("remark_codes") or [], claim.get("remark_codes") or []),
        "service_date": line.get("service_date_from") or claim.get("statement_from"),
        "procedure_code": line.get("procedure_code"),
    }


def _provider_adjustment_data(plb: dict[str, Any], remits: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    """A PLB adjustment with the payer, payment date and trace number of its remittance."""
    remit = remits.get(plb["transaction_index"], {})
    return {
        **plb,
        "payer_name": remit.get("payer_name"),
        "payment_date": remit.get("payment_date"),
        "trace_number": remit.get("trace_number"),
    }


def rows_from_837(tables: dict[str, pl.DataFrame]) -> list[ParsedRow]:
    """Claim rows (with the sum of their line charges for the balance rule), each followed by its lines."""
    lines_by_claim = _by_claim(_records(tables["claim_lines"]))
    out: list[ParsedRow] = []
    for claim in _records(tables["claims"]):
        key = (claim["transaction_index"], claim["claim_index"])
        lines = lines_by_claim.get(key, [])
        claim["line_charge_total"] = str(
            sum((Decimal(line["charge_amount"] or "0") for line in lines), Decimal("0.00"))
        )
        claim_number = len(out) + 1
        out.append(ParsedRow(claim_number, "claim", claim))
        for line in lines:
            out.append(
                ParsedRow(
                    len(out) + 1,
                    "claim_line",
                    {**line, "patient_control_number": claim["patient_control_number"]},
                    parent_row_number=claim_number,
                )
            )
    return _validated(out)


def rows_from_tabular(entity: str, rows: pl.DataFrame) -> list[ParsedRow]:
    """One row per source record; the tabular reader already decided valid/invalid and why."""
    out = []
    for record in _records(rows):
        errors = list(record.pop("row_errors") or [])
        status = record.pop("row_status")
        number = int(record.pop("row_number"))
        out.append(ParsedRow(number, f"csv_{entity}", record, "invalid" if status == "invalid" else "valid", errors))
    return _checked_contract_terms(out) if entity == "contract_term" else out


def _checked_contract_terms(rows: list[ParsedRow]) -> list[ParsedRow]:
    """Contract-term rows with the term rules applied (method, rates, dates) and, across the file's
    rows, overlapping effective dates of the same payer/plan/method/code/modifier/DRG marked on both rows."""
    terms = []
    for row in rows:
        term, errors = contract_terms.check_row(row.data)
        row.errors += errors
        if term is not None:
            row.data["method"] = term.method  # stored canonical, whatever the file spelled
            terms.append((row.row_number, term))
    overlapping = contract_terms.overlap_errors(terms)
    for row in rows:
        row.errors += overlapping.get(row.row_number, [])
        if row.errors:
            row.status = "invalid"
    return rows
