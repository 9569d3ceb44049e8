"""The PostgreSQL warehouse's side of a build: one build at a time, and its marts exported to DuckDB.

With ``WAREHOUSE_URL`` set, the dbt step loads the raw zone and the extract into PostgreSQL
(``pg_load``), runs ``dbt build --target postgres`` and then exports here, into the run's
build file (``WarehouseLayout.build_db_for``), the tables the publish step reads: every table of
the ``marts`` schema and the failing rows of the contract tests that failed (their stored
failures, which ``quarantine.find_quarantines`` attributes to tenants). The publish step then
runs unchanged, so the API keeps one read path: immutable DuckDB snapshots.

Builds on one warehouse database take turns (``build_lock``, a PostgreSQL advisory lock held for
the whole load, build and export): the schemas are the layer names the models and the loader
address (raw, ops_extract, staging, intermediate, marts), so two builds at once would replace
each other's tables mid-build. Each build reads the whole raw zone, so the second of two
concurrent builds computes the same marts again: waiting loses nothing but time. The lock is a
session lock: a build process that dies (kill -9, OOM) releases it with its connection.

Export streams ``COPY (select ...) TO STDOUT (format csv)`` into a scratch file that DuckDB reads
with the columns' types stated (no type sniffing, no DuckDB extension). Types follow the
PostgreSQL columns; a ``numeric`` without a declared scale (a sum, a ratio) becomes
``DECIMAL(38, s)`` with ``s`` the largest scale its values carry (at most ``MAX_SCALE``), which is
what the DuckDB build gives a sum of ``DECIMAL(18, 2)`` money.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

import duckdb
import psycopg

from pipelines.warehouse.layout import PRIVATE_FILE_MODE

MARTS_SCHEMA = "marts"
#: pg_advisory_lock's key for "a build of this warehouse database is running" (any constant bigint)
BUILD_LOCK_KEY = 7_301_930_001
MAX_SCALE = 18
_SIMPLE_TYPES = {
    "smallint": "SMALLINT",
    "integer": "INTEGER",
    "bigint": "BIGINT",
    "text": "VARCHAR",
    "character varying": "VARCHAR",
    "character": "VARCHAR",
    "date": "DATE",
    "boolean": "BOOLEAN",
    "double precision": "DOUBLE",
    "real": "FLOAT",
    "timestamp without time zone": "TIMESTAMP",
    "timestamp with time zone": "TIMESTAMPTZ",
}


def plain_url(url: str) -> str:
    """A libpq URL (psycopg) from a SQLAlchemy-style one (``postgresql+psycopg://``)."""
    for prefix in ("postgresql+psycopg://", "postgresql+psycopg2://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix) :]
    return url


def database_name(url: str) -> str:
    """The database a PostgreSQL URL names (dbt's relation names start with it)."""
    return unquote(urlparse(plain_url(url)).path.lstrip("/"))


@contextlib.contextmanager
def build_lock(url: str) -> Iterator[None]:
    """Hold the warehouse database's build lock (waiting for a build in progress to finish)."""
    with psycopg.connect(plain_url(url), autocommit=True) as conn:
        conn.execute("select pg_advisory_lock(%s)", [BUILD_LOCK_KEY])
        try:
            yield
        finally:
            conn.execute("select pg_advisory_unlock(%s)", [BUILD_LOCK_KEY])


def split_relation(relation: str) -> tuple[str, str]:
    """``(schema, name)`` of dbt's ``"database"."schema"."name"`` relation name."""
    parts = [part.strip().strip('"') for part in relation.split(".")]
    if len(parts) < 2 or not all(parts[-2:]):
        raise ValueError(f"not a schema-qualified relation: {relation!r}")
    return parts[-2], parts[-1]


def mart_relations(conn: psycopg.Connection) -> list[tuple[str, str]]:
    rows = conn.execute(
        "select table_schema, table_name from information_schema.tables "
        "where table_schema = %s and table_type = 'BASE TABLE' order by table_name",
        [MARTS_SCHEMA],
    ).fetchall()
    return [(str(schema), str(name)) for schema, name in rows]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _column_types(conn: psycopg.Connection, schema: str, name: str) -> list[tuple[str, str]]:
    """``(column, DuckDB type)`` in column order."""
    columns = conn.execute(
        "select column_name, data_type, numeric_precision, numeric_scale from information_schema.columns "
        "where table_schema = %s and table_name = %s order by ordinal_position",
        [schema, name],
    ).fetchall()
    if not columns:
        raise LookupError(f"{schema}.{name} does not exist in the warehouse database")
    free = [str(c[0]) for c in columns if c[1] == "numeric" and c[3] is None]
    scales: dict[str, int] = {}
    if free:
        row = conn.execute(
            "select " + ", ".join(f"max(scale({_quote(c)}))" for c in free) + f" from {_quote(schema)}.{_quote(name)}"
        ).fetchone()
        scales = {c: min(int(s or 0), MAX_SCALE) for c, s in zip(free, row or (), strict=False)}
    out = []
    for column, data_type, precision, scale in columns:
        if data_type == "numeric" and scale is not None and precision is not None and int(precision) <= 38:
            duck_type = f"DECIMAL({int(precision)}, {int(scale)})"
        elif data_type == "numeric":
            duck_type = f"DECIMAL(38, {scales.get(str(column), 0)})"
        else:
            duck_type = _SIMPLE_TYPES.get(str(data_type), "VARCHAR")
        out.append((str(column), duck_type))
    return out


def _export_one(
    conn: psycopg.Connection, duck: duckdb.DuckDBPyConnection, schema: str, name: str, scratch: Path
) -> int:
    columns = _column_types(conn, schema, name)
    target = f"{_quote(schema)}.{_quote(name)}"
    duck.execute(f"create schema if not exists {_quote(schema)}")
    duck.execute(f"create table {target} (" + ", ".join(f"{_quote(c)} {t}" for c, t in columns) + ")")
    csv_path = scratch / f"{schema}.{name}.csv"
    select = ", ".join(_quote(c) for c, _ in columns)
    with (
        open(csv_path, "wb") as fh,
        conn.cursor().copy(f"copy (select {select} from {target}) to stdout (format csv)") as copy,
    ):
        for block in copy:
            fh.write(block)
    if csv_path.stat().st_size:
        spec = "{" + ", ".join(f"'{c.replace(chr(39), chr(39) * 2)}': '{t}'" for c, t in columns) + "}"
        duck.execute(
            f"insert into {target} select * from read_csv('{csv_path}', columns = {spec}, header = false, "
            "auto_detect = false, allow_quoted_nulls = false, quote = '\"', escape = '\"', delim = ',')"
        )
    csv_path.unlink()
    row = duck.execute(f"select count(*) from {target}").fetchone()
    assert row is not None  # count(*) always answers one row
    return int(row[0])


def export_build(url: str, build_db: Path, extra: Sequence[tuple[str, str]] = ()) -> dict[str, int]:
    """Write every ``marts`` table (and the ``extra`` relations: failing test rows, tested models) of the
    warehouse database at ``url`` into a new DuckDB file ``build_db``; returns rows per ``schema.name``."""
    build_db.parent.mkdir(parents=True, exist_ok=True)
    build_db.unlink(missing_ok=True)
    counts: dict[str, int] = {}
    with (
        tempfile.TemporaryDirectory(prefix="pgexport-", dir=build_db.parent) as tmp,
        psycopg.connect(plain_url(url)) as conn,
    ):
        conn.execute("set timezone to 'UTC'")
        relations = mart_relations(conn)
        relations += [r for r in dict.fromkeys(extra) if r not in relations]
        duck = duckdb.connect(str(build_db))
        try:
            for schema, name in relations:
                counts[f"{schema}.{name}"] = _export_one(conn, duck, schema, name, Path(tmp))
            duck.execute("checkpoint")
        finally:
            duck.close()
    build_db.chmod(PRIVATE_FILE_MODE)  # the marts are PHI
    return counts
