"""Issue 9 finding 7: PHI at rest was readable by other local users (landing files 0444 in 0755
directories, SQLite files 0644).

The attack is another local account reading DATA_DIR. After a migrate, an upload, a confirm and a
pipeline run that publishes a snapshot, every file under DATA_DIR must be unreadable by group and
others, and every directory closed to them. The process umask is set to the permissive 022 before
the operational database and the upload are created, so the modes cannot come from the umask.
"""

from __future__ import annotations

import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.db import migrate
from tests.conftest import make_user, sign_in
from tests.support.hand_world import HandTenant, HandWorld
from tests.support.rpc_client import Rpc
from tests.support.tenancy import new_organization

GROUP_OR_OTHER = stat.S_IRWXG | stat.S_IRWXO


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.fixture
def world(tmp_path: Path, permissive_umask) -> Iterator[HandWorld]:
    data_dir = tmp_path / "fresh" / "data"  # does not exist yet: created by the platform
    settings = Settings(data_dir=data_dir, job_worker_enabled=False)
    migrate.upgrade(settings.resolved_database_url)
    services = build_services(settings)
    os.umask(0o022)  # the service tightens the umask; undo it so only explicit modes can protect the files
    with TestClient(create_app(services=services)) as http:
        user_id, email, password = make_user(services)
        rpc = Rpc(http)
        token = sign_in(rpc, email, password)
        org = new_organization(services, user_id, f"Modes {uuid.uuid4().hex[:8]}", "Modes")
        tenant = HandTenant(org["id"], org["firstClientId"], rpc.as_(token, org["firstClientId"]))
        yield HandWorld(settings, services, http, tenant, None)


def _exposed(root: Path) -> list[str]:
    exposed = []
    for path in [root, *root.rglob("*")]:
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & GROUP_OR_OTHER:
            exposed.append(f"{path.relative_to(root.parent)} {stat.filemode(mode)}")
    return exposed


def test_nothing_under_data_dir_is_open_to_other_local_users(world):
    batch = world.post("balanced_230.835")[0]
    assert batch["status"] == "confirmed"
    run = world.run_pipeline()
    assert run["status"] == "succeeded", run

    data_dir = world.data_dir
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    landing_files = [p for p in (data_dir / "landing").rglob("*") if p.is_file()]
    assert landing_files, "the upload left no landing file"
    assert {stat.S_IMODE(p.stat().st_mode) for p in landing_files} == {0o400}
    assert stat.S_IMODE((data_dir / "platform.db").stat().st_mode) == 0o600
    snapshots = list((data_dir / "warehouse").rglob("*.duckdb"))
    assert snapshots, "the pipeline published nothing"
    assert _exposed(data_dir) == []


def test_an_existing_data_dir_with_a_wide_mode_is_tightened(tmp_path, permissive_umask):
    data_dir = tmp_path / "existing"
    data_dir.mkdir(mode=0o755)
    os.chmod(data_dir, 0o755)

    build_services(Settings(data_dir=data_dir, job_worker_enabled=False))

    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
