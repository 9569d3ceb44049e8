"""One tenant with a generated corpus and one real pipeline run per database backend, shared by
every serving test (session-scoped: the pipeline run is the slow part).

The run goes through the product path: `operations.runPipeline` enqueues a
`pipeline.run` job and a worker runs it (`Worker.run_once`), which calls
`pipelines.runner.run_pipeline` on the data directory of the serving services,
so `services.marts` reads the snapshot it publishes.

The serving tests get their own operational database and data directory per
backend: the pipeline builds every tenant of an installation, so files other
test modules upload into the shared session database (some deliberately
unbalanced) would otherwise fail its data tests and block the snapshot. The corpus plants a CARC
spike, a slow payer and a systematic underpayment; the 837I of file 1 is
withheld so its remittances have no submitted claim.

A third tenant (`c`, its own organization) gets the same 835s, no 837s, and a bank deposits file
derived from the generator's with three planted breaks (see `planted_deposits`), so its cash answers
use the bank-deposit basis; it is built in the same pipeline run.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.jobs.worker import Worker
from api.infra.services.container import Services
from pipelines.ingest.x12 import parse_x12
from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.spec import CarcSpike, SlowPayer, SystematicUnderpayment
from tests.conftest import fresh_database, make_user, sign_in
from tests.integration.api.money.revenue_reconciliation.planted_deposits import (
    EraPayment,
    PlantedDeposits,
    paying_era_payments,
    plant_differences,
)
from tests.support.per_backend import PerBackend, per_backend
from tests.support.rpc_client import Rpc
from tests.support.tenancy import join, new_organization

SPEC = CorpusSpec(
    seed=11,
    claims=600,
    payers=4,
    months=5,
    claims_per_file=300,
    write_csv=False,
    write_deposits=False,
    scenarios=(
        CarcSpike(payer="medicare", carc="50", cpt="80053", from_month=4, rate=0.6),
        SlowPayer(payer="medicaid", extra_days=21),
        SystematicUnderpayment(payer="bluepeak", cpt="99214", pct_of_contract=85.0),
    ),
    # These serving tests hold the procedures to the truth on what the marts already got right before
    # issue 8 and post the corpus through drop folders; the situations real files contain (COB chains,
    # re-deliveries, recoupments, corrections, ...) are compared in tests/integration/pipelines and by the
    # hand-written fixtures until the marts handle them (then turn them on here).
).without_situations()
WITHHELD = "claims_00001_837I.837"
PAYER_NAMES = {
    "medicare": "FEDERAL MEDICARE ADMINISTRATIVE CONTRACTOR J99",
    "medicaid": "STATE MEDICAID FISCAL AGENT",
    "northwind": "NORTHWIND HEALTH PLAN",
    "bluepeak": "BLUEPEAK MUTUAL INSURANCE",
}


@dataclass
class Tenant:
    user_id: int
    token: str
    organization_id: int
    client_id: int
    rpc: Rpc


@dataclass
class World:
    a: Tenant
    b: Tenant
    analyst: Tenant  # a second member of A's organization (role analyst)
    auditor: Tenant  # read-only member of A's organization
    truth: dict
    truth_rows: list[dict]
    withheld_claims: set[str]
    pipeline_run: dict
    built_at: str
    services: object
    c: Tenant  # own organization: the corpus 835s plus a bank deposits file with planted breaks
    deposits: PlantedDeposits
    era_payments: dict[str, EraPayment]  # every paying 835 transaction, by trace number


def audited(world, procedure: str, target_type: str, target_id) -> dict:
    """The one audit event of `procedure` on the target, by tenant A's user, with its after-digest."""
    events = world.a.rpc.query(
        "audit.list", {"procedure": procedure, "targetType": target_type, "targetId": str(target_id)}
    ).data["items"]
    assert len(events) == 1, events
    assert events[0]["actorUserId"] == world.a.user_id and events[0]["afterDigest"]
    return events[0]


def new_tenant(services, http) -> Tenant:
    """A user owning a fresh organization with one client, signed in (module-scoped variant of make_member)."""
    user_id, email, password = make_user(services)
    rpc = Rpc(http)
    token = sign_in(rpc, email, password)
    org = new_organization(services, user_id)
    return Tenant(user_id, token, org["id"], org["firstClientId"], rpc.as_(token, org["firstClientId"]))


def invite(services, http, owner: Tenant, role: str) -> Tenant:
    user_id, _email, _password, token = join(services, Rpc(http), owner.organization_id, role)
    return Tenant(user_id, token, owner.organization_id, owner.client_id, Rpc(http).as_(token, owner.client_id))


