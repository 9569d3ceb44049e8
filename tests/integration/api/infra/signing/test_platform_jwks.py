"""GET /.well-known/jwks.json and admin.rotateSigningKeys through the real app."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from joserfc import jwt
from joserfc.errors import JoseError
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


@pytest.fixture
def own_key_file(services, tmp_path, monkeypatch):
    """The rotation tests move the clock: they rotate a key file of their own, so the session's keys
    are never left signing only in the future."""
    monkeypatch.setattr(services.signing_keys, "path", tmp_path / "keys" / "smart_keys.json")
    monkeypatch.setattr(services.signing_keys, "_cache", None)
    services.signing_keys.ensure()


def kid_of(token: str) -> str:
    return json.loads(base64.urlsafe_b64decode(token.split(".", maxsplit=1)[0] + "==").decode())["kid"]


def test_rotation_publishes_the_next_key_before_it_signs_then_retires_the_old(
    http, services, make_member, monkeypatch, own_key_file
):
    admin = make_member(platform_admin=True)
    keys = services.signing_keys
    before = published_kids(http)
    token_before = keys.sign_client_assertion({"jti": "before-rotation"})

    result = admin.rpc.mutation("admin.rotateSigningKeys", {})
    assert result.status == 200, result.body
    after = published_kids(http)
    new_kids = after - before
    assert set(result.data["publishedKids"]) == after and len(new_kids) == 2
    assert set(result.data["nextKids"]) == new_kids
    assert set(result.data["signingKids"]) <= before
    # The next keys are in the JWKS now, but the current key still signs until they start.
    assert kid_of(keys.sign_client_assertion({"jti": "still-old"})) in before
    ahead = timedelta(hours=services.settings.smart_key_publish_ahead_hours)
    rotated_at = utcnow()
    # A second planned rotation while the next keys wait is refused, and changes nothing.
    again = admin.rpc.mutation("admin.rotateSigningKeys", {})
    assert again.code == "PRECONDITION_FAILED" and "start signing at" in again.error["message"]
    assert published_kids(http) == after

    # From the announced time the new key signs; a token of the old key still verifies.
    monkeypatch.setattr(keys, "clock", lambda: rotated_at + ahead + timedelta(minutes=1))
    assert kid_of(keys.sign_client_assertion({"jti": "after"})) in new_kids
    jwks_then = KeySet.import_key_set(http.get("/.well-known/jwks.json").json())
    assert jwt.decode(token_before, jwks_then, algorithms=["ES384"]).claims["jti"] == "before-rotation"

    # Past the retirement window (counted from when the new key started) the old keys are gone...
    days = services.settings.smart_key_retire_after_days
    monkeypatch.setattr(keys, "clock", lambda: rotated_at + ahead + timedelta(days=days, minutes=1))
    assert published_kids(http) == new_kids
    # ...and the next rotation prunes them from the file.
    assert admin.rpc.mutation("admin.rotateSigningKeys", {}).status == 200
    on_disk = {k["kid"] for k in json.loads(keys.path.read_text())["keys"]}
    assert not on_disk & before


def test_emergency_rotation_needs_a_reason_and_unpublishes_the_compromised_keys(
    http, services, make_member, own_key_file
):
    admin = make_member(platform_admin=True)
    before = published_kids(http)
    token_before = services.signing_keys.sign_client_assertion({"jti": "compromised"})
    refused = admin.rpc.mutation("admin.rotateSigningKeys", {"emergency": True})
    assert refused.code == "BAD_REQUEST" and "reason" in str(refused.error)

    done = admin.rpc.mutation("admin.rotateSigningKeys", {"emergency": True, "reason": "key file leaked"})
    assert done.status == 200, done.body
    after = published_kids(http)
    assert not after & before and set(done.data["signingKids"]) == after and done.data["nextKids"] == []
    assert kid_of(services.signing_keys.sign_client_assertion({"jti": "new"})) in after
    with pytest.raises(JoseError):  # the compromised key's tokens no longer verify
        jwt.decode(token_before, KeySet.import_key_set(http.get("/.well-known/jwks.json").json()))


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
