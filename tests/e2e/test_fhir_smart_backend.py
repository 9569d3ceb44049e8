"""A SMART backend client on a running server (issue: fhirSmartContracts).

Over HTTP to a uvicorn process of its own: a hospital admin registers a backend client with its public
key; the client reads the token endpoint from the capability, signs an assertion (RS384) with its own
private key, exchanges it for an access token and reads a Claim as FHIR JSON, with the token as
`Authorization: Bearer`. A replayed assertion, an expired one and one signed with another key are
refused, and the token reaches nothing but the FHIR read.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from fhir.resources.R4B.claim import Claim

from tests.support.live_member import founder_of_new_organization
from tests.support.smart_client import SmartTestClient, public_jwk, rsa_key

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def admin(private_live_server) -> Any:
    server = private_live_server
    with httpx.Client(base_url=server.base_url, timeout=120.0) as http:
        yield http, founder_of_new_organization(http, server, f"FHIR Health {server.backend}", "Main Campus")


def _token_call(http: httpx.Client, client: SmartTestClient, assertion: str) -> httpx.Response:
    return http.post("/api/rpc/fhirSmartContracts.token", json=client.token_request(assertion))


def test_a_backend_client_reads_a_claim_with_a_signed_assertion(admin):
    http, member = admin
    claim = member.mutation(
        "claims.create",
        {
            "claimKey": "PCN-E2E-1",
            "payer": "ACME HEALTH",
            "statementFrom": "2026-01-05",
            "statementTo": "2026-01-05",
            "patientRef": "opaque-1",
            "lines": [{"procedureCode": "99213", "charge": "80.00", "serviceDateFrom": "2026-01-05"}],
        },
    )
    key = rsa_key()
    registered = member.mutation(
        "fhirSmartContracts.registerClient",
        {"name": "Payer gateway", "scopes": ["system/Claim.rs"], "jwks": {"keys": [public_jwk(key)]}},
    )
    endpoint = http.get("/api/rpc/fhirSmartContracts.capability").json()["result"]["data"]["tokenEndpoint"]
    client = SmartTestClient(client_id=registered["smartClientId"], audience=endpoint, key=key)

    assertion = client.assertion()
    issued = _token_call(http, client, assertion)
    assert issued.status_code == 200, issued.text
    access = issued.json()["result"]["data"]["access_token"]
    bearer = {"Authorization": f"Bearer {access}"}
    read = http.get(
        "/api/rpc/fhirSmartContracts.read",
        params={"input": f'{{"resourceType": "Claim", "id": "{claim["id"]}"}}'},
        headers=bearer,
    )
    assert read.status_code == 200, read.text
    resource = Claim.model_validate(read.json()["result"]["data"])
    assert resource.id == str(claim["id"]) and resource.patient.identifier.value == "opaque-1"

    for refused, reason in (
        (_token_call(http, client, assertion), "replayed jti"),
        (_token_call(http, client, client.assertion(exp=int(time.time()) - 5)), "expired"),
        (_token_call(http, client, client.assertion(key=rsa_key(key.kid))), "bad signature"),
    ):
        assert refused.status_code == 401, refused.text
        assert reason in refused.json()["error"]["message"]
    other = http.get("/api/rpc/cases.list", params={"input": "{}"}, headers=bearer)
    assert other.status_code == 403 and other.json()["error"]["data"]["code"] == "FORBIDDEN"
