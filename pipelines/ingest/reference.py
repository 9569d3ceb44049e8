"""Loader of the denial reference seeds (dbt_project/seeds/reference).

The codes and rules that drive denial classification are data (DESIGN.md §5):
this module reads the seed CSVs, checks them against each other and hands
back one immutable, cached ``Reference`` object. Nothing here knows what a
particular CARC means; that lives only in the CSV files.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import polars as pl

DEFAULT_SEED_DIR = Path(__file__).resolve().parents[2] / "dbt_project" / "seeds" / "reference"

_YES_NO = {"Y": True, "N": False}
_HARD_OR_SOFT = {"hard", "soft", ""}
_PREVENTABLE = {"Y", "N", "partly", ""}


class ReferenceDataError(ValueError):
    """A reference seed is missing, malformed or inconsistent with the others."""


@dataclass(frozen=True, slots=True)
class CarcRule:
    """One row of carc_denial_categories.csv."""

    carc: str
    summary: str
    category: str
    is_denial: bool
    hard_or_soft: str | None
    preventable: str | None


@dataclass(frozen=True, slots=True)
class GroupRule:
    """How a CAS group code modifies the CARC's classification."""

    group_code: str
    category_override: str | None
    is_denial_override: bool | None
    unknown_carc_is_denial: bool


@dataclass(frozen=True, slots=True)
class CategoryInfo:
    """One row of denial_categories.csv."""

    category: str
    label: str
    is_denial: bool
    description: str
    typical_fix: str


@dataclass(frozen=True, eq=False)
class Reference:
    """Parsed, cross-checked reference tables (dicts for lookups, frames for joins)."""

    seed_dir: Path
    categories: dict[str, CategoryInfo]
    carcs: dict[str, CarcRule]
    group_rules: dict[str, GroupRule]
    rarc_hints: dict[str, str]
    refinable_carcs: frozenset[str]
    rarc_codes: frozenset[str]
    appeal_limits: pl.DataFrame

    def carc_frame(self) -> pl.DataFrame:
        """CARC rules as a frame keyed by ``carc`` (for vectorised joins)."""
        return _carc_frame(self)

    def group_frame(self) -> pl.DataFrame:
        """Group rules as a frame keyed by ``group_code``."""
        return _group_frame(self)

    def rarc_hint_frame(self) -> pl.DataFrame:
        """RARC category hints as a frame keyed by ``rarc``."""
        return pl.DataFrame(
            {"rarc": list(self.rarc_hints), "rarc_category_hint": list(self.rarc_hints.values())},
            schema={"rarc": pl.String, "rarc_category_hint": pl.String},
        )


def load_reference(seed_dir: str | Path | None = None) -> Reference:
    """Load and validate the reference seeds; cached per resolved directory.

    ``seed_dir`` defaults to the repository's ``dbt_project/seeds/reference``.
    Raises ``ReferenceDataError`` naming the file and line of any bad row.
    """
    directory = Path(seed_dir) if seed_dir is not None else DEFAULT_SEED_DIR
    return _load_cached(directory.resolve())


@lru_cache(maxsize=8)
def _load_cached(directory: Path) -> Reference:
    if not directory.is_dir():
        raise ReferenceDataError(f"reference seed directory not found: {directory}")
    categories = _load_categories(directory)
    known = set(categories)
    carcs = _load_carcs(directory, known)
    group_rules = _load_group_rules(directory, known)
    rarc_hints = _load_rarc_hints(directory, known)
    refinable = frozenset(
        row["carc"].strip().upper() for _, row in _rows(directory, "rarc_refinable_carcs.csv", ("carc",))
    )
    rarc_codes = frozenset(row["rarc"].strip().upper() for _, row in _rows(directory, "rarc_codes.csv", ("rarc",)))
    appeal_limits = pl.read_csv(directory / "payer_appeal_limits.csv", infer_schema=False).with_columns(
        pl.col("days").cast(pl.Int32)
    )
    return Reference(
        seed_dir=directory,
        categories=categories,
        carcs=carcs,
        group_rules=group_rules,
        rarc_hints=rarc_hints,
        refinable_carcs=refinable,
        rarc_codes=rarc_codes,
        appeal_limits=appeal_limits,
    )


