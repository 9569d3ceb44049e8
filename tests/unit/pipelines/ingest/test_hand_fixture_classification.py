"""Hand-written 835s (tests/fixtures/x12/hand) through the parser and the classifier.

The expected categories and amounts below were written by hand from the segments of each file, not
computed by the project's code or read from the seeds.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import polars as pl

from pipelines.ingest.classify import classify_adjustment, counts_as_denial, ordered_rarcs, unknown_carcs
from pipelines.ingest.x12 import parse_x12_file

HAND = Path(__file__).resolve().parents[3] / "fixtures" / "x12" / "hand"


def _classified(name: str) -> list[tuple[str, str | None, str, str, Decimal, str, bool]]:
    """(claim, line, group, carc, amount, category, counts as denied) per CAS triplet, in file order."""
    tables = parse_x12_file(HAND / name).tables
    claims = {r["claim_index"]: r for r in tables["remittance_claims"].to_dicts()}
    remarks = tables["remittance_remarks"].sort("remark_index")
    out = []
    for adj in tables["remittance_adjustments"].to_dicts():
        claim = claims[adj["claim_index"]]
        of_claim = remarks.filter(pl.col("claim_index") == adj["claim_index"])
        claim_rarcs = of_claim.filter(pl.col("line_index").is_null())["code"].to_list()
        line_rarcs = (
            of_claim.filter(pl.col("line_index") == adj["line_index"])["code"].to_list()
            if adj["line_index"] is not None
            else []
        )
        result = classify_adjustment(adj["group_code"], adj["carc"], ordered_rarcs(line_rarcs, claim_rarcs))
        status = claim["claim_status_code"]
        denied = counts_as_denial(result.is_denial, adj["amount"], status)
        line = None if adj["line_index"] is None else str(adj["line_index"])
        out.append(
            (
                claim["patient_control_number"],
                line,
                adj["group_code"],
                adj["carc"],
                adj["amount"],
                result.category,
                denied,
            )
        )
    return out


def _denied_total(rows: list[tuple]) -> Decimal:
    return sum((r[4] for r in rows if r[6]), Decimal("0"))


def test_unknown_carc_is_unclassified_not_denied():
    rows = _classified("unknown_carc.835")
    assert [(r[3], r[5], r[6]) for r in rows] == [("45", "contractual", False), ("ZZ9", "unclassified", False)]
    assert _denied_total(rows) == Decimal("0")


def test_unknown_carcs_are_listed_for_the_upload_report():
    adjustments = parse_x12_file(HAND / "unknown_carc.835").tables["remittance_adjustments"]
    assert unknown_carcs(adjustments) == [{"carc": "ZZ9", "groupCodes": ["CO"], "adjustments": 1, "amount": "10.00"}]
    # a file of known codes only reports nothing
    known = parse_x12_file(HAND / "zero_and_negative.835").tables["remittance_adjustments"]
    assert unknown_carcs(known) == []


def test_zero_and_negative_amounts_never_deny():
    rows = _classified("zero_and_negative.835")
    # CO-97 of 0 keeps its bundling category (the code says what it is) but denies nothing.
    assert [(r[0], r[3], r[4], r[5], r[6]) for r in rows] == [
        ("ZERO-1", "97", Decimal("0.00"), "bundling", False),
        ("NEG-1", "94", Decimal("-30.00"), "contractual", False),
    ]


def test_every_line_denied_under_status_1():
    rows = _classified("all_lines_denied_status1.835")
    assert [(r[1], r[3], r[5], r[6]) for r in rows] == [
        ("0", "50", "medical_necessity", True),
        ("1", "50", "medical_necessity", True),
    ]
    assert _denied_total(rows) == Decimal("200.00")


def test_predetermination_denies_nothing():
    rows = _classified("predetermination.835")
    assert [(r[3], r[5], r[6]) for r in rows] == [("50", "medical_necessity", False)]


def test_reversals_never_deny():
    rows = _classified("reversal.835")
    assert [(r[0], r[4], r[6]) for r in rows] == [
        ("REV-1", Decimal("20.00"), True),  # the original adjudication's partial denial
        ("REV-1", Decimal("-20.00"), False),  # its reversal
        ("REV-2", Decimal("10.00"), False),  # a reversal even with a positive amount
        ("REV-1", Decimal("20.00"), False),  # the corrected claim: contractual CO-45
    ]


def test_first_rarc_is_file_order_line_before_claim_and_co59_is_contractual():
    rows = _classified("rarc_order_and_co59.835")
    assert [(r[0], r[1], r[3], r[5], r[6]) for r in rows] == [
        # claim CAS: MOA reads N382 (registration) before MA130 (missing information)
        ("RARC-1", None, "16", "registration", True),
        # line 0: LQ N382 comes before LQ N30 in the file (sorted order would pick N30, eligibility)
        ("RARC-1", "0", "16", "registration", True),
        # line 1 has no LQ: the claim's MOA applies, N382 first
        ("RARC-1", "1", "16", "registration", True),
        ("MPR-1", None, "59", "contractual", False),
    ]
    assert _denied_total(rows) == Decimal("220.00")
