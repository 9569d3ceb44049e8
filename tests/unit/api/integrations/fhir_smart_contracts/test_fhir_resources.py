"""The FHIR resources the platform emits validate with fhir.resources (R4B) and carry no demographics."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.claim import Claim

from api.integrations.fhir_smart_contracts import fhir

NOW = datetime(2025, 4, 1, 12, 0, tzinfo=UTC)


def _facts(**overrides) -> fhir.ClaimFacts:
    base = {
        "id": 7,
        "state": "adjudicated_partially_paid",
        "created": NOW,
        "total_charge": Decimal("150.50"),
        "provider": "General Hospital",
        "payer": "ACME HEALTH",
        "payer_id": "ACME1",
        "filing_indicator": "CI",
        "bill_type": "131",
        "statement_from": date(2025, 3, 1),
        "statement_to": date(2025, 3, 2),
        "diagnosis_codes": ["R51"],
        "patient_ref": "opaque-ref",
        "lines": [fhir.LineFacts(1, Decimal("120.00"), "99213", None, ["25"], Decimal("1"), date(2025, 3, 1))],
        "paid": Decimal("10.00"),
        "patient_share": Decimal("5.00"),
        "adjudicated_at": NOW,
    }
    return fhir.ClaimFacts(**{**base, **overrides})


def test_each_resource_validates_and_references_the_patient_only():
    for build in (fhir.claim, fhir.claim_response, fhir.explanation_of_benefit, fhir.coverage):
        resource = build(_facts())
        assert resource["id"] == "7"
        patient = resource.get("patient") or resource["beneficiary"]
        assert patient == {"type": "Patient", "identifier": {"system": fhir.PATIENT_REF_SYSTEM, "value": "opaque-ref"}}
    claim = fhir.claim(_facts())
    assert Claim.model_validate(claim).total.value == Decimal("150.50")
    assert claim["item"][0]["productOrService"]["coding"][0]["code"] == "99213"
    assert fhir.claim(_facts(state="withdrawn"))["status"] == "cancelled"
    assert fhir.claim(_facts(state="draft", patient_ref=None))["patient"] == {
        "type": "Patient",
        "display": "patient not recorded",
    }
    eob = fhir.explanation_of_benefit(_facts())
    assert eob["payment"]["amount"]["value"] == 10.0 and eob["disposition"] == "partially paid"


def test_an_invalid_resource_never_leaves():
    with pytest.raises(fhir.FhirModelError):
        fhir.validated({"resourceType": "Claim", "id": "1", "status": "active"})


def test_capability_statement():
    statement = fhir.capability(
        "https://platform.example/api/rpc/fhirSmartContracts.token", "https://platform.example/fhir/r4"
    )
    parsed = CapabilityStatement.model_validate(statement)
    assert parsed.fhirVersion == "4.0.1"
    rest = statement["rest"][0]
    assert [r["type"] for r in rest["resource"]] == ["Claim", "ClaimResponse", "ExplanationOfBenefit", "Coverage"]
    interactions = {r["type"]: [i["code"] for i in r["interaction"]] for r in rest["resource"]}
    assert interactions == {
        "Claim": ["read", "search-type"],
        "ClaimResponse": ["read"],
        "ExplanationOfBenefit": ["read"],
        "Coverage": ["read", "search-type"],
    }
    assert statement["implementation"]["url"] == "https://platform.example/fhir/r4"
    assert "fhirSmartContracts.read" in statement["implementation"]["description"]  # both wires are true
    uris = rest["security"]["extension"][0]["extension"]
    assert uris == [{"url": "token", "valueUri": "https://platform.example/api/rpc/fhirSmartContracts.token"}]
