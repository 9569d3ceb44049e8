"""GET /.well-known/jwks.json and admin.rotateSigningKeys through the real app."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from joserfc import jwt
from joserfc.jwk import KeySet

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.db.base import utcnow
from api.infra.signing.keyset import PRIVATE_MEMBERS


def private_members_anywhere(value) -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        found |= PRIVATE_MEMBERS & set(value)
        for child in value.values():
            found |= private_members_anywhere(child)
    elif isinstance(value, list):
        for child in value:
            found |= private_members_anywhere(child)
    return found


def published_kids(http) -> set[str]:
    r = http.get("/.well-known/jwks.json")
    assert r.status_code == 200
    assert private_members_anywhere(r.json()) == set()
    return {k["kid"] for k in r.json()["keys"]}


def test_jwks_serves_public_es384_and_rs384_keys_with_caching_headers(http):
    r = http.get("/.well-known/jwks.json")
    assert r.status_code == 200
    assert r.headers["cache-control"] == "public, max-age=300"
    assert r.headers["content-type"].startswith("application/jwk-set+json")
    keys = r.json()["keys"]
    assert {k["alg"] for k in keys} >= {"ES384", "RS384"}
    for key in keys:
        assert set(key) <= {"kty", "crv", "x", "y", "n", "e", "kid", "alg", "use"}
        assert key["use"] == "sig" and key["kid"]
    assert private_members_anywhere(r.json()) == set()
    again = http.get("/.well-known/jwks.json", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304


def test_a_signed_client_assertion_verifies_against_the_published_jwks(http, services):
    token = services.signing_keys.sign_client_assertion({"iss": "platform", "jti": "abc", "aud": "ehr"})
    keyset = KeySet.import_key_set(http.get("/.well-known/jwks.json").json())
    assert jwt.decode(token, keyset, algorithms=["ES384"]).claims["jti"] == "abc"


def test_rotation_keeps_old_keys_until_retirement_then_drops_them(http, services, make_member, monkeypatch):
    admin = make_member(platform_admin=True)
    before = published_kids(http)
    token_before = services.signing_keys.sign_client_assertion({"jti": "before-rotation"})

    result = admin.rpc.mutation("admin.rotateSigningKeys")
    assert result.status == 200, result.body
    after = published_kids(http)
    assert set(result.data["publishedKids"]) == after
    assert before < after and len(after - before) == 2
    # A token signed just before the rotation still verifies against what is published now.
    assert (
        jwt.decode(
            token_before, KeySet.import_key_set(http.get("/.well-known/jwks.json").json()), algorithms=["ES384"]
        ).claims["jti"]
        == "before-rotation"
    )
    new_token = services.signing_keys.sign_client_assertion({"jti": "after"})
    header = json.loads(base64.urlsafe_b64decode(new_token.split(".")[0] + "==").decode())
    assert header["kid"] in after - before  # new tokens are signed with the new key

    # Past the retirement window (clock injected) the old keys are no longer published...
    days = services.settings.smart_key_retire_after_days
    monkeypatch.setattr(services.signing_keys, "clock", lambda: utcnow() + timedelta(days=days, minutes=1))
    later = published_kids(http)
    assert later == after - before
    # ...and the next rotation prunes them from the file.
    assert admin.rpc.mutation("admin.rotateSigningKeys").status == 200
    on_disk = {k["kid"] for k in json.loads(services.signing_keys.path.read_text())["keys"]}
    assert not on_disk & before


def test_rotation_is_for_platform_admins_only(make_member):
    member = make_member(role="admin")
    assert member.rpc.mutation("admin.rotateSigningKeys").code == "FORBIDDEN"


def app_with_keys(tmp_path, path):
    settings = Settings(
        data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'p.db'}", smart_keys_path=path, job_worker_enabled=False
    )
    services = build_services(settings)
    return services, TestClient(create_app(services=services))


@pytest.mark.parametrize("problem", ["missing", "malformed", "unreadable", "public-only"])
def test_unusable_configured_key_file_answers_503_without_key_material(tmp_path, problem):
    path = tmp_path / "configured" / "smart.json"
    path.parent.mkdir()
    secret_d = "PRIVATE-d-VALUE"
    if problem == "malformed":
        path.write_text('{"keys": [{"kty": "EC", "d": "' + secret_d + '"')
    elif problem == "unreadable":
        path.mkdir()
    elif problem == "public-only":
        path.write_text(
            json.dumps(
                {
                    "keys": [
                        {
                            "kty": "EC",
                            "crv": "P-384",
                            "alg": "ES384",
                            "use": "sig",
                            "kid": "k1",
                            "x": "AA",
                            "y": "AA",
                            "created_at": "2026-01-01T00:00:00+00:00",
                        }
                    ]
                }
            )
        )
    services, client = app_with_keys(tmp_path, path)
    try:
        r = client.get("/.well-known/jwks.json")
    finally:
        services.close()
    assert r.status_code == 503
    body = r.json()
    # The reason (which names the key file) goes to the server log; the public answer names no path.
    assert body["error"] == "signing_keys_unavailable" and "operator's log" in body["message"]
    assert str(tmp_path) not in r.text and "smart.json" not in r.text
    assert secret_d not in r.text
    assert not (problem == "missing" and path.exists()), "an explicitly configured file is never generated"
