"""The claim filing indicator -> payer class seed, held to a table written by hand from the X12 code
names (835 CLP06, 005010X221A1; 837 SBR09 codes CLP06 lacks), and to the code set it extends."""

from __future__ import annotations

import csv
from pathlib import Path

SEEDS = Path(__file__).resolve().parents[3] / "dbt_project" / "seeds" / "reference"

EXPECTED = {
    "MA": "medicare",  # Medicare Part A
    "MB": "medicare",  # Medicare Part B
    "16": "medicare",  # HMO Medicare Risk: Medicare Advantage
    "MC": "medicaid",
    "CH": "other_government",  # TRICARE
    "VA": "other_government",
    "OF": "other_government",
    "TV": "other_government",  # Title V
    "12": "commercial",  # PPO
    "13": "commercial",  # POS
    "14": "commercial",  # EPO
    "15": "commercial",  # Indemnity
    "17": "commercial",  # Dental maintenance organization
    "HM": "commercial",
    "BL": "commercial",
    "CI": "commercial",
    "FI": "commercial",  # FEHB plans are run by commercial carriers
    "09": "self_pay",
    "AM": "other",  # automobile medical
    "LM": "other",  # liability medical
    "WC": "other",  # workers' compensation
    "DS": "other",  # disability
    "10": "other",
    "11": "other",
    "ZZ": "other",
}


def _rows(name: str) -> list[dict[str, str]]:
    with open(SEEDS / name, newline="") as f:
        return list(csv.DictReader(f))


def test_every_filing_indicator_has_the_hand_written_class():
    got = {r["code"]: r["payer_class"] for r in _rows("claim_filing_indicator_payer_classes.csv")}
    assert got == EXPECTED


def test_the_835_codes_are_exactly_the_clp06_code_set():
    clp06 = {r["code"] for r in _rows("clp06_claim_filing_indicator_codes.csv")}
    flagged = {r["code"] for r in _rows("claim_filing_indicator_payer_classes.csv") if r["in_835_clp06"] == "Y"}
    assert flagged == clp06
