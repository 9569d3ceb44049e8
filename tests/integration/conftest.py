"""Fixtures shared by the integration tests of every context."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient

from api.app import build_services, create_app
from api.core.settings import Settings
from tests.conftest import fresh_database, make_user, require_postgres, sign_in
from tests.support.hand_world import HandTenant, HandWorld, SharedHandWorld, open_shared
from tests.support.per_backend import BACKENDS, PerBackend, per_backend
from tests.support.rpc_client import Rpc
from tests.support.tenancy import new_organization


@contextmanager
def open_hand_world(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HandWorld]:
    """One tenant on a fresh operational database of `backend`, with its own data directory."""
    admin = require_postgres() if backend == "postgres" else None
    with fresh_database(backend, tmp_path_factory.mktemp(f"hand_{backend}")) as url:
        settings = Settings(
            data_dir=tmp_path_factory.mktemp("hand_data"),
            database_url=url,
            job_worker_enabled=False,
            # One token serves every test module of the shared hand world, as fast as the app answers: not
            # rate-limited, as in tests/conftest.py's shared stack (the limit's own tests plant a limiter).
            rpc_rate_limit_per_second=1_000_000,
            rpc_rate_limit_burst=1_000_000,
        )
        services = build_services(settings)
        try:
            with TestClient(create_app(services=services)) as http:
                user_id, email, password = make_user(services)
                rpc = Rpc(http)
                token = sign_in(rpc, email, password)
                org = new_organization(services, user_id, f"Hand {uuid.uuid4().hex[:8]}", "Hand Hospital")
                tenant = HandTenant(org["id"], org["firstClientId"], rpc.as_(token, org["firstClientId"]))
                yield HandWorld(settings, services, http, tenant, admin)
        finally:
            services.close()


@pytest.fixture(scope="module", params=BACKENDS)
def hand_world(request, tmp_path_factory) -> Iterator[HandWorld]:
    """One tenant on a fresh operational database of each backend, with its own data directory, per
    test module: for a module that runs the pipeline more than once or needs the installation to
    itself. A module that posts its files and reads one run's results takes `shared_hand_world`.
    See tests/support/hand_world.py."""
    with open_hand_world(request.param, tmp_path_factory) as world:
        yield world


@pytest.fixture(scope="session")
def shared_hand_worlds(tmp_path_factory) -> Iterator[PerBackend[SharedHandWorld]]:
    @contextmanager
    def open_one(backend: str) -> Iterator[SharedHandWorld]:
        with open_hand_world(backend, tmp_path_factory) as world, open_shared(world) as shared:
            yield shared

    with per_backend(open_one) as each:
        yield each


@pytest.fixture(scope="session")
def shared_hand_world(backend, shared_hand_worlds) -> SharedHandWorld:
    """The hand world every `@before_shared_run` setup of the session posted into, each in a tenant of
    its own, after its one pipeline run (tests/support/hand_world.py), per backend."""
    return shared_hand_worlds[backend]
