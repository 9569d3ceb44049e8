"""The 837 submission date (DNFB, the start of A/R): BHT04, else GS04, else ISA09, on a hand-written 837.

tests/fixtures/x12/hand/kpi_claims_mar.837 has BHT04 20250305, GS04 20250305 and ISA09 250305; each case
below rewrites the header by hand so that one fallback is exercised, and writes the expected date by hand.
"""

from __future__ import annotations

from datetime import date

import pytest

from pipelines.ingest.x12.parser import parse_x12
from tests.support.paths import X12_FIXTURES

FIXTURE = (X12_FIXTURES / "hand" / "kpi_claims_mar.837").read_text()
BHT = "BHT*0019*00*KPI_CLAIMS*20250305*0900*CH~"
GS = "GS*HC*HANDHOSPITAL*HANDCLEARING*20250305*0900*302*X*005010X223A2~"
ISA_DATE = "*250305*0900*"


def _submission_dates(text: str) -> list[date | None]:
    return parse_x12(text, source="kpi_claims_mar.837").tables["claims"]["submission_date"].to_list()


@pytest.mark.parametrize(
    ("replacements", "expected"),
    [
        ((), date(2025, 3, 5)),  # BHT04
        (((BHT, "BHT*0019*00*KPI_CLAIMS*20250302*0900*CH~"),), date(2025, 3, 2)),  # BHT04 wins over GS04
        (
            ((BHT, "BHT*0019*00*KPI_CLAIMS*20251399*0900*CH~"), (GS, GS.replace("20250305", "20250304"))),
            date(2025, 3, 4),
        ),
        (
            (
                (BHT, "BHT*0019*00*KPI_CLAIMS**0900*CH~"),
                (GS, GS.replace("20250305", "")),
                (ISA_DATE, "*250303*0900*"),
            ),
            date(2025, 3, 3),  # ISA09 (YYMMDD) when BHT04 and GS04 are missing
        ),
        (
            ((BHT, "BHT*0019*00*KPI_CLAIMS**0900*CH~"), (GS, GS.replace("20250305", "")), (ISA_DATE, "*25XX03*0900*")),
            None,  # no usable date: null, and the claim still parses
        ),
    ],
    ids=["bht04", "bht04-over-gs04", "invalid-bht04-falls-back-to-gs04", "isa09", "none"],
)
def test_submission_date_falls_back_bht04_gs04_isa09(replacements, expected):
    text = FIXTURE
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    assert _submission_dates(text) == [expected]