def _rows(directory: Path, name: str, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line_number, row) from a seed CSV after checking its header."""
    path = directory / name
    if not path.is_file():
        raise ReferenceDataError(f"reference seed missing: {name}")
    text = path.read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    missing = [column for column in required if column not in (reader.fieldnames or [])]
    if missing:
        raise ReferenceDataError(f"{name}: header lacks column(s) {', '.join(missing)}")
    seen: set[str] = set()
    for row in reader:
        line = reader.line_num
        if None in row or any(value is None for value in row.values()):
            raise ReferenceDataError(f"{name} line {line}: wrong number of columns")
        key = row[required[0]].strip().upper()
        if not key:
            raise ReferenceDataError(f"{name} line {line}: empty {required[0]}")
        if key in seen:
            raise ReferenceDataError(f"{name} line {line}: duplicate {required[0]} {key!r}")
        seen.add(key)
        yield line, row


def _flag(name: str, line: int, column: str, value: str, *, allow_empty: bool = False) -> bool | None:
    if allow_empty and value == "":
        return None
    if value not in _YES_NO:
        raise ReferenceDataError(f"{name} line {line}: {column} must be Y or N, got {value!r}")
    return _YES_NO[value]


def _category(name: str, line: int, value: str, known: set[str]) -> str:
    if value not in known:
        raise ReferenceDataError(f"{name} line {line}: unknown category {value!r}")
    return value


def _load_categories(directory: Path) -> dict[str, CategoryInfo]:
    name = "denial_categories.csv"
    out: dict[str, CategoryInfo] = {}
    for line, row in _rows(directory, name, ("category", "label", "is_denial", "description", "typical_fix")):
        category = row["category"].strip()
        out[category] = CategoryInfo(
            category=category,
            label=row["label"],
            is_denial=bool(_flag(name, line, "is_denial", row["is_denial"])),
            description=row["description"],
            typical_fix=row["typical_fix"],
        )
    if "other" not in out:
        raise ReferenceDataError(f"{name}: the fallback category 'other' is missing")
    return out


def _load_carcs(directory: Path, known: set[str]) -> dict[str, CarcRule]:
    name = "carc_denial_categories.csv"
    out: dict[str, CarcRule] = {}
    columns = ("carc", "summary", "category", "is_denial", "hard_or_soft", "preventable")
    for line, row in _rows(directory, name, columns):
        hard_or_soft, preventable = row["hard_or_soft"].strip(), row["preventable"].strip()
        if hard_or_soft not in _HARD_OR_SOFT:
            raise ReferenceDataError(f"{name} line {line}: hard_or_soft must be hard, soft or empty")
        if preventable not in _PREVENTABLE:
            raise ReferenceDataError(f"{name} line {line}: preventable must be Y, N, partly or empty")
        is_denial = bool(_flag(name, line, "is_denial", row["is_denial"].strip()))
        if is_denial and not hard_or_soft:
            raise ReferenceDataError(f"{name} line {line}: a denial needs hard_or_soft")
        carc = row["carc"].strip().upper()
        out[carc] = CarcRule(
            carc=carc,
            summary=row["summary"],
            category=_category(name, line, row["category"].strip(), known),
            is_denial=is_denial,
            hard_or_soft=hard_or_soft or None,
            preventable=preventable or None,
        )
    return out


def _load_group_rules(directory: Path, known: set[str]) -> dict[str, GroupRule]:
    name = "adjustment_group_rules.csv"
    out: dict[str, GroupRule] = {}
    columns = ("group_code", "category_override", "is_denial_override", "unknown_carc_is_denial")
    for line, row in _rows(directory, name, columns):
        override = row["category_override"].strip()
        code = row["group_code"].strip().upper()
        out[code] = GroupRule(
            group_code=code,
            category_override=_category(name, line, override, known) if override else None,
            is_denial_override=_flag(
                name, line, "is_denial_override", row["is_denial_override"].strip(), allow_empty=True
            ),
            unknown_carc_is_denial=bool(
                _flag(name, line, "unknown_carc_is_denial", row["unknown_carc_is_denial"].strip())
            ),
        )
    return out


def _load_rarc_hints(directory: Path, known: set[str]) -> dict[str, str]:
    name = "rarc_denial_hints.csv"
    return {
        row["rarc"].strip().upper(): _category(name, line, row["category_hint"].strip(), known)
        for line, row in _rows(directory, name, ("rarc", "summary", "category_hint"))
    }


@lru_cache(maxsize=8)
def _carc_frame(reference: Reference) -> pl.DataFrame:
    rules = list(reference.carcs.values())
    return pl.DataFrame(
        {
            "carc": [r.carc for r in rules],
            "carc_category": [r.category for r in rules],
            "carc_is_denial": [r.is_denial for r in rules],
            "carc_hard_or_soft": [r.hard_or_soft for r in rules],
            "carc_preventable": [r.preventable for r in rules],
            "carc_refinable": [r.carc in reference.refinable_carcs for r in rules],
        },
        schema={
            "carc": pl.String,
            "carc_category": pl.String,
            "carc_is_denial": pl.Boolean,
            "carc_hard_or_soft": pl.String,
            "carc_preventable": pl.String,
            "carc_refinable": pl.Boolean,
        },
    )


@lru_cache(maxsize=8)
def _group_frame(reference: Reference) -> pl.DataFrame:
    rules = list(reference.group_rules.values())
    return pl.DataFrame(
        {
            "group_key": [r.group_code for r in rules],
            "group_category_override": [r.category_override for r in rules],
            "group_is_denial_override": [r.is_denial_override for r in rules],
            "group_unknown_carc_is_denial": [r.unknown_carc_is_denial for r in rules],
        },
        schema={
            "group_key": pl.String,
            "group_category_override": pl.String,
            "group_is_denial_override": pl.Boolean,
            "group_unknown_carc_is_denial": pl.Boolean,
        },
    )
