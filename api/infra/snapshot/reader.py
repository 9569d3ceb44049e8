"""Serving the marts from the last *published* snapshot.

The pipeline builds marts into a new DuckDB file and then atomically replaces
`warehouse/published.json`; this reader follows that pointer. A request gets a
connection on which every mart is visible only through a temporary view
filtered to the caller's organization and client: procedure SQL names marts
unqualified (`fct_kpis_monthly`) and cannot reach another tenant's rows. Such a
connection is kept after the request and reused only for the same snapshot,
tenant and list of marts (see `_Published`). The
snapshot itself is attached read-only, so a running build never blocks a reader
and a reader never sees a half-built mart.

Typed rows: mart rows leave a namespace's `queries` module as pydantic models,
never as dicts. A row served as-is is validated straight into the wire model of
the namespace's `schemas` module (`rows_as` / `one_as`); an intermediate row
that a query combines or computes on is a frozen `MartRow` declared next to the
query. `one()` is for aggregates, which always return exactly one row;
`one_or_none()` for lookups by key.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import duckdb
from pydantic import BaseModel, ConfigDict

from api.core.errors import PreconditionFailed

_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
_QUALIFIED = re.compile(r"\bsnap\s*\.", re.IGNORECASE)
M = TypeVar("M", bound=BaseModel)


class MartRow(BaseModel):
    """An intermediate mart row inside a `queries` module: snake_case, immutable, unknown columns ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


@dataclass(frozen=True)
class Snapshot:
    path: Path
    built_at: datetime
    tables: tuple[str, ...]
    tenant_tables: frozenset[str]  # tables with organization_id/client_id; the rest is reference data
    run_id: str | None = None  # the pipeline run that published it
    schema: str = "main"  # the snapshot schema holding the marts
    # Quarantine (pipelines/warehouse/quarantine.py): the tenants a failing mart contract held back, with
    # the reason, and when each held-back client's rows were built (None: it has no rows yet).
    quarantines: tuple[dict[str, Any], ...] = ()
    tenant_data_built_at: dict[int, datetime | None] = field(default_factory=dict)

    def data_built_at(self, client_id: int | None) -> datetime | None:
        """When the rows of `client_id` were built: the snapshot's build unless the client is held back."""
        if client_id is not None and client_id in self.tenant_data_built_at:
            return self.tenant_data_built_at[client_id]
        return self.built_at

    def quarantines_of(self, organization_id: int, client_id: int | None) -> list[dict[str, Any]]:
        """The quarantine entries of one tenant (of the organization when `client_id` is None)."""
        return [
            q
            for q in self.quarantines
            if q.get("organization_id") == organization_id and client_id in (None, q.get("client_id"))
        ]


