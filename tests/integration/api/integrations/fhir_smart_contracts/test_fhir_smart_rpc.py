"""SMART Backend Services through the real app: register -> signed assertion -> token -> FHIR read, and
every way in that must stay shut (replayed jti, expired, wrong key, other procedures, other tenants,
scopes not granted, private keys at registration)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.claim import Claim
from fhir.resources.R4B.explanationofbenefit import ExplanationOfBenefit
from sqlalchemy import select, update

from api.infra.db.base import utcnow
from api.integrations.fhir_smart_contracts.models import SmartClient
from api.platform.auth.models import SmartAccessToken
from api.platform.auth.secrets import token_digest
from tests.integration.api.denials.claims.conftest import claim_body
from tests.support.smart_client import SmartTestClient, ec_key, public_jwk, rsa_key

SCOPES = ["system/Claim.rs", "system/ClaimResponse.rs", "system/ExplanationOfBenefit.rs"]


def _endpoint(rpc) -> str:
    return rpc.query("fhirSmartContracts.capability").data["tokenEndpoint"]


def _register(member, key=None, scopes=SCOPES) -> SmartTestClient:
    key = key or rsa_key()
    row = member.rpc.mutation(
        "fhirSmartContracts.registerClient",
        {"name": "Payer gateway", "scopes": scopes, "jwks": {"keys": [public_jwk(key)]}},
    ).data
    assert row["keyIds"] == [key.kid] and row["scopes"] == scopes
    client = SmartTestClient(client_id=row["smartClientId"], audience=_endpoint(member.rpc), key=key)
    client.registration_id = row["id"]  # type: ignore[attr-defined]
    return client


def _token(rpc, client: SmartTestClient, scope: str = " ".join(SCOPES), **claims) -> str:
    answer = rpc.as_(None).mutation("fhirSmartContracts.token", client.token_request(client.assertion(**claims), scope))
    return answer.data["access_token"]


def _adjudicated_claim(member) -> dict:
    claim = member.rpc.mutation("claims.createSyntheticUat", {"seed": 21, "count": 1}).data["claims"][0]
    member.rpc.mutation("claims.simulateSyntheticSubmission", {"id": claim["id"]}).data
    response = member.rpc.mutation(
        "claims.queueSyntheticResponse", {"id": claim["id"], "outcome": "partially_paid", "paidAmount": "10.00"}
    ).data
    member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": response["batchId"]}).data
    return claim


def test_register_token_and_read_a_claim(rpc, make_member):
    member = make_member()
    claim = _adjudicated_claim(member)
    client = _register(member)
    answer = rpc.as_(None).mutation(
        "fhirSmartContracts.token", client.token_request(client.assertion(), "system/Claim.rs system/Coverage.rs")
    )
    token = answer.data
    assert token["access_token"].startswith("dpf_") and token["token_type"] == "bearer"
    assert token["expires_in"] == 300 and token["scope"] == "system/Claim.rs"  # Coverage was not registered
    smart = rpc.as_(token["access_token"])
    read = smart.query("fhirSmartContracts.read", {"resourceType": "Claim", "id": str(claim["id"])}).data
    parsed = Claim.model_validate(read)
    assert parsed.id == str(claim["id"]) and str(parsed.total.value) == claim["totalCharge"]
    assert read["patient"]["type"] == "Patient" and set(read["patient"]) <= {"type", "identifier", "display"}
    # A scope the token does not hold: FORBIDDEN, even though the registration allows it.
    eob = smart.query("fhirSmartContracts.read", {"resourceType": "ExplanationOfBenefit", "id": str(claim["id"])})
    assert eob.code == "FORBIDDEN" and "scopes" in eob.error["message"]
    wider = rpc.as_(_token(rpc, client))
    eob = wider.query("fhirSmartContracts.read", {"resourceType": "ExplanationOfBenefit", "id": str(claim["id"])}).data
    assert ExplanationOfBenefit.model_validate(eob).payment.amount.value == 10
    assert wider.query("fhirSmartContracts.read", {"resourceType": "Coverage", "id": str(claim["id"])}).code == (
        "FORBIDDEN"
    )
    # The member reads the same resource with the read permission.
    assert member.rpc.query("fhirSmartContracts.read", {"resourceType": "Coverage", "id": str(claim["id"])}).data[
        "payor"
    ]


def test_replayed_expired_and_wrong_key_assertions_are_refused(rpc, make_member):
    member = make_member()
    client = _register(member)
    anonymous = rpc.as_(None)
    assertion = client.assertion()
    assert anonymous.mutation("fhirSmartContracts.token", client.token_request(assertion)).data
    replay = anonymous.mutation("fhirSmartContracts.token", client.token_request(assertion))
    assert replay.code == "UNAUTHORIZED" and "replayed jti" in replay.error["message"]
    expired = anonymous.mutation(
        "fhirSmartContracts.token", client.token_request(client.assertion(exp=int(time.time()) - 5))
    )
    assert expired.code == "UNAUTHORIZED" and "expired" in expired.error["message"]
    wrong = anonymous.mutation(
        "fhirSmartContracts.token", client.token_request(client.assertion(key=rsa_key(client.key.kid)))
    )
    assert wrong.code == "UNAUTHORIZED" and "bad signature" in wrong.error["message"]
    unknown = anonymous.mutation("fhirSmartContracts.token", client.token_request(client.assertion(key=rsa_key())))
    assert unknown.code == "UNAUTHORIZED" and "unknown key" in unknown.error["message"]
    aud = anonymous.mutation(
        "fhirSmartContracts.token", client.token_request(client.assertion(aud="https://evil.example/token"))
    )
    assert aud.code == "UNAUTHORIZED" and "wrong aud" in aud.error["message"]
    stranger = SmartTestClient(client_id="smart_nobody", audience=client.audience)
    assert anonymous.mutation("fhirSmartContracts.token", stranger.token_request(stranger.assertion())).code == (
        "UNAUTHORIZED"
    )
    for refused in (replay, expired, wrong, unknown, aud):
        assert assertion not in str(refused.body)
    unscoped = anonymous.mutation(
        "fhirSmartContracts.token", client.token_request(client.assertion(), "system/Coverage.rs")
    )
    assert unscoped.code == "FORBIDDEN"
    bad_grant = {**client.token_request(client.assertion()), "grant_type": "password"}
    assert anonymous.mutation("fhirSmartContracts.token", bad_grant).code == "BAD_REQUEST"


def test_a_smart_token_calls_nothing_else(rpc, make_member):
    member = make_member()
    client = _register(member)
    smart = rpc.as_(_token(rpc, client))
    for kind, name, payload in (
        ("query", "cases.list", {}),
        ("query", "claims.list", {}),
        ("query", "auth.session", None),
        ("query", "fhirSmartContracts.listClients", {}),
        (
            "mutation",
            "fhirSmartContracts.registerClient",
            {"name": "x", "scopes": SCOPES, "jwksUrl": "https://a.example/j"},
        ),
        ("mutation", "auth.createApiKey", {"name": "k"}),
    ):
        result = smart.call(kind, name, payload)
        assert result.code == "FORBIDDEN", (name, result.body)
    # Naming another client is refused too, even the registration's organization's own.
    elsewhere = rpc.as_(smart.token, member.client_id + 10_000)
    assert elsewhere.query("fhirSmartContracts.read", {"resourceType": "Claim", "id": "1"}).code == "FORBIDDEN"


def test_other_tenants_claims_are_not_found(rpc, make_member):
    owner = make_member()
    other = make_member()
    theirs = other.rpc.mutation("claims.create", claim_body()).data
    mine = owner.rpc.mutation("claims.create", claim_body()).data
    smart = rpc.as_(_token(rpc, _register(owner)))
    assert smart.query("fhirSmartContracts.read", {"resourceType": "Claim", "id": str(mine["id"])}).data
    stolen = smart.query("fhirSmartContracts.read", {"resourceType": "Claim", "id": str(theirs["id"])})
    assert stolen.code == "NOT_FOUND"
    not_yet = smart.query("fhirSmartContracts.read", {"resourceType": "ClaimResponse", "id": str(mine["id"])})
    assert not_yet.code == "NOT_FOUND" and "no adjudication" in not_yet.error["message"]
    assert smart.query("fhirSmartContracts.read", {"resourceType": "Patient", "id": "1"}).code == "BAD_REQUEST"
    assert smart.query("fhirSmartContracts.read", {"resourceType": "Claim", "id": "abc"}).code == "NOT_FOUND"
    # Registrations are the tenant's own as well.
    assert other.rpc.query("fhirSmartContracts.listClients", {}).data["items"] == []
    rotate = other.rpc.mutation(
        "fhirSmartContracts.rotateKeys", {"id": smart_registration(owner), "jwks": {"keys": [public_jwk(rsa_key())]}}
    )
    assert rotate.code == "NOT_FOUND"


def smart_registration(member) -> int:
    return member.rpc.query("fhirSmartContracts.listClients", {}).data["items"][0]["id"]


def test_an_expired_access_token_is_refused(rpc, make_member, services):
    member = make_member()
    token = _token(rpc, _register(member))
    with services.database.transaction() as db:
        db.execute(
            update(SmartAccessToken)
            .where(SmartAccessToken.token_hash == token_digest(token))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    result = rpc.as_(token).query("fhirSmartContracts.read", {"resourceType": "Claim", "id": "1"})
    assert result.code == "UNAUTHORIZED" and "expired" in result.error["message"]
    assert rpc.as_("dpf_" + "A" * 43).query("fhirSmartContracts.read", {"resourceType": "Claim", "id": "1"}).code == (
        "UNAUTHORIZED"
    )


@pytest.mark.parametrize("member_name", ["d", "p", "q", "dp", "dq", "qi", "k"])
def test_private_key_members_are_refused_and_never_stored(make_member, services, member_name):
    member = make_member()
    key = rsa_key()
    private = key.as_dict(private=True) if member_name != "k" else {**public_jwk(key), "k": "c2VjcmV0"}
    result = member.rpc.mutation(
        "fhirSmartContracts.registerClient", {"name": "leaky", "scopes": SCOPES, "jwks": {"keys": [private]}}
    )
    assert result.code == "BAD_REQUEST" and "jwks.keys.0" in str(result.error["data"]["issues"])
    assert "public key only" in result.error["message"]
    assert private.get(member_name, "never-echoed") not in str(result.body)
    with services.database.transaction() as db:
        assert db.scalars(select(SmartClient).where(SmartClient.client_id == member.client_id)).all() == []


def test_registration_input_rules_and_roles(make_member):
    member = make_member()
    base = {"name": "gw", "scopes": SCOPES, "jwks": {"keys": [public_jwk(rsa_key())]}}
    for bad, path in (
        ({**base, "scopes": ["system/Patient.rs"]}, "scopes.0"),
        ({**base, "scopes": ["system/Claim.cruds"]}, "scopes.0"),
        ({**base, "jwks": {"keys": [public_jwk(rsa_key(bits=1024))]}}, "jwks.keys.0"),
        ({**base, "jwksUrl": "https://keys.example/jwks.json"}, "(input)"),
        ({"name": "gw", "scopes": SCOPES, "jwksUrl": "http://keys.example/jwks.json"}, "jwksUrl"),
    ):
        result = member.rpc.mutation("fhirSmartContracts.registerClient", bad)
        assert result.code == "BAD_REQUEST", bad
        assert any(i["path"] == path for i in result.error["data"]["issues"]), (path, result.error)
    by_url = member.rpc.mutation(
        "fhirSmartContracts.registerClient",
        {"name": "gw", "scopes": ["system/*.read"], "jwksUrl": "https://keys.example/jwks.json"},
    ).data
    assert by_url["jwksUrl"] == "https://keys.example/jwks.json" and by_url["keyIds"] == []
    analyst = make_member(role="analyst")
    assert analyst.rpc.mutation("fhirSmartContracts.registerClient", base).code == "FORBIDDEN"
    assert analyst.rpc.query("fhirSmartContracts.listClients", {}).code == "FORBIDDEN"


def test_rotation_replaces_keys_with_an_optional_grace_window(rpc, make_member):
    member = make_member()
    client = _register(member)
    old_key = client.key
    new_key = ec_key()
    rotated = member.rpc.mutation(
        "fhirSmartContracts.rotateKeys",
        {"id": client.registration_id, "jwks": {"keys": [public_jwk(new_key)]}, "keepOldKeysMinutes": 10},
    ).data
    assert rotated["keyIds"] == [new_key.kid] and rotated["retiredKeyIds"] == [old_key.kid]
    assert rotated["retiredKeysUntil"] and rotated["keysRotatedAt"]
    assert _token(rpc, client)  # the old key, within the grace window
    client.key = new_key
    assert _token(rpc, client)
    member.rpc.mutation(
        "fhirSmartContracts.rotateKeys", {"id": client.registration_id, "jwks": {"keys": [public_jwk(rsa_key())]}}
    ).data
    refused = rpc.as_(None).mutation("fhirSmartContracts.token", client.token_request(client.assertion()))
    assert refused.code == "UNAUTHORIZED" and "unknown key" in refused.error["message"]
    listed = member.rpc.query("fhirSmartContracts.listClients", {"limit": 1}).data
    assert listed["items"][0]["id"] == client.registration_id and listed["items"][0]["retiredKeyIds"] == []
    assert not any(m in str(listed) for m in ('"n"', '"d"', "'n'", "'d'"))


def test_jwks_url_clients_are_told_fetching_is_not_supported(rpc, make_member):
    member = make_member()
    row = member.rpc.mutation(
        "fhirSmartContracts.registerClient",
        {"name": "by-url", "scopes": SCOPES, "jwksUrl": "https://keys.example/jwks.json"},
    ).data
    client = SmartTestClient(client_id=row["smartClientId"], audience=_endpoint(rpc))
    result = rpc.as_(None).mutation("fhirSmartContracts.token", client.token_request(client.assertion()))
    assert result.code == "PRECONDITION_FAILED" and "rotateKeys" in result.error["message"]


def test_capability_statement_validates(rpc, settings):
    answer = rpc.query("fhirSmartContracts.capability").data
    statement = CapabilityStatement.model_validate(answer["statement"])
    assert statement.fhirVersion == "4.0.1"
    assert answer["tokenEndpoint"] == settings.public_base_url + "/api/rpc/fhirSmartContracts.token"
    assert answer["tokenEndpointAuthMethodsSupported"] == ["private_key_jwt"]
    assert answer["tokenEndpointAuthSigningAlgValuesSupported"] == ["RS384", "ES384"]
