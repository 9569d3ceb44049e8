"""Registered keys: public only, RS384 RSA >= 2048 or ES384 P-384, with unique kids."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from api.integrations.fhir_smart_contracts.jwks import key_problem
from api.integrations.fhir_smart_contracts.schemas import JwkSet
from tests.support.smart_client import ec_key, public_jwk, rsa_key

RSA = rsa_key("r1")
EC = ec_key("e1")


def test_public_rsa_and_p384_keys_are_accepted():
    assert key_problem(public_jwk(RSA)) is None
    assert key_problem({**public_jwk(EC), "alg": "ES384", "use": "sig"}) is None
    assert JwkSet.model_validate({"keys": [public_jwk(RSA), public_jwk(EC)]})


@pytest.mark.parametrize("member", ["d", "p", "q", "dp", "dq", "qi", "k"])
def test_any_private_member_is_refused_by_name_without_its_value(member):
    jwk = {**public_jwk(RSA), member: "c2VjcmV0LXZhbHVl"}
    assert member in key_problem(jwk)
    with pytest.raises(ValidationError) as caught:
        JwkSet.model_validate({"keys": [jwk]})
    text = str(caught.value.errors(include_input=False, include_context=False))
    assert "register the public key only" in text and "c2VjcmV0LXZhbHVl" not in text


def test_a_whole_private_key_is_refused():
    assert "private member" in key_problem(RSA.as_dict(private=True))
    assert "private member" in key_problem(EC.as_dict(private=True))


def test_weak_or_wrong_keys_are_refused():
    assert "2048" in key_problem(public_jwk(rsa_key("small", bits=1024)))
    p256 = {**public_jwk(EC), "crv": "P-256"}
    assert "P-384" in key_problem(p256)
    assert "alg" in key_problem({**public_jwk(RSA), "alg": "RS256"})
    assert "alg" in key_problem({**public_jwk(RSA), "alg": "ES384"})
    assert "kty" in key_problem({"kty": "oct", "kid": "x"})
    assert "use" in key_problem({**public_jwk(RSA), "use": "enc"})
    assert "does not parse" in key_problem({**public_jwk(EC), "x": "AAAA"})


def test_kids_must_be_unique_and_present():
    with pytest.raises(ValidationError, match="kids repeat"):
        JwkSet.model_validate({"keys": [public_jwk(RSA), {**public_jwk(EC), "kid": "r1"}]})
    without_kid = {k: v for k, v in public_jwk(RSA).items() if k != "kid"}
    with pytest.raises(ValidationError):
        JwkSet.model_validate({"keys": [without_kid]})
