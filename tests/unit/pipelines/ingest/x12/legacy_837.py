"""The per-segment 837 extractor the vectorised one replaced, kept only as a test oracle.

Verbatim logic of the former ``pipelines/ingest/x12/claims_837.py`` (commit c5d3c43):
the vectorised extractor must give byte-for-byte the same tables and errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from pipelines.ingest.x12.delimiters import Delimiters
from pipelines.ingest.x12.envelope import TransactionEnvelope
from pipelines.ingest.x12.errors import X12ParseError
from pipelines.ingest.x12.schemas import CLAIM_LINES, CLAIMS, conform
from pipelines.ingest.x12.values import convert

# Implementation guide ids (ST03 / GS08) -> claim type.
_CLAIM_TYPES = {"X222": "837P", "X098": "837P", "X223": "837I", "X096": "837I", "X224": "837D", "X097": "837D"}
_PRINCIPAL = ("ABK", "BK")
_OTHER = ("ABF", "BF")


def claim_type(envelope: TransactionEnvelope) -> str | None:
    """837P/837I (or 837D) from the implementation reference in ST03, else GS08."""
    for ref in (envelope.implementation_reference or "", envelope.version):
        for key, kind in _CLAIM_TYPES.items():
            if key in ref:
                return kind
    return None


def _el(el: Sequence[str], i: int) -> str | None:
    return el[i] if i < len(el) and el[i] else None


@dataclass
class _Party:
    last: str | None = None
    first: str | None = None
    member_id: str | None = None
    birth: str | None = None
    gender: str | None = None


@dataclass
class _State:
    """Context of the hierarchical loops the current segment sits in."""

    hl_level: str | None = None
    billing_npi: str | None = None
    billing_name: str | None = None
    payer_name: str | None = None
    payer_id: str | None = None
    filing_indicator: str | None = None  # SBR09 of the subscriber loop
    group_number: str | None = None  # SBR03 of the subscriber loop
    subscriber: _Party = field(default_factory=_Party)
    patient: _Party | None = None
    claim: dict[str, Any] | None = None
    line: dict[str, Any] | None = None


def _dates(value: str | None, fmt: str | None) -> tuple[str | None, str | None]:
    if not value:
        return None, None
    if fmt == "RD8" and "-" in value:
        start, _, end = value.partition("-")
        return start, end
    return value[:8], value[:8]


def extract_837(
    seg: pl.DataFrame,
    delims: Delimiters,
    envelopes: list[TransactionEnvelope],
    *,
    transaction_offset: int,
    claim_offset: int,
    source: str,
) -> dict[str, pl.DataFrame]:
    """Build ``claims`` and ``claim_lines`` for one chunk of tokenised 837 segments."""
    comp = delims.component
    claims: list[dict[str, Any]] = []
    lines: list[dict[str, Any]] = []
    txn = transaction_offset - 1
    st = _State()

    def close_claim() -> None:
        if st.claim is None:
            return
        claim = st.claim
        claim["line_count"] = len(claim.pop("_lines"))
        claims.append(claim)
        st.claim = None

    for seg_no, sid, el in zip(seg["seg_no"].to_list(), seg["sid"].to_list(), seg["el"].to_list(), strict=False):
        if sid == "ST":
            txn += 1
            st = _State()
            continue
        if sid == "SE":
            close_claim()
            continue
        if sid == "HL":
            close_claim()
            st.hl_level = _el(el, 3)
            if st.hl_level == "22":
                st.subscriber = _Party()
                st.patient = None
                st.filing_indicator = None
                st.group_number = None
            elif st.hl_level == "23":
                st.patient = _Party()
            continue
        if sid == "CLM":
            close_claim()
            composite = (_el(el, 5) or "").split(comp)
            party = st.patient or st.subscriber
            st.claim = {
                "transaction_index": txn,
                "claim_index": claim_offset + len(claims),
                "claim_type": claim_type(envelopes[txn]),
                "segment_number": seg_no,
                "seg_no": seg_no,
                "sid": sid,
                "patient_control_number": _el(el, 1),
                "total_charge": _el(el, 2),
                "facility_code": composite[0] or None,
                "frequency_code": composite[2] if len(composite) > 2 and composite[2] else None,
                "billing_provider_npi": st.billing_npi,
                "billing_provider_name": st.billing_name,
                "payer_name": st.payer_name,
                "payer_id": st.payer_id,
                "subscriber_member_id": st.subscriber.member_id,
                "filing_indicator": st.filing_indicator,
                "subscriber_group_number": st.group_number,
                "patient_last_name": party.last,
                "patient_first_name": party.first,
                "patient_birth_date": party.birth,
                "patient_gender": party.gender,
                "statement_from": None,
                "statement_to": None,
                "admission_date": None,
                "prior_authorization": None,
                "diagnosis_codes": [],
                "principal_diagnosis": None,
                "_lines": [],
            }
            if st.claim["total_charge"] is None:
                raise X12ParseError(
                    source,
                    "CLM is missing the total charge (CLM02)",
                    segment_number=seg_no,
                    segment_id="CLM",
                    expected="CLM02",
                )
            st.line = None
            continue
        if st.claim is None:
            _header_segment(st, sid, el)
            continue
        if sid == "LX":
            st.line = {
                "transaction_index": txn,
                "claim_index": st.claim["claim_index"],
                "line_index": len(st.claim["_lines"]),
                "segment_number": seg_no,
                "seg_no": seg_no,
                "sid": sid,
            }
            st.claim["_lines"].append(st.line)
            lines.append(st.line)
            continue
        if st.line is None:
            _claim_segment(st.claim, sid, el, comp)
        else:
            _line_segment(st.line, sid, el, comp, seg_no)
    close_claim()
    _derive_statement_dates(claims, lines)
    claims_df = _frame(claims, CLAIMS)
    lines_df = _frame(lines, CLAIM_LINES)
    claims_df = convert(
        conform_strings(claims_df, CLAIMS),
        {
            "total_charge": ("money", "CLM02"),
            "patient_birth_date": ("date", "DMG02"),
            "statement_from": ("date", "statement date"),
            "statement_to": ("date", "statement date"),
            "admission_date": ("date", "DTP*435 date"),
        },
        source=source,
    )
    lines_df = convert(
        conform_strings(lines_df, CLAIM_LINES),
        {
            "charge_amount": ("money", "line charge"),
            "units": ("quantity", "line units"),
            "service_date_from": ("date", "DTP*472 date"),
            "service_date_to": ("date", "DTP*472 date"),
        },
        source=source,
    )
    return {"claims": conform(claims_df, CLAIMS), "claim_lines": conform(lines_df, CLAIM_LINES)}


_INT_COLUMNS = {"transaction_index", "claim_index", "line_index", "segment_number", "seg_no", "line_count"}


def _frame(rows: list[dict[str, Any]], schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Rows as a frame of raw strings (ints for keys) ready for typed conversion."""
    names = [*schema, "seg_no", "sid"]
    types: dict[str, pl.DataType] = {
        n: pl.Int64 if n in _INT_COLUMNS else pl.List(pl.String) if n == "diagnosis_codes" else pl.String for n in names
    }
    return pl.DataFrame([{n: row.get(n) for n in names} for row in rows], schema=types, orient="row")


