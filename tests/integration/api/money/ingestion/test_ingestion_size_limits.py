"""A 200 MB file against the upload cap: refused cleanly, nothing stored, the server unharmed.

The cap is UPLOAD_MAX_BYTES (one setting for every upload procedure); the test
runs an app whose cap is 64 MiB so a 200 MB body is over it both when the size
is declared (Content-Length) and when it is streamed (chunked).
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import build_services, create_app
from tests.conftest import make_user, sign_in
from tests.support.rpc_client import Rpc
from tests.support.tenancy import new_organization

pytestmark = pytest.mark.slow

CAP = 64 * 1024 * 1024
SIZE = 200 * 1024 * 1024


@pytest.fixture(scope="module")
def capped(settings):
    services = build_services(settings.model_copy(update={"upload_max_bytes": CAP}))
    with TestClient(create_app(services=services)) as client:
        yield services, Rpc(client)
    services.close()


@pytest.fixture(scope="module")
def member(capped):
    services, rpc = capped
    user_id, email, password = make_user(services)
    token = sign_in(rpc, email, password)
    org = new_organization(services, user_id, "Big Files", "Hospital")
    return rpc.as_(token, org["firstClientId"])


def _chunks(total: int, size: int = 4 * 1024 * 1024):
    block = b"ISA*" + b"9" * (size - 4)
    sent = 0
    while sent < total:
        piece = block[: min(size, total - sent)]
        sent += len(piece)
        yield piece


def test_declared_200mb_upload_is_payload_too_large(member):
    r = member.http.post(
        "/api/rpc/ingestion.uploadUniversal?filename=big.835",
        headers={**member.headers(), "content-type": "application/octet-stream", "content-length": str(SIZE)},
        content=_chunks(SIZE),
    )
    assert r.status_code == 413
    assert r.json()["error"]["data"]["code"] == "PAYLOAD_TOO_LARGE"
    assert str(CAP) in r.json()["error"]["message"]


def test_streamed_200mb_upload_is_refused_and_nothing_is_stored(member):
    r = member.http.post(
        "/api/rpc/ingestion.uploadUniversal?filename=big.835",
        headers={**member.headers(), "content-type": "application/octet-stream"},
        content=_chunks(SIZE),
    )
    assert r.status_code == 413
    assert member.query("ingestion.listImportBatches", {}).data["items"] == []
    assert member.query("system.ping").status == 200


def test_the_contract_states_the_upload_cap(member):
    procs = {p["name"]: p for p in member.query("system.contract").data["procedures"]}
    assert procs["ingestion.uploadUniversal"]["acceptsFiles"] is True
    assert procs["ingestion.uploadUniversal"]["maxBodyBytes"] == CAP
    assert procs["auth.login"]["maxBodyBytes"] == 1_048_576
