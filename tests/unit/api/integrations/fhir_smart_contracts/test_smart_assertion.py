"""Client assertion verification (SMART Backend Services private_key_jwt): real JWTs, fresh keys."""

from __future__ import annotations

import base64
import json
import time

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey

from api.core.errors import Unauthenticated
from api.integrations.fhir_smart_contracts import assertion
from tests.support.smart_client import SmartTestClient, ec_key, public_jwk, rsa_key, sign

AUD = "https://platform.example/api/rpc/fhirSmartContracts.token"


@pytest.fixture(scope="module")
def client() -> SmartTestClient:
    return SmartTestClient(client_id="smart_abc", audience=AUD, key=rsa_key("k-rsa"))


@pytest.fixture(scope="module")
def ec() -> object:
    return ec_key("k-ec")


@pytest.fixture(scope="module")
def keys(client, ec) -> list[dict]:
    return [public_jwk(client.key), public_jwk(ec)]


def _verify(token: str, keys: list[dict], now: int | None = None):
    return assertion.verify(token, keys=keys, client_id="smart_abc", audience=AUD, now=now or int(time.time()))


def _refused(token: str, keys: list[dict], now: int | None = None) -> str:
    with pytest.raises(Unauthenticated) as caught:
        _verify(token, keys, now)
    message = str(caught.value)
    parts = token.split(".")
    assert (not token or token not in message) and (len(parts) < 3 or len(parts[2]) < 8 or parts[2] not in message)
    return message


def test_valid_rs384_and_es384_assertions_pass(client, ec, keys):
    claims = client.claims(jti="jti-1")
    assert _verify(sign(client.key, claims), keys).jti == "jti-1"
    verified = _verify(sign(ec, claims), keys)
    assert verified.jti == "jti-1" and int(verified.expires_at.timestamp()) == claims["exp"]
    assert _verify(sign(client.key, client.claims(aud=[AUD, "other"])), keys).jti


def test_wrong_key_with_a_registered_kid_is_a_bad_signature(client, keys):
    impostor = rsa_key("k-rsa")  # same kid, another key
    assert "bad signature" in _refused(client.assertion(key=impostor), keys)


def test_unknown_kid_is_refused(client, keys):
    assert "unknown key" in _refused(client.assertion(key=rsa_key("nobody")), keys)
    no_kid = sign(client.key, client.claims(), header={"kid": None})
    assert "kid" in _refused(no_kid, keys)


def test_kid_of_another_key_type_is_refused(client, keys):
    token = sign(client.key, client.claims(), alg="RS384", header={"kid": "k-ec"})
    assert "not a RSA key" in _refused(token, keys)


def test_expired_and_too_long_lived_assertions_are_refused(client, keys):
    now = int(time.time())
    assert "expired" in _refused(client.assertion(exp=now - 1), keys, now)
    assert "expired" in _refused(client.assertion(exp=now), keys, now)
    assert "5 minutes" in _refused(client.assertion(exp=now + 301), keys, now)
    assert _verify(client.assertion(exp=now + 300), keys, now)
    assert "exp is missing" in _refused(client.assertion(exp="soon"), keys, now)
    assert "nbf" in _refused(client.assertion(nbf=now + 60), keys, now)


def test_wrong_audience_is_refused(client, keys):
    assert "wrong aud" in _refused(client.assertion(aud="https://elsewhere.example/token"), keys)
    assert "wrong aud" in _refused(client.assertion(aud=None), keys)


def test_iss_and_sub_must_both_be_the_client_id(client, keys):
    assert "iss and sub" in _refused(client.assertion(sub="someone-else"), keys)
    assert "iss and sub" in _refused(client.assertion(iss="smart_other"), keys)


def test_missing_jti_is_refused(client, keys):
    assert "jti" in _refused(client.assertion(jti=None), keys)
    assert "jti" in _refused(client.assertion(jti="x" * 256), keys)


def _unsigned(header: dict, claims: dict) -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"{part(header)}.{part(claims)}."


def test_alg_none_and_hmac_are_refused_before_any_key(client, keys):
    assert "RS384 or ES384" in _refused(_unsigned({"alg": "none", "kid": "k-rsa"}, client.claims()), keys)
    secret = OctKey.import_key(b"k" * 32)
    hs = jwt.encode({"alg": "HS256", "kid": "k-rsa"}, client.claims(), secret, algorithms=["HS256"])
    assert "RS384 or ES384" in _refused(hs, keys)
    rs256 = sign(client.key, client.claims(), alg="RS256")
    assert "RS384 or ES384" in _refused(rs256, keys)


def test_garbage_is_refused_as_not_a_jws(keys):
    for junk in ("not-a-jwt", "a.b.c", "", "x" * 9000):
        _refused(junk, keys)


def test_claimed_client_id_reads_iss_without_trusting_it(client):
    assert assertion.claimed_client_id(client.assertion()) == "smart_abc"
    with pytest.raises(Unauthenticated):
        assertion.claimed_client_id(client.assertion(iss=None))
