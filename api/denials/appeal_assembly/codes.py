"""CARC, RARC, group code and denial category meanings in words, from the reference seeds (pure: the
one read is the seeds at import).

The seeds are those dbt loads, in ``dbt_project/seeds/reference`` (see that folder's ORIGIN.md):
``carc_denial_categories.csv`` (CARC summary), ``rarc_denial_hints.csv`` (RARC summary; the RARCs it
does not describe are said to be on the remittance advice), ``cas_group_codes.csv`` and
``denial_categories.csv`` (label and description).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

SEED_DIR = Path(__file__).resolve().parents[3] / "dbt_project" / "seeds" / "reference"


def _read(name: str, key: str, *values: str) -> dict[str, tuple[str, ...]]:
    with (SEED_DIR / name).open(encoding="utf-8", newline="") as handle:
        return {
            row[key].strip().upper(): tuple(row[v].strip() for v in values)
            for row in csv.DictReader(handle)
            if row[key].strip()
        }


CARCS = {code: summary for code, (summary,) in _read("carc_denial_categories.csv", "carc", "summary").items()}
RARCS = {code: summary for code, (summary,) in _read("rarc_denial_hints.csv", "rarc", "summary").items()}
GROUPS = {code: text for code, (text,) in _read("cas_group_codes.csv", "code", "description").items()}
CATEGORIES = {
    code.lower(): (label, description)
    for code, (label, description) in _read("denial_categories.csv", "category", "label", "description").items()
}


def carc_sentence(carc: str | None, group_code: str | None) -> str:
    """The CARC (with its group code) in words."""
    group = ""
    if group_code:
        meaning = GROUPS.get(group_code.upper())
        group = (
            f"group code {group_code.upper()} ({meaning}) with "
            if meaning
            else f"group code {group_code.upper()} with "
        )
    if not carc:
        return "The remittance advice gives no claim adjustment reason code for this denial."
    summary = CARCS.get(carc.upper())
    if summary is None:
        return f"The remittance advice gives {group}claim adjustment reason code (CARC) {carc.upper()}."
    return f"The remittance advice gives {group}claim adjustment reason code (CARC) {carc.upper()}: {summary}."


def rarc_sentences(rarcs: Sequence[str]) -> list[str]:
    """Each remark code in words (those the reference does not describe are named as on the remittance)."""
    out: list[str] = []
    for rarc in rarcs:
        code = rarc.strip().upper()
        if not code:
            continue
        summary = RARCS.get(code)
        out.append(
            f"Remark code (RARC) {code}: {summary}."
            if summary
            else f"Remark code (RARC) {code}, as stated on the remittance advice."
        )
    return out


def category_label(category: str | None) -> str:
    return CATEGORIES.get((category or "other").lower(), CATEGORIES["other"])[0]


def category_sentence(category: str | None) -> str:
    label, description = CATEGORIES.get((category or "other").lower(), CATEGORIES["other"])
    return f"The denial falls under {label}: {description}."


def denial_explained(carc: str | None, group_code: str | None, rarcs: Sequence[str], category: str | None) -> str:
    """The paragraph that explains the denial in words: CARC, RARCs, category."""
    return " ".join([carc_sentence(carc, group_code), *rarc_sentences(rarcs), category_sentence(category)])
