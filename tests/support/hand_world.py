"""Hand-written files through the whole product path: upload -> confirm -> pipeline -> procedures.

`HandWorld` is one tenant on a fresh operational database (SQLite or PostgreSQL, the
`hand_world` fixture in tests/integration/conftest.py is parametrised over both) with its own data
directory. A test posts files over the real wire (`post`), runs the pipeline the way the product does
(`operations.runPipeline` + a job worker), then reads procedures (`tenant.rpc`) and the published
DuckDB marts (`marts`). `marts_on_postgres` builds the same dbt project on PostgreSQL from the same
raw layer, so a test can hold both warehouses to the numbers it writes by hand.

Nothing here computes an expected figure: tests write theirs by hand from the segments.
"""

from __future__ import annotations

import base64
import dataclasses
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        """`operations.runPipeline`, worked by a job worker as in production; returns the finished run."""
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
        """Rows of the published DuckDB snapshot (every tenant's rows: filter by client_id in `sql`)."""
        with open_published(self.data_dir) as snap:
            return [tuple(r) for r in snap.connection.execute(sql, list(params)).fetchall()]

    @contextmanager
    def marts_on_postgres(self) -> Iterator[psycopg.Connection]:
        """The same dbt project built on PostgreSQL from this world's raw layer (schema `marts`)."""
        if self.admin_url is None:
            raise RuntimeError("marts_on_postgres needs the postgres variant of hand_world")
        from tests.conftest import create_pg_database, drop_pg_database

        url = create_pg_database(self.admin_url)
        try:
            load_into_postgres(WarehouseLayout.at(self.data_dir), url)
            built = dbt_build_postgres(url, target_path=self.data_dir / f"pg_target_{uuid.uuid4().hex[:6]}")
            assert built.returncode == 0, built.stdout[-5000:]
            with psycopg.connect(url) as conn:
                conn.execute("set search_path to marts")
                yield conn
        finally:
            drop_pg_database(self.admin_url, url)
