"""Publishing: copy the marts into a new immutable snapshot and switch the pointer atomically.

A snapshot is a copy of the build database reduced to the mart tables.
A reader opens whatever ``published.json`` names and keeps that file open;
a build never writes to a published file, it writes a new one and then
replaces the pointer with ``os.replace`` (atomic on POSIX), so a reader sees
either the old snapshot or the new one, never a half-built mart. The last
``KEEP`` snapshots are kept so a reader that resolved the pointer just before
a switch still finds its file.

A publish killed without a chance to clean up (kill -9, the OOM killer) leaves at most a hidden
``.marts_*.building`` copy (the size of the marts) or a pointer's temporary file, and the pointer as it
was. Publishes take an exclusive lock on ``snapshots/.publish.lock``, so the next one knows no other
publish owns such leftovers and removes them before it starts
(tests/integration/pipelines/test_publish_crash.py kills one at both points).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from pipelines.warehouse.layout import PRIVATE_FILE_MODE, WarehouseLayout, atomic_write_bytes, make_private_dir
from pipelines.warehouse.quarantine import Quarantine

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
    quarantines: tuple[dict[str, Any], ...] = ()


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
    quarantines: Sequence[Quarantine] = (),
) -> PublishResult:
    """Publish ``tables`` (``(schema, name)`` in the build database) as a new snapshot.

    The build file is copied (a file copy is far cheaper than rewriting millions of rows), then
    everything that is not a listed mart is dropped from the copy: every view (staging views
    read raw Parquet files), every other schema, every unlisted table. The snapshot therefore
    holds plain tables only and does not depend on the build database or the raw zone. Readers
    find the marts in their schema (``open_published`` makes it the default schema).

    ``quarantines`` (``pipelines.warehouse.quarantine``): those tenants' rows are removed from every
    mart and their rows of the previously published snapshot carried forward, so they keep their last
    good numbers; the pointer lists the quarantines and when each quarantined tenant's rows were built.
    """
    if not tables:
        raise PublishError("nothing to publish: no mart tables were given")
    schemas = {schema for schema, _ in tables}
    if len(schemas) != 1:
        raise PublishError(f"marts must live in one schema, got {sorted(schemas)}")
    (mart_schema,) = schemas
    now = now or datetime.now(UTC)
    make_private_dir(layout.snapshots_dir)
    with _exclusive_publish(layout):
        return _publish_locked(layout, build_db, tables, mart_schema, run_id, now, quarantines)


@contextlib.contextmanager
def _exclusive_publish(layout: WarehouseLayout) -> Iterator[None]:
    """One publish at a time per DATA_DIR (an flock, released by the kernel if the process dies); inside
    it, the leftovers of a publish that was killed belong to nobody and are removed."""
    fd = os.open(layout.snapshots_dir / ".publish.lock", os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _remove_leftovers(layout)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _remove_leftovers(layout: WarehouseLayout) -> None:
    for leftover in layout.snapshots_dir.glob(f".{SNAPSHOT_PREFIX}*.building*"):
        leftover.unlink(missing_ok=True)
    # atomic_write_bytes' temporary files for the pointer (".published.json.<random>.tmp")
    for leftover in layout.published_pointer.parent.glob(f".{layout.published_pointer.name}.*.tmp"):
        leftover.unlink(missing_ok=True)


def _publish_locked(
    layout: WarehouseLayout,
    build_db: Path,
    tables: list[tuple[str, str]],
    mart_schema: str,
    run_id: str | None,
    now: datetime,
    quarantines: Sequence[Quarantine],
) -> PublishResult:
    final = layout.snapshots_dir / _snapshot_name(now)
    building = final.with_name("." + final.name + ".building")
    building.unlink(missing_ok=True)
    _checkpoint(build_db)
    counts: dict[str, int] = {}
    previous = _previous_pointer(layout)
    built_at = now.isoformat().replace("+00:00", "Z")
    held = _held_tenants(quarantines, previous, built_at)
    try:
        shutil.copyfile(build_db, building)
        os.chmod(building, PRIVATE_FILE_MODE)  # copyfile creates with the umask's mode; the marts are PHI
        con = duckdb.connect(str(building))
        try:
            _keep_only(con, mart_schema, {name for _, name in tables})
            if held:
                _carry_forward(con, mart_schema, [name for _, name in tables], set(held), previous)
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
    listed = _quarantine_list(quarantines, previous, built_at)
    pointer: dict[str, object] = {
        "snapshot": str(final),
        "schema": mart_schema,
        "built_at": built_at,
        "run_id": run_id,
        "tables": counts,
    }
    if listed:
        pointer["quarantines"] = listed
        # client id -> when and by which run the rows it is served were built (only held-back clients)
        pointer["tenant_data"] = {str(client): held[client] for client in sorted(held)}
    atomic_write_bytes(layout.published_pointer, (json.dumps(pointer, indent=2, sort_keys=True) + "\n").encode())
    removed = prune_snapshots(layout, keep=KEEP)
    return PublishResult(final, built_at, run_id, counts, removed, tuple(listed))


def _previous_pointer(layout: WarehouseLayout) -> dict[str, Any] | None:
    """The pointer of the snapshot published before this one (None on the first publish)."""
    try:
        pointer: dict[str, Any] = json.loads(layout.published_pointer.read_text())
        return pointer
    except FileNotFoundError:
        return None


def _held_tenants(
    quarantines: Sequence[Quarantine], previous: dict[str, Any] | None, built_at: str
) -> dict[int, dict[str, Any]]:
    """``{client_id: {"built_at", "run_id"}}`` of the rows each quarantined client keeps: those of the
    previous snapshot (or the older ones it already carried); ``built_at`` None when it had none."""
    out: dict[int, dict[str, Any]] = {}
    for q in quarantines:
        if previous is None:
            out[q.client_id] = {"built_at": None, "run_id": None}
            continue
        carried = (previous.get("tenant_data") or {}).get(str(q.client_id))
        out[q.client_id] = carried or {"built_at": previous["built_at"], "run_id": previous.get("run_id")}
    return out


def _quarantine_list(
    quarantines: Sequence[Quarantine], previous: dict[str, Any] | None, built_at: str
) -> list[dict[str, Any]]:
    """The pointer's quarantine entries; ``since`` is when the same test first held the client back."""
    before = {(q["client_id"], q["test"]): q.get("since") for q in (previous or {}).get("quarantines") or []}
    return [
        {**q.to_json(), "detected_at": built_at, "since": before.get((q.client_id, q.test)) or built_at}
        for q in quarantines
    ]


