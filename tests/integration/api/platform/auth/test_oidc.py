"""OIDC bearer tokens verified against a real local issuer started by the test."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fastapi.testclient import TestClient
from joserfc import jwt
from joserfc.jwk import ECKey, KeySet, RSAKey
from sqlalchemy import select

from api.app import build_services, create_app
from api.platform.auth.models import User
from tests.conftest import make_user, sign_in
from tests.support.rpc_client import Rpc

AUDIENCE = "denial-platform"


class Issuer:
    """A minimal OpenID provider: discovery document and JWKS over real HTTP."""

    def __init__(self):
        self.keys = [RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "alg": "RS256", "use": "sig"})]
        self.jwks_fetches = 0
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": issuer.url, "jwks_uri": f"{issuer.url}/jwks"}
                elif self.path == "/jwks":
                    issuer.jwks_fetches += 1
                    body = KeySet(issuer.keys).as_dict(private=False)
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def token(self, key=None, **overrides) -> str:
        key = key or self.keys[0]
        now = int(time.time())
        claims = {"iss": self.url, "aud": AUDIENCE, "sub": "idp-user-1", "iat": now, "exp": now + 300}
        claims.update(overrides)
        claims = {k: v for k, v in claims.items() if v is not None}
        alg = key.alg or "RS256"
        return jwt.encode({"alg": alg, "kid": key.kid}, claims, key, algorithms=[alg])

    def close(self):
        self.server.shutdown()


@pytest.fixture
def issuer():
    issuer = Issuer()
    yield issuer
    issuer.close()


def _oidc_app(settings, issuer, **overrides):
    update = {"oidc_issuer": issuer.url, "oidc_audience": AUDIENCE, **overrides}
    services = build_services(settings.model_copy(update=update))
    return services, TestClient(create_app(services=services))


@pytest.fixture
def oidc_rpc(settings, issuer):
    """A deployment that allows linking by verified email, refetching keys without a minimum interval."""
    services, client = _oidc_app(settings, issuer, oidc_link_by_email=True, oidc_jwks_min_refetch_seconds=0)
    with client:
        yield Rpc(client)
    services.close()


@pytest.fixture
def default_oidc_rpc(settings, issuer):
    """A deployment with the defaults: link by subject only, keys refetched at most once a minute."""
    services, client = _oidc_app(settings, issuer)
    with client:
        yield Rpc(client)
    services.close()


def test_valid_token_signs_in_known_user(services, issuer, oidc_rpc):
    _, email, _ = make_user(services)
    token = issuer.token(email=email, sub=f"sub-{email}", email_verified=True)
    session = oidc_rpc.as_(token).query("auth.session").data
    assert session["email"] == email and session["method"] == "oidc"
    # The subject is linked on first use: later tokens match without the email claim.
    assert oidc_rpc.as_(issuer.token(sub=f"sub-{email}")).query("auth.session").data["email"] == email


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}, "expired"),
        ({"aud": "someone-else"}, "does not match"),
        ({"iss": "https://evil.example"}, "does not match"),
        ({"exp": None}, "missing"),
    ],
)
def test_bad_claims_are_rejected(services, issuer, oidc_rpc, overrides, reason):
    _, email, _ = make_user(services)
    result = oidc_rpc.as_(issuer.token(email=email, **overrides)).query("auth.session")
    assert result.code == "UNAUTHORIZED" and reason in result.error["message"]


def test_wrong_signature_is_rejected(services, issuer, oidc_rpc):
    _, email, _ = make_user(services)
    impostor = RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "alg": "RS256"})
    result = oidc_rpc.as_(issuer.token(impostor, email=email)).query("auth.session")
    assert result.code == "UNAUTHORIZED"


def test_unknown_identity_is_rejected(issuer, oidc_rpc):
    result = oidc_rpc.as_(issuer.token(email="nobody@example.test", sub="nobody")).query("auth.session")
    assert result.code == "UNAUTHORIZED" and "no platform account" in result.error["message"]


def test_provider_key_rotation_is_followed(services, issuer, oidc_rpc):
    _, email, _ = make_user(services)
    first = issuer.token(email=email, sub="rot-" + email, email_verified=True)
    assert oidc_rpc.as_(first).query("auth.session").status == 200
    new_key = ECKey.generate_key("P-384", parameters={"kid": "ec-2", "alg": "ES384", "use": "sig"})
    issuer.keys.append(new_key)
    result = oidc_rpc.as_(issuer.token(new_key, sub="rot-" + email)).query("auth.session")
    assert result.status == 200, result.body


def test_oidc_disabled_rejects_jwts(rpc, issuer):
    result = rpc.as_(issuer.token(email="x@example.test")).query("auth.session")
    assert result.code == "UNAUTHORIZED" and "no OIDC issuer" in result.error["message"]


# --- issue 9, finding 2: identities linked by an unverified email, and re-linked ---------------------------


def _subject_of(services, user_id):
    with services.database.transaction() as db:
        return db.scalar(select(User.oidc_subject).where(User.id == user_id))


def test_unverified_email_does_not_become_the_account(services, issuer, oidc_rpc):
    """An attacker's account at the issuer claims the victim's email without the provider verifying it."""
    victim_id, email, _ = make_user(services)
    for verified in (False, None, "true"):  # absent, false, or a string that merely looks true
        forged = issuer.token(email=email, sub=f"attacker-{verified}", email_verified=verified)
        result = oidc_rpc.as_(forged).query("auth.session")
        assert result.code == "UNAUTHORIZED" and "no platform account" in result.error["message"]
    assert _subject_of(services, victim_id) is None  # nothing was linked


def test_a_linked_account_is_never_relinked_to_another_subject(services, issuer, oidc_rpc):
    victim_id, email, _ = make_user(services)
    own = issuer.token(email=email, sub=f"victim-{email}", email_verified=True)
    assert oidc_rpc.as_(own).query("auth.session").data["userId"] == victim_id
    # Another subject at the same issuer, with the same verified email (a recycled or shared address).
    other = issuer.token(email=email, sub=f"second-{email}", email_verified=True)
    result = oidc_rpc.as_(other).query("auth.session")
    assert result.code == "UNAUTHORIZED"
    assert _subject_of(services, victim_id) == f"{issuer.url}|victim-{email}"


def test_by_default_accounts_link_by_subject_only(services, issuer, default_oidc_rpc):
    victim_id, email, _ = make_user(services)
    verified = issuer.token(email=email, sub=f"default-{email}", email_verified=True)
    assert default_oidc_rpc.as_(verified).query("auth.session").code == "UNAUTHORIZED"
    assert _subject_of(services, victim_id) is None


def test_linking_by_email_clears_a_password_someone_else_may_have_chosen(services, issuer, oidc_rpc, rpc):
    """Whoever set the local password may not own the email the provider has just verified."""
    user_id, email, password = make_user(services)
    old_session = sign_in(rpc, email, password)
    token = issuer.token(email=email, sub=f"owner-{email}", email_verified=True)
    assert oidc_rpc.as_(token).query("auth.session").data["userId"] == user_id
    assert rpc.as_(old_session).query("auth.session").code == "UNAUTHORIZED"
    assert rpc.mutation("auth.login", {"email": email, "password": password}).code == "UNAUTHORIZED"


# --- issue 9, finding 10: an outbound JWKS fetch per unauthenticated request --------------------------------


def test_unknown_kids_are_answered_from_the_cache(services, issuer, default_oidc_rpc):
    user_id, email, _ = make_user(services)
    with services.database.transaction() as db:
        db.get(User, user_id).oidc_subject = f"{issuer.url}|kid-{email}"
    assert default_oidc_rpc.as_(issuer.token(sub=f"kid-{email}")).query("auth.session").status == 200
    assert issuer.jwks_fetches == 1
    stranger = RSAKey.generate_key(2048, parameters={"alg": "RS256"})
    now = int(time.time())
    claims = {"iss": issuer.url, "aud": AUDIENCE, "sub": f"kid-{email}", "iat": now, "exp": now + 300}
    for i in range(40):
        forged = jwt.encode({"alg": "RS256", "kid": f"unknown-{i}"}, claims, stranger, algorithms=["RS256"])
        result = default_oidc_rpc.as_(forged).query("auth.session")
        assert result.code == "UNAUTHORIZED"
    # One refetch at most within the interval: the first unknown kid came within a minute of the
    # first fetch, so none at all; every later one was answered from the cached key set.
    assert issuer.jwks_fetches == 1
    assert default_oidc_rpc.as_(issuer.token(sub=f"kid-{email}")).query("auth.session").status == 200
