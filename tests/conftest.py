"""Shared fixtures: real databases (a SQLite file and a PostgreSQL database), the real app.

Database-touching tests take the `backend` fixture family (database_url, settings,
services, app, http, rpc) and run once per backend. Each backend's stack is opened
once per test session (per pytest-xdist worker) and shared by the tests
(tests/support/per_backend.py). PostgreSQL comes from PG_ADMIN_URL (default: the
local server with trust auth); each test session creates and drops its own database.
"""

from __future__ import annotations

import functools
import os
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.db import migrate
from api.infra.services.container import Services
from api.platform.auth import service as auth_service
from api.platform.auth.secrets import hash_password
from tests.support.per_backend import BACKENDS, PerBackend, per_backend
from tests.support.rpc_client import Rpc
from tests.support.tenancy import join, new_organization

# Hypothesis: no wall-clock deadlines anywhere (a loaded CI machine must not fail a correct test);
# CI derandomises so a red run is reproducible from its log, and prints the failing example's blob.
settings.register_profile("dev", deadline=None)
settings.register_profile(
    "ci", deadline=None, derandomize=True, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

# Password hashing at test cost (ENVIRONMENT=test lifts OWASP's floor, api/core/settings.py): thousands of
# sign-ins would otherwise each pay a production argon2id hash. Set in the environment, so every Settings
# the tests build and every server they start (tests/e2e) hashes the same way; the production cost is
# tested in tests/unit/api/core/test_password_hash_settings.py.
os.environ.setdefault("ENVIRONMENT", "test")
os.environ.setdefault("PASSWORD_HASH_TIME_COST", "1")
os.environ.setdefault("PASSWORD_HASH_MEMORY_KIB", "64")
os.environ.setdefault("PASSWORD_HASH_PARALLELISM", "1")

# pytest-xdist (`make test`: `--dist loadgroup` with the scheduler below) runs a file's tests on one worker,
# and the files of each shared world (a pipeline run or more, per backend) on one worker too, so each world
# is built once per backend instead of once per worker. Files are handed out longest first (shared worlds,
# then files marked slow) so that no long file starts last while the other worker sits idle.
_SERVING_TEST = re.compile(r"def test_\w+\([^)]*\bworld\b")


@functools.cache
def shared_world_of(test_file: str) -> str | None:
    """The shared world a test file's tests read, from its source: the hand world (`shared_hand_world`) or
    the serving world (tests/integration/api/conftest.py's `world`, where the file has no `world` of its own).

    Read from the source because the scheduler runs in the controlling process, which collects no tests
    (and pytest 9 ignores the node-id suffix with which xdist's own loadgroup marks a group)."""
    path = REPO / test_file
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    if "shared_hand_world" in text:
        return "shared_hand_world"
    if test_file.startswith("tests/integration/api/") and _SERVING_TEST.search(text) and "def world(" not in text:
        return "serving_world"
    return None


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = {_file_of(item.nodeid) for item in items if item.get_closest_marker("slow")}

    def order(item: pytest.Item) -> int:
        test_file = _file_of(item.nodeid)
        return 0 if shared_world_of(test_file) else 1 if test_file in slow else 2

    items.sort(key=order)  # stable: pytest's order by fixture stays within each file


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadgroup`: a test file is one unit of work, and so are all the files of one shared world."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileOrSharedWorldScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            test_file = _file_of(nodeid)
            return shared_world_of(test_file) or test_file

    return FileOrSharedWorldScheduling(config, log)


PG_ADMIN_URL = os.environ.get("PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REPO = Path(__file__).resolve().parents[1]


@functools.cache
def _pg_available() -> bool:
    try:
        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return True
    except psycopg.OperationalError:
        return False


def require_postgres() -> str:
    """The PostgreSQL admin URL; fails the test where PostgreSQL is required (CI), skips it elsewhere."""
    if not _pg_available():
        if os.environ.get("CI") or os.environ.get("REQUIRE_POSTGRES"):
            pytest.fail(f"PostgreSQL is required here but not reachable at {PG_ADMIN_URL}")
        pytest.skip("PostgreSQL is not reachable; the CI run (CI=true) requires it and fails instead")
    return PG_ADMIN_URL


@pytest.fixture(scope="session")
def pg_server() -> str:
    return require_postgres()


def create_pg_database(admin_url: str) -> str:
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = admin_url.rsplit("/", 1)[0]
    return f"{base}/{name}"


def drop_pg_database(admin_url: str, url: str) -> None:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def fresh_database(backend: str, folder: Path) -> Iterator[str]:
    """A migrated, empty operational database of `backend` (SQLite in `folder`), dropped afterwards."""
    if backend == "sqlite":
        url = f"sqlite:///{folder / 'platform.db'}"
        migrate.upgrade(url)
        yield url
        return
    admin = require_postgres()
    url = create_pg_database(admin)
    try:
        migrate.upgrade(url)
        yield url
    finally:
        drop_pg_database(admin, url)


@dataclass
class Stack:
    """One backend's operational database, settings, services, app and in-process client."""

    database_url: str
    settings: Settings
    services: Services
    app: Any
    http: TestClient


@contextmanager
def open_stack(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with fresh_database(backend, tmp_path_factory.mktemp(backend)) as url:
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("data"),
            database_url=url,
            billing_webhook_secret="whsec_test_one",
            job_worker_enabled=False,
            # Every test calls from the same TestClient address; the shared app must not throttle the suite's
            # own failed sign-ins (tests/integration/api/platform/auth/test_login_throttle.py uses the defaults).
            login_free_failures_per_address=1_000_000,
            # ... nor rate-limit it: the suite is one caller address (every sign-in of the session) and a few
            # tokens firing as fast as the app answers (the contract fuzz: ~20,000 calls per token). The limit
            # itself is tested on a limiter with a hand-set clock (tests/integration/api/rpc/test_rate_limit.py).
            rpc_rate_limit_per_second=1_000_000,
            rpc_rate_limit_burst=1_000_000,
        )
        services = build_services(settings)
        try:
            app = create_app(services=services)
            with TestClient(app) as http:
                yield Stack(url, settings, services, app, http)
        finally:
            services.close()


@pytest.fixture(scope="session")
def stacks(tmp_path_factory) -> Iterator[PerBackend[Stack]]:
    """Each backend's `Stack`, opened on first use and kept for the session (tests/support/per_backend.py)."""
    with per_backend(lambda backend: open_stack(backend, tmp_path_factory)) as each:
        yield each


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request) -> str:
    """The backend a database-touching test runs on: each such test runs once per backend."""
    return request.param


@pytest.fixture(scope="session")
def database_url(backend, stacks) -> str:
    """A migrated operational database, one per backend per test session (shared by the tests)."""
    return stacks[backend].database_url


@pytest.fixture(scope="session")
def settings(backend, stacks) -> Settings:
    return stacks[backend].settings


@pytest.fixture(scope="session")
def services(backend, stacks) -> Services:
    return stacks[backend].services


@pytest.fixture(scope="session")
def app(backend, stacks):
    return stacks[backend].app


@pytest.fixture(scope="session")
def http(backend, stacks) -> TestClient:
    return stacks[backend].http


@pytest.fixture
def rpc(http) -> Rpc:
    return Rpc(http)


@dataclass
class Member:
    user_id: int
    email: str
    password: str
    token: str
    organization_id: int
    client_id: int
    rpc: Rpc


def make_user(
    services: Services,
    *,
    email: str | None = None,
    password: str = "correct horse battery",
    platform_admin: bool = False,
) -> tuple[int, str, str]:
    email = email or f"user-{uuid.uuid4().hex[:10]}@example.test"
    with services.database.transaction() as db:
        user = auth_service.create_user(db, email, None, is_platform_admin=platform_admin)
        user.password_hash = hash_password(password)
        return user.id, email, password


def sign_in(rpc: Rpc, email: str, password: str) -> str:
    return rpc.mutation("auth.login", {"email": email, "password": password}).data["token"]


@pytest.fixture
def make_member(services, rpc):
    """Factory: a new user who owns a new organization with one client, signed in (created through the
    service: `organizations.create` is for platform administrators). Another `role` is a second user
    who joined that organization through an invitation read from the outbox, organization-wide."""

    def factory(*, role: str = "admin", platform_admin: bool = False) -> Member:
        owner_id, owner_email, password = make_user(services, platform_admin=platform_admin)
        owner_token = sign_in(rpc, owner_email, password)
        org = new_organization(services, owner_id)
        if role == "admin":
            return Member(
                owner_id,
                owner_email,
                password,
                owner_token,
                org["id"],
                org["firstClientId"],
                rpc.as_(owner_token, org["firstClientId"]),
            )
        # An existing account joins by accepting the invitation while signed in as itself.
        user_id, email, pw, token = join(services, rpc, org["id"], role)
        return Member(user_id, email, pw, token, org["id"], org["firstClientId"], rpc.as_(token, org["firstClientId"]))

    return factory