def _carry_forward(
    con: duckdb.DuckDBPyConnection, schema: str, names: list[str], clients: set[int], previous: dict[str, Any] | None
) -> None:
    """Replace the quarantined clients' rows of every tenant mart with their rows of the previous snapshot.

    Columns are matched by name (a mart may have gained columns since: those are null for carried rows);
    a mart the previous snapshot lacks gives those clients no rows."""
    ids = ", ".join(str(int(c)) for c in sorted(clients))
    old_path = Path(previous["snapshot"]) if previous else None
    attached = old_path is not None and old_path.is_file()
    if attached:
        con.execute(f"attach {_sql_string(str(old_path))} as previous_snapshot (read_only)")
    here = con.execute("select current_database()").fetchone()
    assert here is not None  # current_database() always answers
    try:
        for name in names:
            columns = _column_names(con, str(here[0]), schema, name)
            if "client_id" not in columns:
                continue  # reference data (codes, payers' seed rows): nobody's rows
            table = f"{_quote(schema)}.{_quote(name)}"
            con.execute(f"delete from {table} where client_id in ({ids})")
            if not attached:
                continue
            old_schema = (previous or {}).get("schema") or "main"
            old_columns = _column_names(con, "previous_snapshot", old_schema, name)
            common = [c for c in columns if c in old_columns]
            if "client_id" not in common:
                continue
            listed = ", ".join(_quote(c) for c in common)
            con.execute(
                f"insert into {table} ({listed}) select {listed} from previous_snapshot.{_quote(old_schema)}.{_quote(name)} "
                f"where client_id in ({ids})"
            )
    finally:
        if attached:
            con.execute("detach previous_snapshot")


def _column_names(con: duckdb.DuckDBPyConnection, database: str, schema: str, table: str) -> list[str]:
    rows = con.execute(
        "select column_name from duckdb_columns() where database_name = ? and schema_name = ? and table_name = ? "
        "order by column_index",
        [database, schema, table],
    ).fetchall()
    return [r[0] for r in rows]


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
