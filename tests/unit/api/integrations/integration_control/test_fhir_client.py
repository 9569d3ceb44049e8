"""The FHIR client's pure parts: keys and assertions (checked by the platform's own verifier), scopes,
the next-link rule, searchset reading, the byte cap, the limits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from api.core.errors import InvalidInput, Unauthenticated
from api.integrations.fhir_smart_contracts import assertion
from api.integrations.integration_control import fhir_client as fc
from api.integrations.integration_control.schemas import EhrConfig

CONFIG = EhrConfig.model_validate(
    {
        "kind": "ehr",
        "fhirBaseUrl": "https://ehr.example/fhir/r4",
        "tokenUrl": "https://ehr.example/oauth/token",
        "clientId": "client-1",
        "scopes": ["system/Claim.rs", "system/Coverage.rs"],
    }
)


def _pem(key: Any) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@pytest.fixture(scope="module")
def rsa_pem() -> str:
    return _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))


def test_rsa_signs_rs384_and_ec_p384_signs_es384(rsa_pem: str) -> None:
    assert fc.signing_key(rsa_pem).alg == "RS384"
    assert fc.signing_key(_pem(ec.generate_private_key(ec.SECP384R1()))).alg == "ES384"
    assert fc.signing_key(rsa_pem, "my-kid").kid == "my-kid"
    assert fc.signing_key(rsa_pem).kid == fc.signing_key(rsa_pem).kid  # the thumbprint: stable


@pytest.mark.parametrize(
    "pem",
    [
        "not a key",
        _pem(ec.generate_private_key(ec.SECP256R1())),  # ES256 is not a SMART backend algorithm
        _pem(rsa.generate_private_key(public_exponent=65537, key_size=1024)),
    ],
)
def test_keys_smart_cannot_use_are_refused_without_echoing_them(pem: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        fc.signing_key(pem)
    assert "PRIVATE" not in caught.value.message


def test_the_assertion_passes_the_platforms_own_verifier(rsa_pem: str) -> None:
    key = fc.signing_key(rsa_pem)
    token = fc.client_assertion(CONFIG, key, now=1_900_000_000)
    public = {**key.key.as_dict(private=False), "kid": key.kid}
    verified = assertion.verify(
        token, keys=[public], client_id="client-1", audience="https://ehr.example/oauth/token", now=1_900_000_010
    )
    assert verified.expires_at.timestamp() == 1_900_000_000 + 240  # within SMART's five minutes
    with pytest.raises(Unauthenticated, match="wrong aud"):
        assertion.verify(token, keys=[public], client_id="client-1", audience="https://other/token", now=1_900_000_010)
    assert fc.client_assertion(CONFIG, key) != fc.client_assertion(CONFIG, key)  # a fresh jti each time


@pytest.mark.parametrize(
    ("granted", "resource", "allowed"),
    [
        (["system/Claim.rs"], "Claim", True),
        (["system/Claim.r"], "Claim", False),  # read by id only, no search
        (["system/Claim.s"], "Claim", True),
        (["system/Claim.read"], "Claim", True),
        (["system/*.read"], "Coverage", True),
        (["system/*.rs"], "Coverage", True),
        (["system/Claim.rs"], "Coverage", False),
        (["patient/Claim.rs"], "Claim", False),
        ([], "Claim", False),
    ],
)
def test_which_granted_scopes_allow_a_search(granted: list[str], resource: str, allowed: bool) -> None:
    assert fc._allows(granted, resource) is allowed


@pytest.mark.parametrize(
    ("url", "same"),
    [
        ("https://ehr.example/fhir/r4/Claim?_count=1&_cursor=5", True),
        ("https://ehr.example/fhir/r4", True),
        ("https://ehr.example.evil/fhir/r4/Claim", False),
        ("https://evil@ehr.example/fhir/r4/Claim", False),  # userinfo changes the netloc
        ("https://ehr.example:8443/fhir/r4/Claim", False),
        ("http://ehr.example/fhir/r4/Claim", False),
        ("https://ehr.example/fhir/r4x/Claim", False),
        ("https://ehr.example/other/Claim", False),
    ],
)
def test_next_links_stay_on_the_configured_base(url: str, same: bool) -> None:
    assert fc._same_base(url, "https://ehr.example/fhir/r4") is same


def _claim(claim_id: str) -> dict[str, Any]:
    return {
        "resourceType": "Claim",
        "id": claim_id,
        "status": "active",
        "type": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/claim-type", "code": "institutional"}]},
        "use": "claim",
        "patient": {"identifier": {"value": "opaque"}},
        "created": "2026-01-01",
        "provider": {"display": "General"},
        "priority": {"coding": [{"code": "normal"}]},
        "insurance": [{"sequence": 1, "focal": True, "coverage": {"display": "ACME"}}],
    }


def test_a_searchset_gives_its_valid_resources_and_next_link() -> None:
    bundle = {
        "resourceType": "Bundle",
        "type": "searchset",
        "link": [{"relation": "self", "url": "s"}, {"relation": "next", "url": "https://ehr.example/fhir/r4/n"}],
        "entry": [
            {"resource": _claim("1")},
            {"resource": {"resourceType": "OperationOutcome", "issue": []}, "search": {"mode": "outcome"}},
            {"resource": _claim("2")},
        ],
    }
    found, following = fc._entries(bundle, "Claim", "search Claim")
    assert [r["id"] for r in found] == ["1", "2"]
    assert following == "https://ehr.example/fhir/r4/n"
    assert fc._entries({**bundle, "link": []}, "Claim", "s")[1] is None


@pytest.mark.parametrize(
    ("bundle", "match"),
    [
        ({"resourceType": "Claim"}, "not a searchset Bundle"),
        ({"resourceType": "Bundle", "type": "batch"}, "not a searchset Bundle"),
        ({"resourceType": "Bundle", "type": "searchset", "entry": [{"fullUrl": "x"}]}, "entry 0 has no resource"),
        (
            {
                "resourceType": "Bundle",
                "type": "searchset",
                "entry": [{"resource": {"resourceType": "Claim", "id": "1"}}],
            },
            r"entry 0 is not a valid R4 Claim \(\d+ errors\)",
        ),
    ],
)
def test_answers_that_are_not_valid_searchsets_are_refused(bundle: dict[str, Any], match: str) -> None:
    with pytest.raises(fc.FhirPullRefused, match=match):
        fc._entries(bundle, "Claim", "search Claim")


def _streamed(chunks: list[bytes], headers: dict[str, str] | None = None) -> httpx.Response:
    def body() -> Iterator[bytes]:
        yield from chunks

    return httpx.Response(200, headers=headers, content=body())


def test_the_byte_cap_counts_while_reading_and_trusts_no_missing_length() -> None:
    assert fc._read_capped(_streamed([b"a" * 50, b"b" * 50]), 100, "step") == b"a" * 50 + b"b" * 50
    # No Content-Length (chunked): stopped once past the cap, whatever follows.
    with pytest.raises(fc.FhirPullRefused, match="exceeds 100 bytes"):
        fc._read_capped(_streamed([b"a" * 60, b"b" * 60, b"c" * 10**6]), 100, "step")
    with pytest.raises(fc.FhirPullRefused, match="declares 5000 bytes"):
        fc._read_capped(_streamed([b""], {"content-length": "5000"}), 100, "step")


def test_limits_are_checked() -> None:
    with pytest.raises(InvalidInput):
        fc.Limits(max_resources=10, page_size=11)
    with pytest.raises(InvalidInput):
        fc.Limits(page_size=0)
    with pytest.raises(InvalidInput):
        fc.Limits(max_response_bytes=0)


def test_only_coverage_and_claim_are_pulled(rsa_pem: str) -> None:
    with pytest.raises(InvalidInput, match="not Patient"):
        fc.pull(CONFIG, rsa_pem, resource_types=("Patient",))
