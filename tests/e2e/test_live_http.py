"""Plain HTTP against the live server: body limits through a real socket, and the non-RPC entry points."""

from __future__ import annotations

import httpx
import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PRIVATE_JWK_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "k"}


@pytest.fixture(scope="module")
def client(live_server):
    with httpx.Client(base_url=live_server.base_url, timeout=30.0) as c:
        yield c


def _oversized_login(limit: int) -> bytes:
    # Valid JSON for auth.login, so only the size can be the reason for the refusal.
    return b'{"email":"a@b.c","password":"' + b"x" * (limit + 1) + b'"}'


def _assert_too_large(response: httpx.Response, limit: int) -> None:
    assert response.status_code == 413, response.text[:500]
    error = response.json()["error"]
    assert error["code"] == -32013
    assert error["data"]["code"] == "PAYLOAD_TOO_LARGE"
    assert error["data"]["httpStatus"] == 413
    assert str(limit) in error["message"]


def test_body_above_the_configured_limit_is_refused_by_content_length(client, live_server):
    body = _oversized_login(live_server.max_body_bytes)
    response = client.post("/api/rpc/auth.login", content=body, headers={"content-type": "application/json"})
    _assert_too_large(response, live_server.max_body_bytes)


def test_body_above_the_configured_limit_is_refused_when_chunked(client, live_server):
    body = _oversized_login(live_server.max_body_bytes)

    def chunks():  # a generator body has no Content-Length: httpx sends it chunked
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    response = client.post("/api/rpc/auth.login", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.request.headers.get("transfer-encoding") == "chunked"
    _assert_too_large(response, live_server.max_body_bytes)


def test_body_just_under_the_limit_is_read(client, live_server):
    # The same call shape below the limit gets past the size check to authentication.
    padding = live_server.max_body_bytes - 200
    body = b'{"email":"nobody@example.test","password":"' + b"x" * min(padding, 1000) + b'"}'
    response = client.post("/api/rpc/auth.login", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 401, response.text[:500]
    assert response.json()["error"]["data"]["code"] == "UNAUTHORIZED"


def test_server_still_answers_after_refusing_a_large_body(client, live_server):
    client.post(
        "/api/rpc/auth.login",
        content=_oversized_login(live_server.max_body_bytes * 4),
        headers={"content-type": "application/json"},
    )
    ping = client.get("/api/rpc/system.ping")
    assert ping.status_code == 200
    assert ping.json()["result"]["data"]["pong"] is True


def test_jwks_is_published_without_private_members(client):
    response = client.get("/.well-known/jwks.json")
    # The server generated its embedded key set on start (DATA_DIR/keys): the set must be served.
    assert response.status_code == 200, response.text[:500]
    keys = response.json()["keys"]
    assert keys, "the JWK Set is empty"
    for key in keys:
        assert {"kid", "alg", "use", "kty"} <= key.keys()
        assert not PRIVATE_JWK_MEMBERS & key.keys(), f"private members published for kid {key['kid']}"


def test_health_answers(client):
    response = client.get("/api/health")
    assert response.status_code == 200, response.text[:500]
    assert response.headers["content-type"].startswith("application/json")


def test_server_log_never_holds_query_inputs_or_credentials(client, live_server):
    """tRPC queries carry their input in the URL: the access log must show paths only."""
    marker = "ZZPATIENTDOE19700101"
    login = client.post(
        "/api/rpc/auth.login", json={"email": live_server.admin_email, "password": live_server.admin_password}
    ).json()
    token = login["result"]["data"]["token"]
    headers = {"Authorization": f"Bearer {token}"}
    client.get("/api/rpc/ingestion.listImportBatches", params={"input": f'{{"status": "{marker}"}}'}, headers=headers)
    client.get("/api/rpc/audit.list", params={"input": f'{{"targetId": "{marker}"}}'}, headers=headers)
    client.get("/api/rpc/no.such", params={"input": f'{{"x": "{marker}"}}'})
    full = live_server.log_path.read_text(errors="replace")
    log = full[full.index("Started server process") :]  # bootstrap prints the admin login above by design
    assert "/api/rpc/audit.list" in log  # the requests were logged ...
    for secret in (marker, token, live_server.admin_password):  # ... without their inputs or credentials
        assert secret not in log