@contextmanager
def open_serving_stack(backend: str, tmp_path_factory) -> Iterator[tuple[Settings, Services, TestClient]]:
    """(settings, services, http) on a fresh database and data directory of one backend."""
    with fresh_database(backend, tmp_path_factory.mktemp(f"serving_{backend}")) as url:
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("serving_data"), database_url=url, job_worker_enabled=False
        )
        services = build_services(settings)
        try:
            with TestClient(create_app(services=services)) as http:
                yield settings, services, http
        finally:
            services.close()


@pytest.fixture(scope="session")
def serving_stacks(tmp_path_factory) -> Iterator[PerBackend[tuple[Settings, Services, TestClient]]]:
    """Each backend's serving stack, opened once per test session (tests/support/per_backend.py)."""
    with per_backend(lambda backend: open_serving_stack(backend, tmp_path_factory)) as each:
        yield each


@pytest.fixture(scope="session")
def serving_stack(backend, serving_stacks):
    return serving_stacks[backend]


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("serving_corpus")
    generate_corpus(SPEC, out)
    return out


@pytest.fixture(scope="session")
def planted_deposits(corpus, tmp_path_factory) -> PlantedDeposits:
    """The generator's deposits file for the corpus (same spec with CSVs on), with the breaks planted."""
    out = tmp_path_factory.mktemp("serving_corpus_csv")
    generate_corpus(dataclasses.replace(SPEC, write_csv=True, write_deposits=True), out)
    for path in corpus.glob("*.835"):
        # The deposits describe these very 835s: CSV output must not change the generated X12.
        assert (out / path.name).read_bytes() == path.read_bytes(), f"{path.name} differs with CSV output on"
    columns = json.loads((out / "ground_truth.json").read_text())["csv_columns"]["deposits.csv"]
    return plant_differences((out / "deposits.csv").read_text(), columns)


@pytest.fixture(scope="session")
def built_worlds() -> dict[str, World]:
    """The serving world of each backend, built once per test session (its pipeline run is the slow part)."""
    return {}


@pytest.fixture(scope="session")
def world(backend, serving_stack, corpus, planted_deposits, built_worlds) -> World:
    if backend not in built_worlds:
        built_worlds[backend] = build_world(serving_stack, corpus, planted_deposits)
    return built_worlds[backend]


def build_world(serving_stack, corpus: Path, planted_deposits: PlantedDeposits) -> World:
    settings, services, http = serving_stack
    a, b = new_tenant(services, http), new_tenant(services, http)
    analyst, auditor = invite(services, http, a, "analyst"), invite(services, http, a, "auditor")
    drop = settings.resolved_data_dir / "drop" / f"client_{a.client_id}"
    drop.mkdir(parents=True)
    for path in sorted(corpus.iterdir()):
        if path.suffix in (".835", ".837") and path.name != WITHHELD:
            shutil.copy(path, drop / path.name)
    c = new_tenant(services, http)
    drop_c = settings.resolved_data_dir / "drop" / f"client_{c.client_id}"
    drop_c.mkdir(parents=True)
    remits = sorted(corpus.glob("*.835"))
    for path in remits:
        shutil.copy(path, drop_c / path.name)
    (drop_c / "deposits.csv").write_text(planted_deposits.csv_text)
    pointer = settings.warehouse_dir / "published.json"
    if not pointer.exists():
        before = a.rpc.query("analytics.kpis", {})
        assert before.code == "PRECONDITION_FAILED" and "operations.runPipeline" in before.error["message"]

    queued = analyst.rpc.mutation("operations.runPipeline", {}).data
    assert queued["status"] == "queued" and queued["jobId"]
    worker = Worker(services.database, kinds=["pipeline.run"], worker_id="serving-test-worker")
    for _ in range(5):
        if not worker.run_once():
            break
    run = a.rpc.query("operations.getRun", {"runId": queued["id"]}).data
    assert run["status"] == "succeeded", run
    withheld = set(
        parse_x12((corpus / WITHHELD).read_bytes(), source=WITHHELD)
        .tables["claims"]["patient_control_number"]
        .to_list()
    )
    return World(
        a=a,
        b=b,
        analyst=analyst,
        auditor=auditor,
        truth=json.loads((corpus / "ground_truth.json").read_text()),
        truth_rows=pq.read_table(corpus / "truth_claims.parquet").to_pylist(),
        withheld_claims=withheld,
        pipeline_run=run,
        built_at=json.loads(pointer.read_text())["built_at"],
        services=services,
        c=c,
        deposits=planted_deposits,
        era_payments=paying_era_payments(remits),
    )
