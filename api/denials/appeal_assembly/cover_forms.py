"""The payer's cover form for an appeal, from data (pure: the one read is ``cover_forms.json`` at import).

A payer named in the table (its name, case-insensitive; else its payer class) gets its form per appeal
level with the fields the claim facts fill; the fields that identify the patient stay blank, to be
completed by hand. A payer not in the table gets no cover form (the cover page says so).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_PATH = Path(__file__).resolve().parent / "cover_forms.json"
BLANK = ""


@dataclass(frozen=True)
class CoverForm:
    form_id: str
    title: str
    fields: tuple[tuple[str, str], ...]  # (label, value; "" = completed by hand)


def _load(path: Path = DATA_PATH) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for row in data["payers"]:
        for form_id in (row.get("first_level"), row.get("second_level")):
            if form_id is not None and form_id not in data["forms"]:
                raise ValueError(f"cover_forms.json: unknown form '{form_id}'")
    return data


DATA = _load()
VERSION: str = DATA["version"]


def _row_for(payer: str, payer_class: str | None) -> Mapping[str, Any] | None:
    rows: list[Mapping[str, Any]] = DATA["payers"]
    by_name = next((r for r in rows if str(r.get("payer", "")).casefold() == payer.casefold()), None)
    if by_name is not None or payer_class is None:
        return by_name
    return next((r for r in rows if r.get("payerClass") == payer_class), None)


def cover_form(payer: str, payer_class: str | None, level: str, facts: Mapping[str, str]) -> CoverForm | None:
    """The form for the payer at the level with its fields filled from `facts` (formatted claim facts),
    or None when the payer has none."""
    row = _row_for(payer, payer_class)
    form_id = row.get(level) if row is not None else None
    if form_id is None:
        return None
    form = DATA["forms"][form_id]
    fields = tuple(
        (str(f["label"]), str(f.get("text") or facts.get(str(f.get("fact", "")), BLANK))) for f in form["fields"]
    )
    return CoverForm(form_id=form_id, title=str(form["title"]), fields=fields)
