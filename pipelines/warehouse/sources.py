"""The files the raw layer must hold: confirmed import batches and folder drops.

Reads the operational database with SQLAlchemy Core (plain SQL on the
declared columns), never the API's ORM session, so a pipeline run cannot
touch anything else the API owns.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, inspect, text

from pipelines.ingest.x12 import detect_transaction_set
from pipelines.warehouse.extract import EXTRACT_TABLES, plain_rows, read_table
from pipelines.warehouse.layout import WarehouseLayout, atomic_write_bytes, file_key

#: ImportBatch.kind -> raw file kind
BATCH_KINDS = {
    "era_835": "835",
    "claims_837": "837",
    "csv_claims": "csv",
    "csv_payments": "csv",
    "csv_denials": "csv",
    "csv_deposits": "csv",
}
X12_SUFFIXES = frozenset({".835", ".837", ".x12", ".edi", ".txt", ".dat"})
TABULAR_SUFFIXES = frozenset({".csv", ".tsv", ".psv", ".xlsx"})


class SourceError(ValueError):
    """A source file cannot be attributed or read; the message names the file, never its content."""


@dataclass(frozen=True, order=True)
class RowExclusion:
    """One import row a reviewer excluded before confirming, located by its keys in the parsed file.

    ``entity`` is the ImportRow entity (remittance_claim, service_line, adjustment,
    provider_adjustment, claim, claim_line, csv_*); ``row_number`` is the import
    row number, which for CSV rows is the file's row number.
    """

    entity: str
    row_number: int
    claim_index: int | None = None
    segment_number: int | None = None
    part_index: int | None = None  # CAS triplet / PLB pair


@dataclass(frozen=True, order=True)
class RowRepair:
    """One import row a reviewer repaired (``ingestion.repairImportRow``) before confirming: located like
    a ``RowExclusion``, with the row's canonical values after the repair (``values``: JSON object text,
    sorted keys). The raw layer writes these values over the parsed row, so the marts read the repair."""

    entity: str
    row_number: int
    claim_index: int | None = None
    segment_number: int | None = None
    part_index: int | None = None
    values: str = "{}"


@dataclass(frozen=True)
class SourceFile:
    """One file to hold in the raw zone, with its tenant and (for a batch) the rows excluded from it."""

    sha256: str
    path: Path
    kind: str  # 835 | 837 | csv
    organization_id: int
    client_id: int
    batch_id: int | None
    name: str
    exclusions: tuple[RowExclusion, ...] = ()
    repairs: tuple[RowRepair, ...] = ()

    @property
    def key(self) -> str:
        return file_key(self.sha256, self.client_id)

    @property
    def exclusions_digest(self) -> str:
        """SHA-256 of the sorted exclusions ("" when none): a changed set means the file is parsed again."""
        if not self.exclusions:
            return ""
        doc = json.dumps([list(vars(x).values()) for x in sorted(self.exclusions)], separators=(",", ":"))
        return hashlib.sha256(doc.encode()).hexdigest()

    @property
    def repairs_digest(self) -> str:
        """SHA-256 of the sorted repairs ("" when none): a changed repair means the file is parsed again."""
        if not self.repairs:
            return ""
        doc = json.dumps([list(vars(x).values()) for x in sorted(self.repairs)], separators=(",", ":"))
        return hashlib.sha256(doc.encode()).hexdigest()


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def drop_file_kind(path: Path) -> str | None:
    """``835``/``837``/``csv`` for a dropped file, from its first bytes (None: not a file we load)."""
    suffix = path.suffix.lower()
    if suffix in TABULAR_SUFFIXES:
        return "csv"
    if suffix not in X12_SUFFIXES:
        return None
    with path.open("rb") as fh:
        head = fh.read(64 * 1024)
    return detect_transaction_set(head)


def client_organizations(engine: Engine) -> dict[int, int]:
    """``{client_id: organization_id}`` of every client."""
    with engine.connect() as conn:
        return {int(c): int(o) for c, o in plain_rows(conn.execute(text("select id, organization_id from clients")))}


def batch_exclusions(engine: Engine) -> dict[int, tuple[RowExclusion, ...]]:
    """``{batch_id: excluded rows}`` of confirmed batches (the ``import_row_exclusions`` extract)."""
    frame, _exists = read_table(engine, EXTRACT_TABLES["import_row_exclusions"])
    out: dict[int, list[RowExclusion]] = {}
    for row in frame.iter_rows(named=True):
        out.setdefault(row["batch_id"], []).append(
            RowExclusion(
                row["entity"],
                row["row_number"],
                row["claim_index"],
                row["segment_number"],
                row["part_index"],
            )
        )
    return {batch: tuple(sorted(rows)) for batch, rows in out.items()}


_REPAIRED_ROWS = text(
    "select r.batch_id, r.row_number, r.entity, r.data "
    "from import_rows r join import_batches b on b.id = r.batch_id "
    "where b.status = 'confirmed' and r.status = 'repaired' and r.decision <> 'exclude' order by r.id"
)


def batch_repairs(engine: Engine) -> dict[int, tuple[RowRepair, ...]]:
    """``{batch_id: repaired rows}`` of confirmed batches: the keys that locate each row in its file and
    its values after the repair. Read straight from the operational database at parse time and never
    written to the extract: unlike the keys of an exclusion, the values may be PHI."""
    found = inspect(engine)
    if not (found.has_table("import_rows") and found.has_table("import_batches")):
        return {}
    out: dict[int, list[RowRepair]] = {}
    with engine.connect() as conn:
        for batch_id, number, entity, raw in plain_rows(conn.execute(_REPAIRED_ROWS)):
            data: dict[str, Any] = json.loads(raw) if isinstance(raw, str) else (raw or {})
            part = data.get("triplet_index") if entity == "adjustment" else data.get("pair_index")
            claim, segment = data.get("claim_index"), data.get("segment_number")
            out.setdefault(int(batch_id), []).append(
                RowRepair(
                    str(entity),
                    int(number),
                    None if claim is None else int(claim),
                    None if segment is None else int(segment),
                    None if part is None else int(part),
                    json.dumps(data, sort_keys=True, default=str),
                )
            )
    return {batch: tuple(sorted(rows)) for batch, rows in out.items()}


def confirmed_batch_files(engine: Engine, layout: WarehouseLayout) -> list[SourceFile]:
    """The landing files of every confirmed import batch of a kind the raw layer loads, with their
    exclusions and repairs."""
    query = text(
        "select id, organization_id, client_id, kind, content_sha256, source_filename "
        "from import_batches where status = 'confirmed' order by id"
    )
    out = []
    exclusions = batch_exclusions(engine)
    repairs = batch_repairs(engine)
    with engine.connect() as conn:
        for batch_id, org, client, kind, sha, name in plain_rows(conn.execute(query)):
            raw_kind = BATCH_KINDS.get(kind)
            if raw_kind is None:
                continue
            path = layout.landing_path(sha)
            if not path.is_file():
                raise SourceError(
                    f"import batch {batch_id}: its landing file {sha[:12]}... is missing from the landing zone"
                )
            out.append(
                SourceFile(
                    sha,
                    path,
                    raw_kind,
                    int(org),
                    int(client),
                    int(batch_id),
                    str(name),
                    exclusions.get(int(batch_id), ()),
                    repairs.get(int(batch_id), ()),
                )
            )
    return out


def drop_files(
    layout: WarehouseLayout, organizations: dict[int, int], *, known: dict[tuple[str, str], str] | None = None
) -> list[SourceFile]:
    """Every loadable file under ``drop/client_<id>/`` (recursively), hashed.

    ``known`` maps ``(path, size-mtime)`` signatures to hashes already computed,
    so a sensor does not re-hash unchanged files.
    """
    out = []
    for client_id, folder in layout.drop_client_dirs():
        if client_id not in organizations:
            raise SourceError(
                f"drop folder {folder.name}: client {client_id} does not exist in the operational database"
            )
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
            kind = drop_file_kind(path)
            if kind is None:
                continue
            stat = path.stat()
            signature = (str(path), f"{stat.st_size}-{stat.st_mtime_ns}")
            sha = (known or {}).get(signature) or sha256_of(path)
            out.append(SourceFile(sha, path, kind, organizations[client_id], client_id, None, path.name))
    return out


def current_sources(engine: Engine, layout: WarehouseLayout) -> list[SourceFile]:
    """All files the raw zone must hold now; a file in both a batch and a drop counts once (as the batch)."""
    batches = confirmed_batch_files(engine, layout)
    drops = cached_drop_files(layout, client_organizations(engine))
    chosen: dict[str, SourceFile] = {}
    for src in batches + drops:
        chosen.setdefault(src.key, src)
    return sorted(chosen.values(), key=lambda s: (s.client_id, s.name, s.sha256))


def file_signature(path: Path) -> str:
    """Cheap change detector for sensors: size and modification time."""
    stat = os.stat(path)
    return f"{stat.st_size}-{stat.st_mtime_ns}"


def cached_drop_files(layout: WarehouseLayout, organizations: dict[int, int]) -> list[SourceFile]:
    """``drop_files`` with the hashes of unchanged files (same path, size and mtime) taken from a cache."""
    cache_path = layout.raw_dir / "_drop_hashes.json"
    files = drop_files(layout, organizations, known=_load_hash_cache(cache_path))
    _save_hash_cache(cache_path, files)
    return files


def _load_hash_cache(path: Path) -> dict[tuple[str, str], str]:
    try:
        doc = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return {(entry["path"], entry["signature"]): entry["sha256"] for entry in doc}


def _save_hash_cache(path: Path, files: list[SourceFile]) -> None:
    """Remember drop-file hashes by (path, size-mtime) so unchanged files are not hashed again."""
    doc = [{"path": str(f.path), "signature": file_signature(f.path), "sha256": f.sha256} for f in files]
    atomic_write_bytes(path, json.dumps(doc).encode())
