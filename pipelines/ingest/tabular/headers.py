"""Header-row detection and column-name matching.

Export files often carry title rows ("Denials report - March") above the
header, and every system names its columns differently. Headers are matched
after ``normalise_header`` against the synonyms in ``synonyms.csv`` (a row may
be scoped to one entity in its ``entity`` column) or an explicit profile column map; the row with the most matches among the first
rows is the header, and the matched fields decide the entity.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from pipelines.ingest.tabular.entities import ALL_FIELDS, ENTITIES, EntitySpec, entity_spec
from pipelines.ingest.tabular.errors import TabularFileError

MAX_HEADER_SCAN_ROWS = 30


def normalise_header(text: str) -> str:
    """Lower-case, ``#``/num/nbr -> number, punctuation -> single spaces."""
    lowered = str(text).lower().replace("#", " number ")
    lowered = re.sub(r"\bnum\b|\bnbr\b", " number ", lowered)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", lowered).split())


@lru_cache(maxsize=1)
def _synonym_rows() -> tuple[tuple[str, str, str | None], ...]:
    """``(field, normalised synonym, entity or None)`` rows of ``synonyms.csv``, checked."""
    text = resources.files("pipelines.ingest.tabular").joinpath("synonyms.csv").read_text(encoding="utf-8")
    rows = []
    for line_no, row in enumerate(csv.DictReader(text.splitlines()), start=2):
        field, synonym = row["field"].strip(), normalise_header(row["synonym"])
        entity = (row.get("entity") or "").strip() or None
        if entity is not None:
            if entity not in ENTITIES:
                raise ValueError(f"synonyms.csv line {line_no}: unknown entity {entity!r}")
            if field not in ENTITIES[entity].field_names:
                raise ValueError(f"synonyms.csv line {line_no}: {field!r} is not a {entity} field")
        elif field not in ALL_FIELDS:
            raise ValueError(f"synonyms.csv line {line_no}: unknown field {field!r}")
        rows.append((field, synonym, entity))
    return tuple(rows)


def _add_synonym(mapping: dict[str, str], synonym: str, field: str, scope: str) -> None:
    if mapping.get(synonym, field) != field:
        raise ValueError(f"synonyms.csv: {synonym!r} maps to both {mapping[synonym]!r} and {field!r} ({scope})")
    mapping[synonym] = field


@lru_cache(maxsize=1)
def synonym_map() -> dict[str, str]:
    """Normalised header text -> canonical field: the unscoped rows of ``synonyms.csv`` plus the field names."""
    mapping: dict[str, str] = {}
    for field, synonym, entity in _synonym_rows():
        if entity is None:
            _add_synonym(mapping, synonym, field, "all entities")
    # A field name is its own synonym unless a listed synonym already claims that text
    # ("trace number" is a payment's check_number; the deposit entity scopes it to trace_number).
    for name in ALL_FIELDS:
        mapping.setdefault(normalise_header(name), name)
    return mapping


@cache
def entity_synonym_map(entity: str) -> dict[str, str]:
    """``synonym_map`` for one entity: its rows scoped to ``entity`` override the unscoped ones.

    Scoping lets one header mean different fields per entity ("Remit Date" is a
    payment date in a payment export but the denial date in a denial work list).
    """
    spec = entity_spec(entity)
    mapping = dict(synonym_map())
    for name in spec.field_names:
        mapping[normalise_header(name)] = name
    scoped: dict[str, str] = {}
    for field, synonym, scope in _synonym_rows():
        if scope == entity:
            _add_synonym(scoped, synonym, field, entity)
    mapping.update(scoped)
    return mapping


@dataclass(frozen=True, slots=True)
class HeaderMatch:
    """Where the header is and what each source column means."""

    row_index: int
    """0-based index of the header among the scanned rows."""
    entity: str
    columns: dict[int, str]
    """Source column position -> canonical field."""
    source_names: tuple[str, ...]


def match_columns(
    cells: Sequence[str], lookup: Mapping[str, str], fields: frozenset[str] | None = None
) -> dict[int, str]:
    """Map cell positions to fields; a field claimed twice keeps its first column."""
    taken: set[str] = set()
    out: dict[int, str] = {}
    for position, cell in enumerate(cells):
        field = lookup.get(normalise_header(cell or ""))
        if field is None or field in taken or (fields is not None and field not in fields):
            continue
        taken.add(field)
        out[position] = field
    return out


def _entity_score(spec: EntitySpec, fields: set[str]) -> int:
    signature_hits = sum(1 for name in spec.signature if name in fields)
    if signature_hits == 0:
        return 0
    return signature_hits * 100 + sum(1 for name in spec.field_names if name in fields)


def detect_header(
    rows: Sequence[Sequence[str]],
    *,
    entity: str | None = None,
    column_map: Mapping[str, str] | None = None,
) -> HeaderMatch:
    """Find the header among the first rows and the entity it describes.

    With ``column_map`` (a profile's source header -> field) only those names
    count and ``entity`` must be given. Raises ``TabularFileError`` when no
    row looks like a header, or when required columns are absent.
    """
    lookups = _candidate_lookups(entity, column_map)
    best: tuple[int, int, int, EntitySpec, dict[int, str]] | None = None
    for index, cells in enumerate(rows[:MAX_HEADER_SCAN_ROWS]):
        for spec, lookup in lookups:
            columns = match_columns(cells, lookup, frozenset(spec.field_names))
            score = _entity_score(spec, set(columns.values()))
            if score and len(columns) >= 2 and (best is None or (score, len(columns)) > (best[0], best[1])):
                best = (score, len(columns), index, spec, columns)
    if best is None:
        raise _no_header_error(len(rows), profile=column_map is not None)
    _, _, index, spec, columns = best
    _check_required(spec, set(columns.values()), index)
    return HeaderMatch(index, spec.name, columns, tuple(str(cell or "") for cell in rows[index]))


def _candidate_lookups(
    entity: str | None, column_map: Mapping[str, str] | None
) -> list[tuple[EntitySpec, Mapping[str, str]]]:
    """The entities a header may describe, each with its normalised header name -> field lookup:
    the profile's own names when there is a ``column_map``, else the entity's synonyms."""
    if column_map is not None:
        if entity is None:
            raise ValueError("detect_header: a column_map needs its entity")
        profile_lookup = {normalise_header(source): field for source, field in column_map.items()}
        return [(entity_spec(entity), profile_lookup)]
    candidates = [entity_spec(entity)] if entity is not None else list(ENTITIES.values())
    return [(spec, entity_synonym_map(spec.name)) for spec in candidates]


def _no_header_error(row_count: int, *, profile: bool) -> TabularFileError:
    """The error for a file none of whose first rows looks like a header."""
    scanned = min(row_count, MAX_HEADER_SCAN_ROWS)
    wanted = (
        "the profile's columns"
        if profile
        else "e.g. 'Account Number', 'Billed Amount', 'Paid Amount', 'Denial Date', 'Deposit Amount'"
    )
    return TabularFileError(f"no header row found in the first {scanned} rows: expected column names ({wanted})")


def _check_required(spec: EntitySpec, present: set[str], index: int) -> None:
    missing = [name for name in spec.required if name not in present]
    if not any(name in present for name in spec.identifiers):
        missing.append(" or ".join(spec.identifiers))
    if missing:
        raise TabularFileError(f"header row lacks required {spec.name} column(s): {', '.join(missing)}", line=index + 1)