class ScopedMarts:
    """One request's view of the marts: tenant-filtered, read-only."""

    def __init__(
        self,
        conn: duckdb.DuckDBPyConnection,
        snapshot: Snapshot,
        organization_id: int | None = None,
        client_id: int | None = None,
        clients: frozenset[int] | None = None,
    ) -> None:
        self.conn = conn
        self.snapshot = snapshot
        self.organization_id = organization_id
        self.client_id = client_id  # None: organization-wide (or unscoped)
        # Organization-wide views for a member reaching only some clients: only these clients' rows.
        self.clients = clients

    def quarantines(self) -> list[dict[str, Any]]:
        """The quarantine entries of the rows this view shows."""
        if self.organization_id is None:
            return []
        found = self.snapshot.quarantines_of(self.organization_id, self.client_id)
        return found if self.clients is None else [q for q in found if q.get("client_id") in self.clients]

    @property
    def built_at(self) -> datetime:
        return self.snapshot.built_at

    @property
    def run_id(self) -> str | None:
        return self.snapshot.run_id

    def has(self, table: str) -> bool:
        return table in self.snapshot.tables

    def rows(self, sql: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        if _names_snapshot(sql):
            # The unscoped tables are attached as `snap`; naming them would skip the tenant filter.
            raise RuntimeError("mart SQL must name marts unqualified (tenant-scoped views), not snap.*")
        cur = self.conn.execute(sql, params or {})
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def one(self, sql: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The single row of an aggregate query; a query that returns none is a programming error."""
        found = self.one_or_none(sql, params)
        if found is None:
            raise LookupError("mart query expected to return one row returned none")
        return found

    def one_or_none(self, sql: str, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The first row, or None when the query returns nothing (a lookup by key)."""
        found = self.rows(sql, params)
        return found[0] if found else None

    def rows_as(self, model: type[M], sql: str, params: dict[str, Any] | None = None) -> list[M]:
        """`rows` validated into `model`."""
        return [model.model_validate(row) for row in self.rows(sql, params)]

    def one_as(self, model: type[M], sql: str, params: dict[str, Any] | None = None) -> M:
        """`one` validated into `model`."""
        return model.model_validate(self.one(sql, params))


@lru_cache(maxsize=1024)
def _names_snapshot(sql: str) -> bool:
    """Whether `sql` names the attached snapshot (`snap.`). Procedures run the same few statement texts
    over and over, so the answer is remembered per text: the search costs tens of µs on a long statement."""
    return _QUALIFIED.search(sql) is not None


# (organization, client or None, the clients an organization-wide view is limited to or None, marts)
_PoolKey = tuple[int, int | None, tuple[int, ...] | None, tuple[str, ...]]


class _Published:
    """One published snapshot attached read-only, and the idle tenant connections made on it.

    A request used to get a fresh cursor and create its tenant views every time (about a
    millisecond for two marts, most of a small mart read). The views depend only on the
    snapshot, the tenant and the marts named, so a connection with its views is kept after
    the request and handed to the next request with exactly that key. A connection is only
    ever reused for the same organization, client and table list, so its views never show
    another tenant's rows; idle connections are bounded per key and in number of keys.
    """

    MAX_IDLE_PER_KEY = 8  # about the number of worker threads that read marts at once
    MAX_KEYS = 256  # least recently used tenant/table lists beyond this are closed

    def __init__(self, stamp: tuple[int, ...], snapshot: Snapshot, root: duckdb.DuckDBPyConnection):
        self.stamp = stamp
        self.snapshot = snapshot
        self.root = root
        self._idle: OrderedDict[_PoolKey, list[duckdb.DuckDBPyConnection]] = OrderedDict()
        self._lock = threading.Lock()
        self.retired = False

    def take(self, key: _PoolKey) -> duckdb.DuckDBPyConnection:
        with self._lock:
            idle = self._idle.get(key)
            if idle:
                self._idle.move_to_end(key)
                return idle.pop()
        organization_id, client_id, clients, tables = key
        conn = self.root.cursor()
        try:
            where = f"organization_id = {organization_id}"
            if client_id is not None:
                where += f" AND client_id = {client_id}"
            if clients is not None:  # ints only (the key is built from ints): safe to inline
                where += f" AND client_id IN ({', '.join(str(int(c)) for c in clients)})" if clients else " AND FALSE"
            schema = self.snapshot.schema
            for table in tables:
                scope = f" WHERE {where}" if table in self.snapshot.tenant_tables else ""
                conn.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM snap.{schema}.{table}{scope}")
        except BaseException:
            conn.close()
            raise
        return conn

    def give_back(self, key: _PoolKey, conn: duckdb.DuckDBPyConnection) -> None:
        evicted: list[duckdb.DuckDBPyConnection] = []
        with self._lock:
            if self.retired:
                evicted.append(conn)
            else:
                idle = self._idle.setdefault(key, [])
                self._idle.move_to_end(key)
                if len(idle) < self.MAX_IDLE_PER_KEY:
                    idle.append(conn)
                else:
                    evicted.append(conn)
                while len(self._idle) > self.MAX_KEYS:
                    evicted.extend(self._idle.popitem(last=False)[1])
        for old in evicted:
            old.close()

    def retire(self) -> None:
        """A newer snapshot was published: close the idle connections; busy ones close when returned."""
        with self._lock:
            self.retired = True
            idle = [conn for conns in self._idle.values() for conn in conns]
            self._idle.clear()
        for conn in idle:
            conn.close()


class MartReader:
    """Follows the published pointer; one attached DuckDB per snapshot."""

    def __init__(self, warehouse_dir: Path) -> None:
        self.pointer = warehouse_dir / "published.json"
        self._lock = threading.Lock()
        self._current: _Published | None = None

    def _load(self) -> _Published:
        try:
            stamp = _identity(self.pointer.stat())
        except FileNotFoundError:
            raise PreconditionFailed(
                "No analytics snapshot has been published yet: run the pipeline (operations.runPipeline)",
            ) from None
        with self._lock:
            if self._current and self._current.stamp == stamp:
                return self._current
            doc = json.loads(self.pointer.read_text())
            path = Path(doc["snapshot"])
            # The publisher names the schema holding the marts; older pointers had them in `main`.
            schema = doc.get("schema") or "main"
            if not _IDENT.match(schema):
                raise RuntimeError("published pointer names an invalid mart schema")
            conn = duckdb.connect(":memory:")
            conn.execute(f"ATTACH '{_quote(path)}' AS snap (READ_ONLY)")
            columns = conn.execute(
                "SELECT table_name, column_name FROM duckdb_columns() "
                "WHERE database_name = 'snap' AND schema_name = $schema",
                {"schema": schema},
            ).fetchall()
            snapshot = _snapshot(doc, path, schema, columns)
            # The previous root connection is left to the garbage collector: requests that
            # still hold its cursors finish on the snapshot they started with.
            previous, self._current = self._current, _Published(stamp, snapshot, conn)
            if previous is not None:
                previous.retire()
            return self._current

    @contextmanager
    def scoped(
        self,
        organization_id: int,
        client_id: int | None,
        tables: Iterable[str] | None = None,
        *,
        clients: frozenset[int] | None = None,
    ) -> Iterator[ScopedMarts]:
        """A tenant view of the marts; `tables` limits the views to the marts a request names
        (default all). Unlisted marts are simply absent. An organization-wide view (`client_id` None)
        is limited to `clients` when given (a member reaching only some clients)."""
        published = self._load()
        snapshot = published.snapshot
        wanted = snapshot.tables if tables is None else tuple(t for t in snapshot.tables if t in set(tables))
        only = None if clients is None or client_id is not None else tuple(sorted(int(c) for c in clients))
        key: _PoolKey = (int(organization_id), None if client_id is None else int(client_id), only, wanted)
        conn = published.take(key)
        try:
            yield ScopedMarts(conn, snapshot, key[0], key[1], None if only is None else frozenset(only))
        except BaseException:
            # A failed request may have left the connection mid-statement: not worth reusing.
            conn.close()
            raise
        published.give_back(key, conn)


def _identity(stat: os.stat_result) -> tuple[int, ...]:
    """What tells one version of the pointer file from the next without reading it. The publisher
    replaces the file (`os.replace`), so a new pointer is a new inode even when the clock is too coarse
    to give it another modification time; size and times catch a rewrite in place."""
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def _snapshot(doc: dict[str, Any], path: Path, schema: str, columns: list[tuple[str, str]]) -> Snapshot:
    """The snapshot the pointer document describes, from the (table, column) pairs of its mart schema."""
    tables = sorted({t for t, _ in columns if _IDENT.match(t)})
    with_org = {t for t, c in columns if c == "organization_id"}
    with_client = {t for t, c in columns if c == "client_id"}
    return Snapshot(
        path=path,
        built_at=datetime.fromisoformat(doc["built_at"].replace("Z", "+00:00")),
        tables=tuple(tables),
        tenant_tables=frozenset(with_org & with_client),
        run_id=doc.get("run_id"),
        schema=schema,
        quarantines=tuple(doc.get("quarantines") or ()),
        tenant_data_built_at={
            int(client): _instant(held.get("built_at")) for client, held in (doc.get("tenant_data") or {}).items()
        },
    )


def _instant(text: str | None) -> datetime | None:
    return None if not text else datetime.fromisoformat(text.replace("Z", "+00:00"))


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")
