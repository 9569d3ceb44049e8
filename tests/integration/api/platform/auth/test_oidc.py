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

from api.app import build_services, create_app
from tests.conftest import make_user
from tests.support.rpc_client import Rpc

AUDIENCE = "denial-platform"


class Issuer:
    """A minimal OpenID provider: discovery document and JWKS over real HTTP."""

    def __init__(self):
        self.keys = [RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "alg": "RS256", "use": "sig"})]
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": issuer.url, "jwks_uri": f"{issuer.url}/jwks"}
                elif self.path == "/jwks":
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


@pytest.fixture
def oidc_rpc(settings, issuer):
    services = build_services(settings.model_copy(update={"oidc_issuer": issuer.url, "oidc_audience": AUDIENCE}))
    with TestClient(create_app(services=services)) as client:
        yield Rpc(client)
    services.close()


def test_valid_token_signs_in_known_user(services, issuer, oidc_rpc):
    _, email, _ = make_user(services)
    token = issuer.token(email=email, sub=f"sub-{email}")
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
    assert oidc_rpc.as_(issuer.token(email=email, sub="rot-" + email)).query("auth.session").status == 200
    new_key = ECKey.generate_key("P-384", parameters={"kid": "ec-2", "alg": "ES384", "use": "sig"})
    issuer.keys.append(new_key)
    result = oidc_rpc.as_(issuer.token(new_key, email=email, sub="rot-" + email)).query("auth.session")
    assert result.status == 200, result.body


def test_oidc_disabled_rejects_jwts(rpc, issuer):
    result = rpc.as_(issuer.token(email="x@example.test")).query("auth.session")
    assert result.code == "UNAUTHORIZED" and "no OIDC issuer" in result.error["message"]