def conform_strings(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Make sure every schema column exists (as null strings) before typed conversion."""
    missing = [pl.lit(None, dtype=pl.String).alias(c) for c in schema if c not in frame.columns]
    return frame.with_columns(missing) if missing else frame


def _header_segment(st: _State, sid: str, el: list[str]) -> None:
    if sid == "NM1":
        qualifier = _el(el, 1)
        if qualifier == "85":
            st.billing_name = _el(el, 3)
            st.billing_npi = _el(el, 9)
        elif qualifier == "IL":
            st.subscriber.last, st.subscriber.first, st.subscriber.member_id = _el(el, 3), _el(el, 4), _el(el, 9)
        elif qualifier == "PR":
            st.payer_name, st.payer_id = _el(el, 3), _el(el, 9)
        elif qualifier == "QC" and st.patient is not None:
            st.patient.last, st.patient.first = _el(el, 3), _el(el, 4)
    elif sid == "SBR":
        st.filing_indicator = _el(el, 9)
        st.group_number = _el(el, 3)
    elif sid == "DMG":
        party = st.patient if st.hl_level == "23" and st.patient is not None else st.subscriber
        party.birth, party.gender = _el(el, 2), _el(el, 3)


def _claim_segment(claim: dict[str, Any], sid: str, el: list[str], comp: str) -> None:
    if sid in ("DTP", "DTM"):
        qualifier = _el(el, 1)
        start, end = _dates(_el(el, 3), _el(el, 2))
        if qualifier == "434":
            claim["statement_from"], claim["statement_to"] = start, end
        elif qualifier == "435":
            claim["admission_date"] = start
    elif sid == "REF" and _el(el, 1) == "G1" and claim["prior_authorization"] is None:
        claim["prior_authorization"] = _el(el, 2)
    elif sid == "HI":
        for value in el[1:]:
            parts = value.split(comp)
            if len(parts) < 2 or not parts[1]:
                continue
            if parts[0] in _PRINCIPAL:
                claim["diagnosis_codes"].append(parts[1])
                if claim["principal_diagnosis"] is None:
                    claim["principal_diagnosis"] = parts[1]
            elif parts[0] in _OTHER:
                claim["diagnosis_codes"].append(parts[1])
    elif sid == "NM1" and _el(el, 1) == "PR" and claim["payer_name"] is None:
        claim["payer_name"], claim["payer_id"] = _el(el, 3), _el(el, 9)


def _line_segment(line: dict[str, Any], sid: str, el: list[str], comp: str, seg_no: int) -> None:
    if sid in ("SV1", "SV2", "SV3"):
        if sid == "SV1":
            procedure, charge, units = _el(el, 1), _el(el, 2), _el(el, 4)
            line["place_of_service"] = _el(el, 5)
        elif sid == "SV3":  # 837D dental service: SV301 procedure, SV302 charge, SV303 place, SV306 count
            procedure, charge, units = _el(el, 1), _el(el, 2), _el(el, 6)
            line["place_of_service"] = _el(el, 3)
        else:
            line["revenue_code"] = _el(el, 1)
            procedure, charge, units = _el(el, 2), _el(el, 3), _el(el, 5)
        parts = (procedure or "").split(comp)
        line["procedure_qualifier"] = parts[0] or None
        line["procedure_code"] = parts[1] if len(parts) > 1 and parts[1] else None
        for k in range(1, 5):
            line[f"modifier_{k}"] = parts[1 + k] if len(parts) > 1 + k and parts[1 + k] else None
        line["charge_amount"] = charge
        line["units"] = units
        line["seg_no"], line["sid"] = seg_no, sid
    elif sid in ("DTP", "DTM") and _el(el, 1) == "472" and line.get("service_date_from") is None:
        line["service_date_from"], line["service_date_to"] = _dates(_el(el, 3), _el(el, 2))


def _derive_statement_dates(claims: list[dict[str, Any]], lines: list[dict[str, Any]]) -> None:
    """837P has no claim-level statement dates: use the earliest/latest line service date."""
    by_claim: dict[int, list[dict[str, Any]]] = {}
    for line in lines:
        by_claim.setdefault(line["claim_index"], []).append(line)
    for claim in claims:
        if claim["statement_from"] is not None:
            continue
        starts = [
            ln["service_date_from"] for ln in by_claim.get(claim["claim_index"], []) if ln.get("service_date_from")
        ]
        ends = [ln["service_date_to"] for ln in by_claim.get(claim["claim_index"], []) if ln.get("service_date_to")]
        if starts and all(len(s) == 8 and s.isdigit() for s in starts + ends):
            claim["statement_from"], claim["statement_to"] = min(starts), max(ends)
