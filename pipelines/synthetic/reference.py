"""Reads the CARC → denial-category map and the RARC identifier list at run time.

The map is maintained by another part of the project (dbt seeds), so the
generator never copies it: ``parse_carc_map`` is pure, the ``load_*`` helpers
only read the file they are given.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

REQUIRED_COLUMNS = ("carc", "category", "is_denial")


class ReferenceError(ValueError):
    """A reference file is missing or malformed; the message names file and line."""


@dataclass(frozen=True, slots=True)
class CarcInfo:
    """One row of ``carc_denial_categories.csv``."""

    carc: str
    summary: str
    category: str
    is_denial: bool
    hard_or_soft: str
    preventable: str


def default_reference_dir() -> Path:
    """``dbt_project/seeds/reference`` of the repository this package lives in."""
    return Path(__file__).resolve().parents[2] / "dbt_project" / "seeds" / "reference"


def parse_carc_map(text: str, *, source: str) -> dict[str, CarcInfo]:
    """Parse the CSV text of the CARC map into ``{carc: CarcInfo}``."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise ReferenceError(f"{source}: missing column(s) {', '.join(missing)}")
    out: dict[str, CarcInfo] = {}
    for line_no, row in enumerate(reader, start=2):
        info = _carc_info(row, f"{source}: line {line_no}")
        out[info.carc] = info
    if not any(info.is_denial for info in out.values()):
        raise ReferenceError(f"{source}: no denial CARCs (is_denial=Y)")
    return out


def _field(row: dict[str, str | None], name: str) -> str:
    """A cell, trimmed; empty when the column or the value is missing."""
    return (row.get(name) or "").strip()


def _carc_info(row: dict[str, str | None], where: str) -> CarcInfo:
    """One map row; the category defaults to ``other``."""
    carc = _field(row, "carc")
    flag = _field(row, "is_denial").upper()
    if not carc or flag not in ("Y", "N"):
        raise ReferenceError(f"{where}: needs a carc and is_denial Y or N")
    return CarcInfo(
        carc=carc,
        summary=_field(row, "summary"),
        category=_field(row, "category") or "other",
        is_denial=flag == "Y",
        hard_or_soft=_field(row, "hard_or_soft"),
        preventable=_field(row, "preventable"),
    )


def load_carc_map(reference_dir: Path | None = None) -> dict[str, CarcInfo]:
    """Read ``carc_denial_categories.csv`` from ``reference_dir`` (default: the dbt seeds)."""
    path = (reference_dir or default_reference_dir()) / "carc_denial_categories.csv"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReferenceError(f"{path}: cannot read the CARC map ({exc.strerror})") from None
    return parse_carc_map(text, source=path.name)


def load_rarc_ids(reference_dir: Path | None = None) -> frozenset[str]:
    """RARC identifiers known to the reference list (empty set when the file is absent)."""
    path = (reference_dir or default_reference_dir()) / "rarc_code_ids_pyx12_2014.txt"
    if not path.exists():
        return frozenset()
    return frozenset(line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
