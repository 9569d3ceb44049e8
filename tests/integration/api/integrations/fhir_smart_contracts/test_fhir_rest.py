"""The FHIR R4 REST facade (`/fhir/r4/...`) through the real app on SQLite and PostgreSQL: discovery,
the form-encoded token endpoint and its OAuth errors, reads and searches with a SMART bearer token,
OperationOutcome errors, and the ways in that stay shut (another tenant's claim ids, scopes not
granted, people's session tokens, bad paging parameters)."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.claim import Claim
from fhir.resources.R4B.operationoutcome import OperationOutcome

from tests.integration.api.denials.claims.conftest import claim_body
from tests.support.smart_client import SmartTestClient, public_jwk, rsa_key

BASE = "/fhir/r4"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def _register(member, http, scopes=("system/Claim.rs", "system/Coverage.rs")) -> SmartTestClient:
    key = rsa_key()
    row = member.rpc.mutation(
        "fhirSmartContracts.registerClient",
        {"name": "EHR pull", "scopes": list(scopes), "jwks": {"keys": [public_jwk(key)]}},
    ).data
    endpoint = http.get(f"{BASE}/.well-known/smart-configuration").json()["token_endpoint"]
    return SmartTestClient(client_id=row["smartClientId"], audience=endpoint, key=key)


def _token(http, client: SmartTestClient, scope: str = "system/Claim.rs system/Coverage.rs", **claims: Any) -> Any:
    return http.post(f"{BASE}/auth/token", data=client.token_request(client.assertion(**claims), scope), headers=FORM)


def _bearer(http, client: SmartTestClient, scope: str = "system/Claim.rs system/Coverage.rs") -> dict[str, str]:
    answer = _token(http, client, scope)
    assert answer.status_code == 200, answer.text
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}


def _claim(member, charges: list[str]) -> dict:
    lines = [{"procedureCode": "99213", "charge": c, "serviceDateFrom": "2025-03-01", "units": "1"} for c in charges]
    return member.rpc.mutation("claims.create", claim_body(lines=lines)).data


def _outcome(answer: Any, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/fhir+json")
    outcome = OperationOutcome.model_validate(answer.json())
    assert outcome.issue[0].code == code
    return str(outcome.issue[0].diagnostics)


def test_discovery_documents(http, settings):
    metadata = http.get(f"{BASE}/metadata")
    assert metadata.status_code == 200 and metadata.headers["content-type"].startswith("application/fhir+json")
    statement = CapabilityStatement.model_validate(metadata.json())
    assert statement.fhirVersion == "4.0.1"
    assert statement.implementation.url == settings.public_base_url.rstrip("/") + BASE
    searchable = {r.type for r in statement.rest[0].resource if any(i.code == "search-type" for i in r.interaction)}
    assert searchable == {"Claim", "Coverage"}
    config = http.get(f"{BASE}/.well-known/smart-configuration").json()
    assert config["token_endpoint"] == settings.public_base_url.rstrip("/") + BASE + "/auth/token"
    assert config["token_endpoint_auth_signing_alg_values_supported"] == ["RS384", "ES384"]
    assert "client-confidential-asymmetric" in config["capabilities"]


def test_token_read_and_search_pages_by_claim_id(http, make_member):
    member = make_member()
    first, second = _claim(member, ["80.00"]), _claim(member, ["120.50", "30.00"])
    client = _register(member, http)
    issued = _token(http, client)
    assert issued.status_code == 200 and issued.headers["cache-control"] == "no-store"
    body = issued.json()
    assert body["token_type"] == "bearer" and body["expires_in"] == 300
    assert body["scope"] == "system/Claim.rs system/Coverage.rs"
    bearer = {"Authorization": f"Bearer {body['access_token']}"}

    read = http.get(f"{BASE}/Claim/{second['id']}", headers=bearer)
    assert read.status_code == 200 and read.headers["content-type"].startswith("application/fhir+json")
    assert Claim.model_validate(read.json()).total.value == Decimal("150.50")  # 120.50 + 30.00

    page = http.get(f"{BASE}/Claim", params={"_count": 1}, headers=bearer)
    bundle = Bundle.model_validate(page.json())
    assert bundle.type == "searchset" and [e.resource.id for e in bundle.entry] == [str(first["id"])]
    following = next(link.url for link in bundle.link if link.relation == "next")
    assert following.startswith(http.get(f"{BASE}/metadata").json()["implementation"]["url"] + "/Claim?")
    path = following.split("/fhir/r4", 1)[1]
    last = Bundle.model_validate(http.get(BASE + path, headers=bearer).json())
    assert [e.resource.id for e in last.entry] == [str(second["id"])]
    assert [link.relation for link in last.link] == ["self"]  # no next: the last page
    coverage = http.get(f"{BASE}/Coverage", params={"_count": 10}, headers=bearer).json()
    assert [e["resource"]["id"] for e in coverage["entry"]] == [str(first["id"]), str(second["id"])]
    assert coverage["entry"][0]["fullUrl"].endswith(f"/Coverage/{first['id']}")


def test_another_clients_claims_are_never_reached(http, make_member):
    mine, theirs = make_member(), make_member()
    my_claim = _claim(mine, ["10.00"])
    their_claim = _claim(theirs, ["999.00"])
    bearer = _bearer(http, _register(mine, http))
    # The attack: a token of client A asking for client B's claim id, by read and by cursor.
    _outcome(http.get(f"{BASE}/Claim/{their_claim['id']}", headers=bearer), 404, "not-found")
    _outcome(http.get(f"{BASE}/Coverage/{their_claim['id']}", headers=bearer), 404, "not-found")
    found = http.get(f"{BASE}/Claim", params={"_count": 100}, headers=bearer).json()
    assert [e["resource"]["id"] for e in found["entry"]] == [str(my_claim["id"])]
    before_theirs = http.get(f"{BASE}/Claim", params={"_cursor": their_claim["id"] - 1}, headers=bearer).json()
    assert all(e["resource"]["id"] != str(their_claim["id"]) for e in before_theirs.get("entry", []))
    # An X-Client-Id header cannot move the token to another client either.
    moved = http.get(f"{BASE}/Claim/{their_claim['id']}", headers={**bearer, "X-Client-Id": str(theirs.client_id)})
    assert moved.status_code == 404


def test_scopes_bound_what_a_token_reads_and_searches(http, make_member):
    member = make_member()
    claim = _claim(member, ["10.00"])
    client = _register(member, http, scopes=("system/Claim.read",))
    issued = _token(http, client, "system/Claim.read system/Coverage.rs")
    assert issued.json()["scope"] == "system/Claim.read"  # Coverage is not registered: not granted
    bearer = {"Authorization": f"Bearer {issued.json()['access_token']}"}
    assert http.get(f"{BASE}/Claim/{claim['id']}", headers=bearer).status_code == 200
    assert "scopes" in _outcome(http.get(f"{BASE}/Coverage/{claim['id']}", headers=bearer), 403, "forbidden")
    _outcome(http.get(f"{BASE}/Coverage", headers=bearer), 403, "forbidden")
    refused = _token(http, client, "system/Coverage.rs")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_scope"


def test_token_endpoint_answers_oauth_errors(http, make_member):
    member = make_member()
    client = _register(member, http)
    good = client.token_request(client.assertion(), "system/Claim.rs")
    cases = [
        ({**good, "grant_type": "password"}, FORM, 400, "unsupported_grant_type"),
        ({**good, "client_assertion_type": "urn:x"}, FORM, 400, "invalid_request"),
        ({**good, "client_assertion": ""}, FORM, 400, "invalid_request"),
        ({**good, "scope": ""}, FORM, 400, "invalid_scope"),
    ]
    for form, headers, status, error in cases:
        answer = http.post(f"{BASE}/auth/token", data=form, headers=headers)
        assert (answer.status_code, answer.json()["error"]) == (status, error), form
    as_json = http.post(f"{BASE}/auth/token", json=good)
    assert as_json.status_code == 400 and as_json.json()["error"] == "invalid_request"
    huge = http.post(f"{BASE}/auth/token", content=b"a=" + b"x" * 20_000, headers=FORM)
    assert huge.status_code == 400 and "exceeds" in huge.json()["error_description"]
    for claims, reason in (
        ({"exp": int(time.time()) - 5}, "expired"),
        ({"key": rsa_key(client.key.kid)}, "bad signature"),
        ({"aud": "https://platform.example/api/rpc/fhirSmartContracts.token"}, "wrong aud"),
    ):
        assertion = client.assertion(**claims)
        answer = http.post(f"{BASE}/auth/token", data=client.token_request(assertion), headers=FORM)
        assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"
        assert reason in answer.json()["error_description"] and assertion not in answer.text
    assertion = client.assertion()
    assert http.post(f"{BASE}/auth/token", data=client.token_request(assertion), headers=FORM).status_code == 200
    replay = http.post(f"{BASE}/auth/token", data=client.token_request(assertion), headers=FORM)
    assert replay.status_code == 401 and "replayed jti" in replay.json()["error_description"]


def test_reads_refuse_with_operation_outcomes(http, make_member):
    member = make_member()
    claim = _claim(member, ["10.00"])
    bearer = _bearer(http, _register(member, http))
    no_token = http.get(f"{BASE}/Claim/{claim['id']}")
    _outcome(no_token, 401, "login")
    assert no_token.headers["www-authenticate"].startswith("Bearer")
    _outcome(http.get(f"{BASE}/Claim/{claim['id']}", headers={"Authorization": "Bearer dpf_forged"}), 401, "login")
    person = {"Authorization": f"Bearer {member.token}", "X-Client-Id": str(member.client_id)}
    _outcome(http.get(f"{BASE}/Claim/{claim['id']}", headers=person), 403, "forbidden")
    _outcome(http.get(f"{BASE}/Patient/1", headers=bearer), 404, "not-found")
    _outcome(http.get(f"{BASE}/Claim/not-a-number", headers=bearer), 404, "not-found")
    _outcome(http.get(f"{BASE}/ClaimResponse/{claim['id']}", headers=bearer), 403, "forbidden")
    for params in ({"_count": 0}, {"_count": 101}, {"_count": "x"}, {"_cursor": "abc"}, {"patient": "1"}):
        _outcome(http.get(f"{BASE}/Claim", params=params, headers=bearer), 400, "invalid")
    _outcome(http.get(f"{BASE}/ExplanationOfBenefit", headers=bearer), 400, "invalid")
