"""Backups of one installation, and their restore (`launcher.cli backup` / `restore`; docs/operations.md).

A backup is a folder `backup-<UTC>` holding:

- the operational database: SQLite through its online backup API (`database.sqlite`, consistent while the
  API writes), PostgreSQL through `pg_dump --format=custom` (`database.pgdump`);
- the files under DATA_DIR that the database or the marts depend on: `keys/` (without the integration
  secrets key nothing sealed opens, without the audit key the audit chain cannot be verified), `audit/`,
  the content-addressed `landing/` zone, `evidence/`, the `drop/` and `feeds/` folders not yet ingested,
  and `warehouse/raw/` (dbt's input);
- the published marts snapshot and its pointer, so a restored installation serves its analytics before
  its first rebuild;
- `manifest.json`: every file's path, size and SHA-256, the database's kind and migration revision.

The database is copied first and the files after: landing and evidence files are written before the rows
that name them are committed, so every row of the copy finds its file (a newer file is merely unnamed).
The folder is written as `backup-<UTC>.partial` and renamed when complete, so an interrupted backup never
looks like one. A restore verifies every file against the manifest before it writes anything, refuses a
target that already holds an installation, then copies, loads the database and migrates it to head.
What is left out is rebuilt: `warehouse/build/` (per-run dbt databases), Dagster's run history, the outbox.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import URL, make_url

from api.core.settings import Settings
from api.infra.db import migrate as migrations
from pipelines.warehouse.sources import sha256_of

FORMAT = 1
MANIFEST = "manifest.json"
TREES = ("keys", "audit", "landing", "evidence", "drop", "feeds", "warehouse/raw")
SNAPSHOT_DIR = "warehouse/snapshots"
POINTER = "warehouse/published.json"
_CHUNK = 1 << 20
_DIR_MODE = 0o700
_FILE_MODE = 0o600


class BackupError(RuntimeError):
    """A backup could not be made or restored; the message says what to do. Nothing half-done is left
    looking complete (a backup) or written at all (a restore refused before its first write)."""


@dataclass(frozen=True)
class BackupResult:
    path: Path
    files: int
    bytes: int
    database: str


def _stamp(now: datetime) -> str:
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _copy_hashing(src: Path, dst: Path) -> tuple[int, str]:
    """Copy `src` to `dst` (0600) in chunks; answer its size and SHA-256 (one pass, constant memory)."""
    digest = hashlib.sha256()
    size = 0
    dst.parent.mkdir(parents=True, exist_ok=True, mode=_DIR_MODE)
    with src.open("rb") as source, open(os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE), "wb") as out:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
        out.flush()
        os.fsync(out.fileno())
    return size, digest.hexdigest()


def _regular_files(root: Path) -> Iterator[Path]:
    """Regular files under `root`, never following a symbolic link (a link could point out of DATA_DIR)."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink() and not name.endswith(".tmp"):
                yield path


def _libpq(url: URL) -> tuple[str, dict[str, str]]:
    """A libpq URL for pg_dump / pg_restore without the password, which goes in PGPASSWORD instead (a
    command line is visible to every user of the machine)."""
    env = {**os.environ}
    if url.password:
        env["PGPASSWORD"] = str(url.password)
    plain = url.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def _run_pg_tool(args: list[str], env: dict[str, str], what: str) -> None:
    tool = shutil.which(args[0])
    if tool is None:
        raise BackupError(f"{args[0]} is not on PATH: install PostgreSQL's client tools to {what}")
    done = subprocess.run([tool, *args[1:]], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        # The tools' own messages name tables and connection settings, never row data.
        raise BackupError(f"{args[0]} failed ({done.returncode}) to {what}: {done.stderr.strip()[-500:]}")


def _revision(url: str) -> str | None:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text("select version_num from alembic_version")).scalar()
    finally:
        engine.dispose()


def _backup_database(url_text: str, folder: Path) -> tuple[str, str]:
    url = make_url(url_text)
    if url.get_backend_name() == "sqlite":
        if not url.database or not Path(url.database).is_file():
            raise BackupError("the SQLite database does not exist yet: run `launcher.cli migrate` first")
        target = folder / "database.sqlite"
        source = sqlite3.connect(f"file:{url.database}?mode=ro", uri=True)
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)  # online and consistent: readers and writers may go on meanwhile
        finally:
            copy.close()
            source.close()
        os.chmod(target, _FILE_MODE)
        return "sqlite", target.name
    if url.get_backend_name() == "postgresql":
        libpq, env = _libpq(url)
        target = folder / "database.pgdump"
        _run_pg_tool(["pg_dump", "--format=custom", "--no-owner", f"--file={target}", libpq], env, "dump the database")
        os.chmod(target, _FILE_MODE)
        return "postgresql", target.name
    raise BackupError(f"backups support SQLite and PostgreSQL, not {url.get_backend_name()}")


