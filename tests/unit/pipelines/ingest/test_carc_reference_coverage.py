"""The CARC reference map covers the X12 code list, and its rows say where they stand.

The list of identifiers (`carc_codes_listed_2024.txt`) comes from outside this project (see the
seeds' ORIGIN.md); the categories are the platform's. A code the list has and the map lacks would be
`unclassified` in every answer, so the map must have them all.
"""

from __future__ import annotations

import csv

from pipelines.ingest.reference import load_reference
from tests.support.paths import REPO

SEEDS = REPO / "dbt_project" / "seeds" / "reference"


def _listed() -> set[str]:
    lines = (SEEDS / "carc_codes_listed_2024.txt").read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def _rows() -> list[dict[str, str]]:
    with (SEEDS / "carc_denial_categories.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def test_every_listed_carc_has_a_row():
    listed = _listed()
    assert len(listed) == 296
    assert listed - {r["carc"] for r in _rows()} == set()


def test_sources_are_the_documented_ones_and_unlisted_rows_are_marked():
    listed = _listed()
    for row in _rows():
        assert row["source"] in {"corpus_codes", "x12_list_transcription", "not_in_current_list"}, row
        if row["source"] == "x12_list_transcription":
            assert row["carc"] in listed, row
        if row["source"] == "not_in_current_list":
            assert row["carc"] not in listed, row


def test_codes_the_issue_named_are_classified_by_their_meaning():
    """Hand-checked against the official wording (not derived from the map under test)."""
    carcs = load_reference().carcs
    # non-denial reductions and COB codes (issue 8, item 6)
    for code in ("94", "23", "89", "90", "91", "105", "130", "161", "235", "245", "275", "59"):
        assert carcs[code].is_denial is False, code
    assert carcs["23"].category == "coordination_of_benefits"
    assert carcs["94"].category == "contractual"
    # codes first classified from the list: forwarded claims are COB, "submit to" claims are denials
    assert (carcs["290"].category, carcs["290"].is_denial) == ("coordination_of_benefits", False)
    assert (carcs["297"].category, carcs["297"].is_denial) == ("eligibility", True)
    assert (carcs["302"].category, carcs["302"].is_denial) == ("authorization", True)
    assert (carcs["P7"].category, carcs["P7"].is_denial) == ("coding", True)
    assert (carcs["P12"].category, carcs["P12"].is_denial) == ("contractual", False)
