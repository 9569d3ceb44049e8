"""Publishing: copy the marts into a new immutable snapshot and switch the pointer atomically.

A snapshot is a copy of the build database reduced to the mart tables.
A reader opens whatever ``published.json`` names and keeps that file open;
a build never writes to a published file, it writes a new one and then
replaces the pointer with ``os.replace`` (atomic on POSIX), so a reader sees
either the old snapshot or the new one, never a half-built mart. The last
``KEEP`` snapshots are kept so a reader that resolved the pointer just before
a switch still finds its file.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from pipelines.warehouse.layout import PRIVATE_FILE_MODE, WarehouseLayout, atomic_write_bytes, make_private_dir

KEEP = 3
SNAPSHOT_PREFIX = "marts_"


class PublishError(RuntimeError):
    """The snapshot could not be built; the pointer was left unchanged."""


@dataclass(frozen=True)
class PublishResult:
    snapshot: Path
    built_at: str
    run_id: str | None
    tables: dict[str, int]
    removed: tuple[Path, ...]


def _snapshot_name(now: datetime) -> str:
    return f"{SNAPSHOT_PREFIX}{now.strftime('%Y%m%dT%H%M%S%fZ')}.duckdb"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def publish_snapshot(
    layout: WarehouseLayout,
    build_db: Path,
    tables: list[tuple[str, str]],
    *,
    run_id: str | None = None,
    now: datetime | None = None,
) -> PublishResult:
    """Publish ``tables`` (``(schema, name)`` in the build database) as a new snapshot.

    The build file is copied (a file copy is far cheaper than rewriting millions of rows), then
    everything that is not a listed mart is dropped from the copy: every view (staging views
    read raw Parquet files), every other schema, every unlisted table. The snapshot therefore
    holds plain tables only and does not depend on the build database or the raw zone. Readers
    find the marts in their schema (``open_published`` makes it the default schema).
    """
    if not tables:
        raise PublishError("nothing to publish: no mart tables were given")
    schemas = {schema for schema, _ in tables}
    if len(schemas) != 1:
        raise PublishError(f"marts must live in one schema, got {sorted(schemas)}")
    (mart_schema,) = schemas
    now = now or datetime.now(UTC)
    make_private_dir(layout.snapshots_dir)
    final = layout.snapshots_dir / _snapshot_name(now)
    building = final.with_name("." + final.name + ".building")
    building.unlink(missing_ok=True)
    _checkpoint(build_db)
    counts: dict[str, int] = {}
    try:
        shutil.copyfile(build_db, building)
        os.chmod(building, PRIVATE_FILE_MODE)  # copyfile creates with the umask's mode; the marts are PHI
        con = duckdb.connect(str(building))
        try:
            _keep_only(con, mart_schema, {name for _, name in tables})
            for _, name in tables:
                row = con.execute(f"select count(*) from {_quote(mart_schema)}.{_quote(name)}").fetchone()
                assert row is not None  # count(*) always returns one row
                counts[name] = row[0]
            con.execute("checkpoint")
        finally:
            con.close()
        os.replace(building, final)
    except BaseException:
        building.unlink(missing_ok=True)
        building.with_name(building.name + ".wal").unlink(missing_ok=True)
        raise
    built_at = now.isoformat().replace("+00:00", "Z")
    pointer = {"snapshot": str(final), "schema": mart_schema, "built_at": built_at, "run_id": run_id, "tables": counts}
    atomic_write_bytes(layout.published_pointer, (json.dumps(pointer, indent=2, sort_keys=True) + "\n").encode())
    removed = prune_snapshots(layout, keep=KEEP)
    return PublishResult(final, built_at, run_id, counts, removed)


def _checkpoint(build_db: Path) -> None:
    """Fold a leftover write-ahead log into the build file so the copy is complete."""
    if not build_db.is_file():
        raise PublishError(f"the build database {build_db.name} does not exist: run the dbt build first")
    if build_db.with_name(build_db.name + ".wal").exists():
        con = duckdb.connect(str(build_db))
        try:
            con.execute("checkpoint")
        finally:
            con.close()


_SYSTEM_SCHEMAS = {"information_schema", "pg_catalog"}


def _keep_only(con: duckdb.DuckDBPyConnection, mart_schema: str, names: set[str]) -> None:
    """Drop every view, every schema but the marts', and every unlisted table; fail if a mart is missing."""
    objects = con.execute(
        "select table_schema, table_name, table_type from information_schema.tables where table_catalog = current_database()"
    ).fetchall()
    present = {name for schema, name, kind in objects if schema == mart_schema and kind == "BASE TABLE"}
    missing = sorted(names - present)
    if missing:
        raise PublishError(f"mart table(s) missing from the build: {', '.join(missing)}")
    for schema, name, kind in objects:
        if kind == "VIEW":
            con.execute(f"drop view if exists {_quote(schema)}.{_quote(name)}")
    for schema, name, kind in objects:
        if kind != "VIEW" and (schema != mart_schema or name not in names) and schema not in _SYSTEM_SCHEMAS:
            con.execute(f"drop table if exists {_quote(schema)}.{_quote(name)}")
    schemas = con.execute(
        "select schema_name from information_schema.schemata where catalog_name = current_database()"
    ).fetchall()
    for (schema,) in schemas:
        if schema not in (mart_schema, "main") and schema not in _SYSTEM_SCHEMAS:
            con.execute(f"drop schema if exists {_quote(schema)} cascade")


def prune_snapshots(layout: WarehouseLayout, *, keep: int = KEEP) -> tuple[Path, ...]:
    """Delete all but the newest ``keep`` snapshots (never the published one)."""
    published = None
    if layout.published_pointer.exists():
        published = Path(json.loads(layout.published_pointer.read_text())["snapshot"]).name
    snapshots = sorted(layout.snapshots_dir.glob(f"{SNAPSHOT_PREFIX}*.duckdb"), key=lambda p: p.name, reverse=True)
    removed = []
    for path in snapshots[keep:]:
        if path.name == published:
            continue
        path.unlink(missing_ok=True)
        path.with_name(path.name + ".wal").unlink(missing_ok=True)
        removed.append(path)
    return tuple(removed)


def _sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
