"""A claim's payer class from its CLP06 claim filing indicator (pure; the reference seed is data).

The table is the reference seed ``dbt_project/seeds/reference/claim_filing_indicator_payer_classes.csv``,
the same one the marts classify payers with, so a case and the marts agree on a payer's class. The
deadlines of a case are chosen by this class (Medicare's redetermination, Medicaid's, a commercial
payer's), so an unknown indicator gives no class (the commercial defaults apply, flagged as defaults)
rather than a guess.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

SEED_PATH = (
    Path(__file__).resolve().parents[3]
    / "dbt_project"
    / "seeds"
    / "reference"
    / "claim_filing_indicator_payer_classes.csv"
)


@functools.cache
def _classes() -> dict[str, str]:
    with SEED_PATH.open(newline="", encoding="utf-8") as handle:
        return {row["code"].strip().upper(): row["payer_class"].strip() for row in csv.DictReader(handle)}


def payer_class_of(filing_indicator: str | None) -> str | None:
    """The payer class of a CLP06 code (``MB`` -> ``medicare``), None when the code is missing or unknown."""
    if not filing_indicator:
        return None
    return _classes().get(filing_indicator.strip().upper())


#: Words in a payer's name that say its class when nothing else does (the hospital's own CSV has no
#: CLP06). Only the government programs are named: a private plan's name says nothing reliable, so
#: it gets no class (its deadlines are flagged as assumed) rather than a guess.
_NAME_CLASSES: tuple[tuple[str, str], ...] = (
    ("MEDICAID", "medicaid"),
    ("MEDICARE", "medicare"),  # Part A/B contractors and Medicare Advantage plans (CLP06 16 -> medicare)
    ("TRICARE", "other_government"),
    ("CHAMPUS", "other_government"),
    ("CHAMPVA", "other_government"),
)


def normalized_payer_name(name: str | None) -> str:
    """A payer's name compared across sources: upper-cased, punctuation dropped, spaces collapsed."""
    if not name:
        return ""
    kept = "".join(ch if ch.isalnum() else " " for ch in name.upper())
    return " ".join(kept.split())


def payer_class_of_name(name: str | None) -> str | None:
    """The payer class a payer's name says (``State Medicaid Fiscal Agent`` -> ``medicaid``), else None."""
    words = f" {normalized_payer_name(name)} "
    for word, payer_class in _NAME_CLASSES:
        if f" {word} " in words:
            return payer_class
    return None
