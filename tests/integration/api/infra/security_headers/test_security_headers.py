"""Security headers on every answer, the API docs off by default, HSTS only over TLS."""

from __future__ import annotations

from fastapi.testclient import TestClient

from api.app import build_services, create_app
from api.core.settings import Settings

EXPECTED = {
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def _assert_hardened(response) -> None:
    for name, value in EXPECTED.items():
        assert response.headers.get(name) == value, (name, response.headers.get(name))


def test_rpc_answers_are_never_stored_and_carry_the_security_headers(http, make_member):
    member = make_member()
    ok = http.get("/api/rpc/organizations.get", headers=member.rpc.headers())
    assert ok.status_code == 200
    _assert_hardened(ok)
    assert ok.headers["cache-control"] == "no-store"
    assert "strict-transport-security" not in ok.headers  # plain HTTP: HSTS would be wrong here
    # errors too (an unauthenticated call, an unknown procedure)
    for response in (http.get("/api/rpc/organizations.get"), http.get("/api/rpc/no.such")):
        assert response.status_code in (401, 404)
        _assert_hardened(response)
        assert response.headers["cache-control"] == "no-store"


def test_health_and_jwks_keep_their_own_caching_but_get_the_headers(http):
    health = http.get("/api/health")
    _assert_hardened(health)
    assert health.headers["cache-control"] == "no-store"
    jwks = http.get("/.well-known/jwks.json")
    _assert_hardened(jwks)
    assert jwks.headers["cache-control"].startswith("public")  # public keys are cacheable by design


def test_openapi_and_docs_are_not_served_by_default(http):
    for path in ("/openapi.json", "/docs", "/redoc"):
        assert http.get(path).status_code == 404, path


def test_docs_are_served_when_the_deployment_enables_them_and_hsts_over_tls(tmp_path):
    settings = Settings(
        data_dir=tmp_path,
        database_url=f"sqlite:///{tmp_path / 'p.db'}",
        job_worker_enabled=False,
        api_docs_enabled=True,
    )
    services = build_services(settings)
    try:
        with TestClient(create_app(services=services), base_url="https://testserver") as client:
            schema = client.get("/openapi.json")
            assert schema.status_code == 200 and schema.json()["info"]["title"]
            assert client.get("/docs").status_code == 200
            health = client.get("/api/health")
            assert health.headers["strict-transport-security"] == "max-age=31536000; includeSubDomains"
    finally:
        services.close()
