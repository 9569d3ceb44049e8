"""Back up a running installation and restore it elsewhere (`launcher.cli backup` / `restore`), per backend.

A server is given real work over HTTP (an 835 uploaded and confirmed, so a denial case exists; evidence
attached to it; an integration with a sealed password) and a published marts snapshot. The backup is taken
while that server runs. It is restored into a fresh DATA_DIR and a fresh database, a server is started
there, and the restored installation must answer as the first did: the same batch and entries, the same
case and document, files byte for byte, the sealed password still opening (the keys came along), the audit
chain verifying against its checkpoints, the snapshot served. A damaged backup and an occupied target are
refused before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.publish import publish_snapshot
from pipelines.warehouse.snapshot import open_published
from tests.conftest import REPO, create_pg_database, drop_pg_database, require_postgres
from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, _stop, server_env, start_server
from tests.support.live_member import Member

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HAND = REPO / "tests" / "fixtures" / "x12" / "hand"
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


class Site:
    """One installation: a DATA_DIR and its database (a fresh PostgreSQL database for that backend)."""

    def __init__(self, root: Path, backend: str) -> None:
        self.data_dir = root / "data"
        self.data_dir.mkdir(parents=True)
        self.log = root / "server.log"
        self.pg_admin = self.database_url = None
        if backend == "postgres":
            self.pg_admin = require_postgres()
            self.database_url = create_pg_database(self.pg_admin).replace("postgresql://", "postgresql+psycopg://", 1)
        self.env = server_env(self.data_dir, self.database_url)

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "launcher.cli", *args],
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def drop(self) -> None:
        if self.pg_admin and self.database_url:
            drop_pg_database(self.pg_admin, self.database_url)

    def tables(self) -> int:
        from sqlalchemy import create_engine, inspect

        url = self.database_url or f"sqlite:///{self.data_dir / 'platform.db'}"
        engine = create_engine(url)
        try:
            with engine.connect() as conn:
                return len(inspect(conn).get_table_names())
        finally:
            engine.dispose()


def _admin(http: httpx.Client) -> Member:
    token = http.post("/api/rpc/auth.login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert token.status_code == 200, token.text
    bearer = token.json()["result"]["data"]["token"]
    headers = {"Authorization": f"Bearer {bearer}"}
    client_id = http.get("/api/rpc/securityContext.current", headers=headers).json()["result"]["data"]["clientId"]
    return Member(http, bearer, client_id)


def _work(admin: Member) -> dict[str, Any]:
    """Real work through the API: what the restored installation must show the same."""
    path = HAND / "cases_denial.835"
    upload = admin.http.post(
        "/api/rpc/ingestion.uploadEra",
        files={"file": (path.name, path.read_bytes(), "application/octet-stream")},
        headers=admin.headers,
    )
    assert upload.status_code == 200, upload.text
    batch_id = upload.json()["result"]["data"]["batch"]["id"]
    admin.mutation("ingestion.confirmImportBatch", {"batchId": batch_id})
    case = {c["claimKey"]: c for c in admin.query("cases.list", {"limit": 50})["items"]}["CSD-1"]
    attached = admin.attach(
        case["id"], "letter.txt", b"Letter of medical necessity, signed.", "Letter", "physician_letter"
    )
    assert attached.status_code == 200, attached.text
    integration = admin.mutation(
        "integrationControl.create",
        {
            "key": "ch-1",
            "name": "Clearinghouse",
            "config": {
                "kind": "clearinghouse",
                "host": "sftp.example.org",
                "username": "hospital",
                "outboundPath": "/out",
                "inboundPath": "/in",
                "hostKeyFingerprint": "SHA256:" + "A" * 43,
                "password": "a sealed secret",
            },
        },
    )
    return {"batch_id": batch_id, "case_id": case["id"], "integration_id": integration["id"]}


def _seen(admin: Member, work: dict[str, Any]) -> dict[str, Any]:
    """What a person sees of that work (ordered, comparable between the two installations)."""
    entries = admin.query("ingestion.listFinancialEntries", {"batchId": work["batch_id"], "limit": 200})["items"]
    case = admin.query("cases.get", {"id": work["case_id"]})["case"]
    documents = admin.query("evidenceControl.list", {"caseId": work["case_id"]})["items"]
    return {
        "batch": admin.query("ingestion.getImportBatch", {"batchId": work["batch_id"]})["status"],
        "entries": sorted((e["claimKey"], e["amount"], e["carc"]) for e in entries),
        "case": (case["state"], case["amountAtStake"], case["denialCategory"]),
        "documents": [(d["title"], d["docType"], d["mediaType"]) for d in documents],
    }


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _publish_tiny_snapshot(data_dir: Path) -> None:
    """A published snapshot, as a pipeline run leaves one (a dbt build is not what this test is about)."""
    layout = WarehouseLayout.at(data_dir)
    build_db = layout.build_db_for("backup-test")
    build_db.parent.mkdir(parents=True)
    con = duckdb.connect(str(build_db))
    con.execute("create schema marts")
    con.execute("create table marts.fct_probe as select 'restored' as word, 42 as answer")
    con.close()
    publish_snapshot(layout, build_db, [("marts", "fct_probe")], run_id="backup-test")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def sites(tmp_path: Path, backend: str) -> Iterator[tuple[Site, Site, Path]]:
    original, restored = Site(tmp_path / "original", backend), Site(tmp_path / "restored", backend)
    try:
        yield original, restored, tmp_path / "backups"
    finally:
        original.drop()
        restored.drop()


def test_a_backup_taken_while_serving_restores_into_an_installation_that_answers_the_same(sites) -> None:
    original, restored, backups = sites
    proc, base_url = start_server(original.env, original.log)
    try:
        with httpx.Client(base_url=base_url, timeout=60.0) as http:
            admin = _admin(http)
            work = _work(admin)
            before = _seen(admin, work)
            _publish_tiny_snapshot(original.data_dir)
            made = original.cli("backup", str(backups))  # the server is still running
            assert made.returncode == 0, made.stdout + made.stderr
    finally:
        _stop(proc)
    [folder] = backups.iterdir()
    assert folder.name.startswith("backup-") and not folder.name.endswith(".partial")
    assert oct(folder.stat().st_mode & 0o777) == "0o700"

    done = restored.cli("restore", str(folder))
    assert done.returncode == 0, done.stdout + done.stderr
    for tree in ("landing", "evidence", "keys"):
        assert _tree(restored.data_dir / tree) == _tree(original.data_dir / tree), tree
    assert _tree(restored.data_dir / "landing")  # not two empty trees

    proc, base_url = start_server(restored.env, restored.log)
    try:
        with httpx.Client(base_url=base_url, timeout=60.0) as http:
            admin = _admin(http)
            assert _seen(admin, work) == before
            # The sealed password opens with the restored key: validation gets past the credentials.
            checks = admin.mutation("integrationControl.validate", {"id": work["integration_id"]})
            assert checks["passed"] is True and checks["integration"]["state"] == "validated", checks
            chain = admin.query("audit.verifyChain")
            assert chain["valid"] is True, chain
    finally:
        _stop(proc)
    pointer = json.loads((restored.data_dir / "warehouse" / "published.json").read_text())
    assert Path(pointer["snapshot"]).is_relative_to(restored.data_dir)
    with open_published(restored.data_dir) as snap:
        assert snap.connection.execute("select word, answer from fct_probe").fetchall() == [("restored", 42)]
    # Restored, the installation is occupied: a second restore onto it is refused (on each backend's check).
    again = restored.cli("restore", str(folder))
    assert again.returncode == 1 and "restore into an empty" in again.stdout.replace("\n", " ")


@pytest.mark.parametrize("backend", ["sqlite"])  # verifying files is the same whatever the database
def test_a_damaged_backup_is_refused_before_anything_is_written(sites) -> None:
    original, restored, backups = sites
    proc, base_url = start_server(original.env, original.log)
    try:
        with httpx.Client(base_url=base_url, timeout=60.0) as http:
            _work(_admin(http))
    finally:
        _stop(proc)
    made = original.cli("backup", str(backups))
    assert made.returncode == 0, made.stdout + made.stderr
    [folder] = backups.iterdir()

    # One landing file flipped by a bit: the restore names it and writes nothing.
    manifest = json.loads((folder / "manifest.json").read_text())
    landed = next(f["path"] for f in manifest["files"] if f["path"].startswith("landing/"))
    damaged = folder / "data" / landed
    data = bytearray(damaged.read_bytes())
    data[0] ^= 1
    damaged.write_bytes(bytes(data))
    refused = restored.cli("restore", str(folder))
    assert refused.returncode == 1
    assert "Restore refused" in refused.stdout and landed in refused.stdout.replace("\n", "")
    assert restored.tables() == 0
    assert not any(p.is_file() for p in (restored.data_dir / "landing").rglob("*"))

    # Mended, it restores.
    damaged.write_bytes(bytes([data[0] ^ 1]) + bytes(data[1:]))
    assert restored.cli("restore", str(folder)).returncode == 0
