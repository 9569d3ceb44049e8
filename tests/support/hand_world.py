"""Hand-written files through the whole product path: upload -> confirm -> pipeline -> procedures.

`HandWorld` is one tenant on a fresh operational database (SQLite or PostgreSQL, the
`hand_world` fixture in tests/integration/conftest.py is parametrised over both) with its own data
directory. A test posts files over the real wire (`post`), runs the pipeline the way the product does
(`operations.runPipeline` + a job worker), then reads procedures (`tenant.rpc`) and the published
DuckDB marts (`marts`). `marts_on_postgres` builds the same dbt project on PostgreSQL from the same
raw layer, so a test can hold both warehouses to the numbers it writes by hand.

Nothing here computes an expected figure: tests write theirs by hand from the segments.

Most modules post their files and read the results of one run. They share one world per backend
(`shared_hand_world`): a module registers its setup with `@before_shared_run`; the session's world runs
every registered setup in a tenant of its own, then the pipeline once, and the module's fixture takes
its tenant and what its setup returned from `shared_hand_world.of(setup)`. A tenant's `marts` and
`marts_on_postgres` see that tenant's rows only, so a module's hand-written figures stay its own; one
run builds every tenant, as in production. A module that runs the pipeline again, or needs the
installation to itself, takes the module-scoped `hand_world` instead.
"""

from __future__ import annotations

import base64
import dataclasses
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import psycopg

from api.infra.jobs.worker import Worker
from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.pg_load import dbt_build_postgres, load_into_postgres
from pipelines.warehouse.snapshot import open_published
from tests.support.paths import X12_FIXTURES
from tests.support.rpc_client import Rpc, collect_pages
from tests.support.tenancy import new_organization

HAND = X12_FIXTURES / "hand"


@dataclass
class HandTenant:
    organization_id: int
    client_id: int
    rpc: Rpc