def create_backup(settings: Settings, destination: Path, *, now: datetime | None = None) -> BackupResult:
    """Write a backup of this installation into a new folder under `destination`."""
    data_dir = settings.resolved_data_dir
    destination = destination.resolve()
    if destination.is_relative_to(data_dir):
        raise BackupError("the backup folder must be outside DATA_DIR (a backup would copy itself)")
    final = destination / f"backup-{_stamp(now or datetime.now(UTC))}"
    partial = final.with_name(final.name + ".partial")
    if final.exists() or partial.exists():
        raise BackupError(f"{final.name} exists already; wait a second and run the backup again")
    partial.mkdir(parents=True, mode=_DIR_MODE)
    revision = _revision(settings.resolved_database_url)
    kind, database_file = _backup_database(settings.resolved_database_url, partial)
    files: list[dict[str, Any]] = []
    for tree in TREES:
        for path in _regular_files(data_dir / tree):
            relative = path.relative_to(data_dir).as_posix()
            size, digest = _copy_hashing(path, partial / "data" / relative)
            files.append({"path": relative, "size": size, "sha256": digest})
    snapshot = _backup_snapshot(data_dir, partial, files)
    manifest = {
        "format": FORMAT,
        "created_at": (now or datetime.now(UTC)).astimezone(UTC).isoformat(),
        "database": {
            "kind": kind,
            "file": database_file,
            "sha256": sha256_of(partial / database_file),
            "revision": revision,
        },
        "files": files,
        "snapshot": snapshot,
    }
    (partial / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    os.chmod(partial / MANIFEST, _FILE_MODE)
    partial.rename(final)
    return BackupResult(final, len(files), sum(int(f["size"]) for f in files), kind)


def _backup_snapshot(data_dir: Path, folder: Path, files: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The published snapshot (the file the pointer names now; snapshots are never rewritten) and the
    pointer's fields without its absolute path, which a restore writes for its own DATA_DIR."""
    pointer_path = data_dir / POINTER
    if not pointer_path.is_file():
        return None
    pointer = json.loads(pointer_path.read_text())
    name = Path(pointer["snapshot"]).name
    relative = f"{SNAPSHOT_DIR}/{name}"
    size, digest = _copy_hashing(data_dir / relative, folder / "data" / relative)
    files.append({"path": relative, "size": size, "sha256": digest})
    return {**{k: v for k, v in pointer.items() if k != "snapshot"}, "file": relative}


def _safe_relative(path: str) -> PurePosixPath:
    relative = PurePosixPath(path)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise BackupError(f"the manifest names a path outside the backup ({path!r}): the backup is not ours")
    return relative


def verify_backup(folder: Path) -> dict[str, Any]:
    """The backup's manifest once every file it lists is present with its size and SHA-256."""
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise BackupError(f"{folder} has no {MANIFEST}: not a backup, or one that did not finish")
    try:
        manifest: dict[str, Any] = json.loads(manifest_path.read_text())
    except (ValueError, UnicodeDecodeError):
        raise BackupError(f"{MANIFEST} is not valid JSON: the backup is damaged") from None
    if manifest.get("format") != FORMAT:
        raise BackupError(f"backup format {manifest.get('format')!r} is not {FORMAT}: restore it with its version")
    database = manifest["database"]
    db_file = folder / _safe_relative(database["file"])
    if not db_file.is_file() or sha256_of(db_file) != database["sha256"]:
        raise BackupError("the database file of the backup is missing or damaged (SHA-256 differs)")
    for entry in manifest["files"]:
        path = folder / "data" / _safe_relative(entry["path"])
        if not path.is_file():
            raise BackupError(f"{entry['path']} is listed in the manifest but missing from the backup")
        if path.stat().st_size != entry["size"] or sha256_of(path) != entry["sha256"]:
            raise BackupError(f"{entry['path']} differs from the manifest (size or SHA-256): the backup is damaged")
    return manifest


def _refuse_occupied(settings: Settings) -> None:
    data_dir = settings.resolved_data_dir
    occupied = [tree for tree in (*TREES, SNAPSHOT_DIR) if any(_regular_files(data_dir / tree))]
    if occupied:
        raise BackupError(f"DATA_DIR already holds {', '.join(occupied)}: restore into an empty DATA_DIR")
    engine = create_engine(settings.resolved_database_url)
    try:
        with engine.connect() as conn:
            tables = inspect(conn).get_table_names()
    finally:
        engine.dispose()
    if tables:
        raise BackupError(f"the target database already has {len(tables)} tables: restore into an empty database")


def _restore_database(settings: Settings, folder: Path, database: dict[str, Any]) -> None:
    url = make_url(settings.resolved_database_url)
    if database["kind"] != url.get_backend_name():
        raise BackupError(
            f"the backup holds a {database['kind']} database and DATABASE_URL is {url.get_backend_name()}: "
            "restore to the same kind of database"
        )
    source = folder / database["file"]
    if database["kind"] == "sqlite":
        assert url.database  # a SQLite URL with a file, checked by _refuse_occupied's connection
        target = Path(url.database)
        target.unlink(missing_ok=True)  # the empty file the emptiness check's connection created
        shutil.copyfile(source, target)
        os.chmod(target, _FILE_MODE)
        return
    libpq, env = _libpq(url)
    _run_pg_tool(
        ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={libpq}", str(source)], env, "load the database"
    )


def restore_backup(settings: Settings, folder: Path) -> dict[str, Any]:
    """Restore the backup in `folder` into this installation's (empty) DATA_DIR and database, then migrate
    the database to head. Answers the manifest."""
    manifest = verify_backup(folder.resolve())
    _refuse_occupied(settings)
    data_dir = settings.resolved_data_dir
    for entry in manifest["files"]:
        relative = _safe_relative(entry["path"])
        target = data_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True, mode=_DIR_MODE)
        shutil.copyfile(folder / "data" / relative, target)
        os.chmod(target, _FILE_MODE)
    snapshot = manifest.get("snapshot")
    if snapshot:
        pointer = {k: v for k, v in snapshot.items() if k != "file"} | {"snapshot": str(data_dir / snapshot["file"])}
        pointer_path = data_dir / POINTER
        pointer_path.write_text(json.dumps(pointer, indent=2, sort_keys=True) + "\n")
        os.chmod(pointer_path, _FILE_MODE)
    _restore_database(settings, folder.resolve(), manifest["database"])
    migrations.upgrade(settings.resolved_database_url)
    return manifest
