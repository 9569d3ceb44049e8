"""Fixtures shared by the integration tests of every context."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.db import migrate
from tests.conftest import create_pg_database, drop_pg_database, make_user, sign_in
from tests.support.hand_world import HandTenant, HandWorld
from tests.support.rpc_client import Rpc
from tests.support.tenancy import new_organization


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def hand_world(request, tmp_path_factory) -> Iterator[HandWorld]:
    """One tenant on a fresh operational database of each backend, with its own data directory, per
    test module (the module's fixture posts its files and runs the pipeline once). See
    tests/support/hand_world.py."""
    admin = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('hand_sqlite') / 'platform.db'}"
    else:
        admin = request.getfixturevalue("pg_server")
        url = create_pg_database(admin)
    try:
        migrate.upgrade(url)
        settings = Settings(data_dir=tmp_path_factory.mktemp("hand_data"), database_url=url, job_worker_enabled=False)
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
    finally:
        if admin is not None:
            drop_pg_database(admin, url)