@dataclass
class HandWorld:
    settings: Any
    services: Any
    http: Any
    tenant: HandTenant
    admin_url: str | None  # PostgreSQL server when the operational database is PostgreSQL
    batches: dict[str, dict] = field(default_factory=dict)  # file name -> batch after upload/confirm
    shared: SharedHandWorld | None = None  # set on a tenant of the shared world: reads see its rows only

    @property
    def rpc(self) -> Rpc:
        return self.tenant.rpc

    @property
    def data_dir(self) -> Path:
        return Path(self.settings.resolved_data_dir)

    def upload(self, name: str, *, folder: Path = HAND, procedure: str = "ingestion.uploadEra") -> dict:
        """Upload one fixture file; returns the import batch (whatever its status)."""
        body = {"filename": name, "contentBase64": base64.b64encode((folder / name).read_bytes()).decode()}
        batch = self.rpc.mutation(procedure, body).data["batch"]
        self.batches[name] = batch
        return batch

    def confirm(self, batch: dict, *, imbalance_reason: str | None = None) -> dict:
        extra = {"acknowledgeImbalance": {"reason": imbalance_reason}} if imbalance_reason else {}
        confirmed = self.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"], **extra}).data
        return confirmed

    def post(self, *names: str, folder: Path = HAND, procedure: str = "ingestion.uploadEra") -> list[dict]:
        """Upload and confirm each file in order. A held batch is confirmed with an acknowledged imbalance
        (the reason names the file); a failed or duplicate one is left as it is and returned as such."""
        out = []
        for name in names:
            batch = self.upload(name, folder=folder, procedure=procedure)
            if batch["status"] in ("parsed", "held"):
                reason = f"hand fixture {name}" if batch["status"] == "held" else None
                self.confirm(batch, imbalance_reason=reason)
                batch = self.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
            self.batches[name] = batch
            out.append(batch)
        return out

    def run_pipeline(self) -> dict:
        """`operations.runPipeline`, worked by a job worker as in production; returns the finished run.
        A tenant of the shared world gets the world's one run (asked for once setups have posted)."""
        if self.shared is not None:
            if self.shared.run is None:
                raise RuntimeError("the shared hand world runs the pipeline once, after every setup has posted")
            return self.shared.run
        queued = self.rpc.mutation("operations.runPipeline", {}).data
        worker = Worker(self.services.database, kinds=["pipeline.run"], worker_id=f"hand-{uuid.uuid4().hex[:6]}")
        for _ in range(5):
            if not worker.run_once():
                break
        return self.rpc.query("operations.getRun", {"runId": queued["id"]}).data

    def add_tenant(self, name: str = "Other") -> HandTenant:
        """A second tenant in the same installation: a new organization (and its first client) created by
        the same user, so one pipeline run builds both tenants' marts."""
        user_id = self.rpc.as_(self.rpc.token).query("auth.session").data["userId"]
        org = new_organization(self.services, user_id, f"{name} {uuid.uuid4().hex[:8]}", name)
        return HandTenant(org["id"], org["firstClientId"], self.rpc.as_(self.rpc.token, org["firstClientId"]))

    def as_tenant(self, tenant: HandTenant) -> HandWorld:
        """This world seen as `tenant` (same database, data directory and server; its own batches)."""
        return dataclasses.replace(self, tenant=tenant, batches={})

    def pages(self, path: str, input: dict | None = None) -> list[dict]:
        return collect_pages(self.rpc, path, input or {})

    def marts(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Rows of the published DuckDB snapshot: every tenant's rows (filter by client_id in `sql`), or
        on a tenant of the shared world, the tenant's own rows of every table that has a client_id."""
        with open_published(self.data_dir) as snap:
            if self.shared is not None:
                _duckdb_tenant_views(snap.connection, self.tenant.client_id)
            return [tuple(r) for r in snap.connection.execute(sql, list(params)).fetchall()]

    @contextmanager
    def marts_on_postgres(self) -> Iterator[psycopg.Connection]:
        """The same dbt project built on PostgreSQL from this world's raw layer (schema `marts`); on a
        tenant of the shared world, built once for every tenant and seen through the tenant's views."""
        if self.admin_url is None:
            raise RuntimeError("marts_on_postgres needs the postgres variant of hand_world")
        if self.shared is not None:
            with psycopg.connect(self.shared.postgres_marts()) as conn:
                _postgres_tenant_views(conn, self.tenant.client_id)
                yield conn
            return
        with postgres_marts(self.admin_url, self.data_dir) as url, psycopg.connect(url) as conn:
            conn.execute("set search_path to marts")
            yield conn


@contextmanager
def postgres_marts(admin_url: str, data_dir: Path) -> Iterator[str]:
    """A PostgreSQL database holding the dbt project built from `data_dir`'s raw layer; dropped afterwards."""
    from tests.conftest import create_pg_database, drop_pg_database

    url = create_pg_database(admin_url)
    try:
        load_into_postgres(WarehouseLayout.at(data_dir), url)
        built = dbt_build_postgres(url, target_path=data_dir / f"pg_target_{uuid.uuid4().hex[:6]}")
        assert built.returncode == 0, built.stdout[-5000:]
        yield url
    finally:
        drop_pg_database(admin_url, url)


def _duckdb_tenant_views(connection: duckdb.DuckDBPyConnection, client_id: int) -> None:
    """Temporary views, named as the marts, over the rows of one client (they shadow the marts)."""
    schema, catalog = connection.execute("select current_schema(), current_database()").fetchone() or ("", "")
    tables = connection.execute(
        "select distinct table_name from information_schema.columns"
        " where column_name = 'client_id' and table_schema = ? and table_catalog = ?",
        [schema, catalog],
    ).fetchall()
    for (table,) in tables:
        connection.execute(
            f'create temp view "{table}" as select * from "{catalog}"."{schema}"."{table}"'
            f" where client_id = {int(client_id)}"
        )


def _postgres_tenant_views(connection: psycopg.Connection, client_id: int) -> None:
    """Schema `tenant_<client>`: views of the marts over one client's rows, searched before `marts`."""
    tenant = f"tenant_{int(client_id)}"
    connection.execute(f"create schema if not exists {tenant}")
    tables = connection.execute(
        "select distinct table_name from information_schema.columns"
        " where column_name = 'client_id' and table_schema = 'marts'"
    ).fetchall()
    for (table,) in tables:
        connection.execute(
            f'create or replace view {tenant}."{table}" as select * from marts."{table}"'
            f" where client_id = {int(client_id)}"
        )
    connection.commit()
    connection.execute(f"set search_path to {tenant}, marts")


#: A module's setup for the shared world: posts its files (and writes its rows) in the tenant it is given,
#: before the world's one run; what it returns is handed back by `SharedHandWorld.of`.
Setup = Callable[[HandWorld], Any]
_SETUPS: list[Setup] = []


def before_shared_run(setup: Setup) -> Setup:
    """Register `setup` with the shared hand world (at import: every module is collected before the
    world is built). The module's fixture reads `shared_hand_world.of(setup)`."""
    _SETUPS.append(setup)
    return setup


@dataclass
class SharedHandWorld:
    """Every registered setup's tenant in one installation, after one pipeline run."""

    world: HandWorld  # the installation and its first tenant, which queued the run
    run: dict | None = None
    tenants: dict[Setup, tuple[HandWorld, Any]] = field(default_factory=dict)
    failures: dict[Setup, BaseException] = field(default_factory=dict)
    _postgres_url: str | None = None
    _postgres: ExitStack | None = None  # drops the PostgreSQL marts

    def of(self, setup: Setup) -> tuple[HandWorld, Any]:
        """`setup`'s tenant (seeing its own rows) and what `setup` returned; raises what `setup` raised."""
        if setup in self.failures:
            raise RuntimeError(f"{setup.__module__}.{setup.__name__} failed in the shared hand world") from (
                self.failures[setup]
            )
        if setup not in self.tenants:
            raise RuntimeError(f"{setup.__module__}.{setup.__name__} is not registered with @before_shared_run")
        return self.tenants[setup]

    def postgres_marts(self) -> str:
        """The dbt project built once on PostgreSQL from the shared world's raw layer (every tenant)."""
        if self._postgres_url is None:
            assert self.world.admin_url is not None
            exits = ExitStack()
            self._postgres_url = exits.enter_context(postgres_marts(self.world.admin_url, self.world.data_dir))
            self._postgres = exits
        return self._postgres_url


@contextmanager
def open_shared(world: HandWorld) -> Iterator[SharedHandWorld]:
    """Run every registered setup in a tenant of its own inside `world`, then the pipeline once."""
    shared = SharedHandWorld(world)
    for setup in list(_SETUPS):
        tenant = world.as_tenant(world.add_tenant(setup.__module__.rsplit(".", 1)[-1]))
        tenant.shared = shared
        try:
            shared.tenants[setup] = (tenant, setup(tenant))
        except Exception as error:  # noqa: BLE001 - the setup's own module fails with it; the others go on
            shared.failures[setup] = error
    shared.run = world.run_pipeline()
    try:
        yield shared
    finally:
        if shared._postgres is not None:
            shared._postgres.close()
