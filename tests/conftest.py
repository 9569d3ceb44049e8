"""Shared fixtures: real databases (a SQLite file and a PostgreSQL database), the real app.

Database-touching tests take the `backend` fixture family and run once per
backend. PostgreSQL comes from PG_ADMIN_URL (default: the local server with
trust auth); each test session creates and drops its own database.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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

PG_ADMIN_URL = os.environ.get("PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
REPO = Path(__file__).resolve().parents[1]


def _pg_available() -> bool:
    try:
        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3):
            return True
    except psycopg.OperationalError:
        return False


@pytest.fixture(scope="session")
def pg_server() -> str:
    if not _pg_available():
        if os.environ.get("CI") or os.environ.get("REQUIRE_POSTGRES"):
            pytest.fail(f"PostgreSQL is required here but not reachable at {PG_ADMIN_URL}")
        pytest.skip("PostgreSQL is not reachable; the CI run (CI=true) requires it and fails instead")
    return PG_ADMIN_URL


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


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def database_url(request, tmp_path_factory) -> Iterator[str]:
    """A migrated, empty operational database, once per backend per test session."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'platform.db'}"
        migrate.upgrade(url)
        yield url
        return
    admin = request.getfixturevalue("pg_server")
    url = create_pg_database(admin)
    try:
        migrate.upgrade(url)
        yield url
    finally:
        drop_pg_database(admin, url)


@pytest.fixture(scope="session")
def settings(database_url, tmp_path_factory) -> Settings:
    data_dir = tmp_path_factory.mktemp("data")
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        billing_webhook_secret="whsec_test_one",
        job_worker_enabled=False,
        # Every test calls from the same TestClient address; the shared app must not throttle the suite's
        # own failed sign-ins (tests/integration/api/platform/auth/test_login_throttle.py uses the defaults).
        login_free_failures_per_address=1_000_000,
    )


@pytest.fixture(scope="session")
def services(settings) -> Iterator[Services]:
    svc = build_services(settings)
    yield svc
    svc.close()


@pytest.fixture(scope="session")
def app(services):
    return create_app(services=services)


@pytest.fixture(scope="session")
def http(app) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


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
