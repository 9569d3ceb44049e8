"""The FHIR R4 resources the platform emits, built from its own claim facts and validated (no I/O).

Every resource is validated by the maintained FHIR model library `fhir.resources` (its R4B package,
the R4 family; the statement declares fhirVersion 4.0.1) before it leaves: a resource the library
refuses is a server bug (`FhirModelError`), never sent half-right. The patient is only ever a
reference (the claim's opaque `patient_ref` as an identifier), never a name, birth date or member id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from fhir.resources.R4B.bundle import Bundle
from fhir.resources.R4B.capabilitystatement import CapabilityStatement
from fhir.resources.R4B.claim import Claim
from fhir.resources.R4B.claimresponse import ClaimResponse
from fhir.resources.R4B.coverage import Coverage
from fhir.resources.R4B.explanationofbenefit import ExplanationOfBenefit
from fhir.resources.R4B.operationoutcome import OperationOutcome
from pydantic import BaseModel, ValidationError

from api.integrations.fhir_smart_contracts.scopes import RESOURCES

#: The searchable types (the REST facade pages them by claim id).
SEARCHABLE = ("Claim", "Coverage")
_COUNT_PARAM = {
    "name": "_count",
    "type": "number",
    "documentation": "Page size, 1 to 100; follow the Bundle's next link for the next page",
}

FHIR_VERSION = "4.0.1"
# The day this statement's content last changed (FHIR requires a date; a fixed one keeps it stable).
CAPABILITY_DATE = "2026-01-01"
AUTH_METHODS = ("private_key_jwt",)
SIGNING_ALGS = ("RS384", "ES384")
PATIENT_REF_SYSTEM = "urn:denial-platform:patient-ref"
_MODELS: dict[str, type[BaseModel]] = {
    "Claim": Claim,
    "ClaimResponse": ClaimResponse,
    "ExplanationOfBenefit": ExplanationOfBenefit,
    "Coverage": Coverage,
    "CapabilityStatement": CapabilityStatement,
    "Bundle": Bundle,
    "OperationOutcome": OperationOutcome,
}
_CLAIM_TYPE = "http://terminology.hl7.org/CodeSystem/claim-type"
_ADJUDICATION = "http://terminology.hl7.org/CodeSystem/adjudication"
_PRE_SUBMISSION = frozenset(
    {
        "draft",
        "in_review",
        "correction_requested",
        "corrected",
        "ready_for_submission_preparation",
        "approved_for_submission_preparation",
    }
)
_DISPOSITION = {
    "adjudicated_paid": "paid",
    "adjudicated_partially_paid": "partially paid",
    "adjudicated_denied": "denied",
    "closed": "closed",
}


class FhirModelError(RuntimeError):
    """A resource built here does not validate as FHIR: a server bug (answered as INTERNAL_SERVER_ERROR)."""


@dataclass(frozen=True)
class LineFacts:
    line_number: int
    charge: Decimal
    procedure_code: str | None = None
    revenue_code: str | None = None
    modifiers: Sequence[str] = ()
    units: Decimal | None = None
    service_date_from: date | None = None
    service_date_to: date | None = None


@dataclass(frozen=True)
class ClaimFacts:
    """What the platform knows of one claim and its latest adjudication (no patient demographics)."""

    id: int
    state: str
    created: datetime
    total_charge: Decimal
    provider: str
    payer: str | None = None
    payer_id: str | None = None
    filing_indicator: str | None = None
    bill_type: str | None = None
    statement_from: date | None = None
    statement_to: date | None = None
    diagnosis_codes: Sequence[str] = ()
    patient_ref: str | None = None
    lines: Sequence[LineFacts] = field(default_factory=tuple)
    paid: Decimal | None = None  # the latest remittance's paid amount; None: never adjudicated
    patient_share: Decimal | None = None
    adjudicated_at: datetime | None = None

    @property
    def adjudicated(self) -> bool:
        return self.paid is not None and self.adjudicated_at is not None


def validated(resource: dict[str, Any]) -> dict[str, Any]:
    """The resource as FHIR JSON after `fhir.resources` (R4B) accepted it."""
    model = _MODELS[resource["resourceType"]]
    try:
        parsed = model.model_validate(resource)
    except ValidationError as exc:
        raise FhirModelError(
            f"{resource['resourceType']} does not validate as FHIR ({exc.error_count()} errors)"
        ) from None
    result: dict[str, Any] = json.loads(parsed.model_dump_json())
    return result


def _money(amount: Decimal) -> dict[str, Any]:
    return {"value": amount, "currency": "USD"}


def _patient(facts: ClaimFacts) -> dict[str, Any]:
    if facts.patient_ref:
        return {"type": "Patient", "identifier": {"system": PATIENT_REF_SYSTEM, "value": facts.patient_ref}}
    return {"type": "Patient", "display": "patient not recorded"}


def _payer(facts: ClaimFacts) -> dict[str, Any]:
    ref: dict[str, Any] = {"type": "Organization", "display": facts.payer or "payer not recorded"}
    if facts.payer_id:
        ref["identifier"] = {"value": facts.payer_id}
    return ref


def _type(facts: ClaimFacts) -> dict[str, Any]:
    code = "institutional" if facts.bill_type else "professional"
    return {"coding": [{"system": _CLAIM_TYPE, "code": code}]}


def _period(start: date | None, end: date | None) -> dict[str, Any] | None:
    if start is None and end is None:
        return None
    return {k: v.isoformat() for k, v in (("start", start), ("end", end or start)) if v is not None}


def _product(line: LineFacts) -> dict[str, Any]:
    if line.procedure_code:
        return {"coding": [{"system": "http://www.ama-assn.org/go/cpt", "code": line.procedure_code}]}
    if line.revenue_code:
        return {"coding": [{"system": "https://www.nubc.org/CodeSystem/RevenueCodes", "code": line.revenue_code}]}
    return {"text": "not coded"}


def _item(line: LineFacts) -> dict[str, Any]:
    item: dict[str, Any] = {
        "sequence": line.line_number,
        "productOrService": _product(line),
        "net": _money(line.charge),
    }
    if line.modifiers:
        item["modifier"] = [{"coding": [{"code": m}]} for m in line.modifiers]
    if line.units is not None:
        item["quantity"] = {"value": line.units}
    if (served := _period(line.service_date_from, line.service_date_to)) is not None:
        item["servicedPeriod"] = served
    return item


def _common(facts: ClaimFacts, resource_type: str) -> dict[str, Any]:
    return {
        "resourceType": resource_type,
        "id": str(facts.id),
        "type": _type(facts),
        "use": "claim",
        "patient": _patient(facts),
    }


def claim(facts: ClaimFacts) -> dict[str, Any]:
    status = "cancelled" if facts.state == "withdrawn" else "draft" if facts.state in _PRE_SUBMISSION else "active"
    resource = {
        **_common(facts, "Claim"),
        "status": status,
        "created": facts.created.isoformat(),
        "provider": {"type": "Organization", "display": facts.provider},
        "insurer": _payer(facts),
        "priority": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/processpriority", "code": "normal"}]},
        "insurance": [{"sequence": 1, "focal": True, "coverage": {"reference": f"Coverage/{facts.id}"}}],
        "total": _money(facts.total_charge),
    }
    if (billable := _period(facts.statement_from, facts.statement_to)) is not None:
        resource["billablePeriod"] = billable
    if facts.diagnosis_codes:
        resource["diagnosis"] = [
            {
                "sequence": i,
                "diagnosisCodeableConcept": {"coding": [{"system": "http://hl7.org/fhir/sid/icd-10-cm", "code": code}]},
            }
            for i, code in enumerate(facts.diagnosis_codes, start=1)
        ]
    if facts.lines:
        resource["item"] = [_item(line) for line in facts.lines]
    return validated(resource)


def _totals(facts: ClaimFacts) -> list[dict[str, Any]]:
    assert facts.paid is not None
    return [
        {
            "category": {"coding": [{"system": _ADJUDICATION, "code": "submitted"}]},
            "amount": _money(facts.total_charge),
        },
        {"category": {"coding": [{"system": _ADJUDICATION, "code": "benefit"}]}, "amount": _money(facts.paid)},
    ]


def _adjudication_fields(facts: ClaimFacts) -> dict[str, Any]:
    assert facts.paid is not None and facts.adjudicated_at is not None
    return {
        "status": "active",
        "created": facts.adjudicated_at.isoformat(),
        "insurer": _payer(facts),
        "outcome": "complete",
        "disposition": _DISPOSITION.get(facts.state, "adjudicated"),
        "total": _totals(facts),
    }


def claim_response(facts: ClaimFacts) -> dict[str, Any]:
    assert facts.paid is not None
    return validated(
        {
            **_common(facts, "ClaimResponse"),
            **_adjudication_fields(facts),
            "request": {"reference": f"Claim/{facts.id}"},
            "payment": {
                "type": {
                    "coding": [{"system": "http://terminology.hl7.org/CodeSystem/ex-paymenttype", "code": "complete"}]
                },
                "amount": _money(facts.paid),
            },
        }
    )


def explanation_of_benefit(facts: ClaimFacts) -> dict[str, Any]:
    assert facts.paid is not None
    resource = {
        **_common(facts, "ExplanationOfBenefit"),
        **_adjudication_fields(facts),
        "provider": {"type": "Organization", "display": facts.provider},
        "claim": {"reference": f"Claim/{facts.id}"},
        "claimResponse": {"reference": f"ClaimResponse/{facts.id}"},
        "insurance": [{"focal": True, "coverage": {"reference": f"Coverage/{facts.id}"}}],
        "payment": {"amount": _money(facts.paid)},
    }
    if (billable := _period(facts.statement_from, facts.statement_to)) is not None:
        resource["billablePeriod"] = billable
    if facts.patient_share is not None:
        resource["total"].append(
            {
                "category": {"coding": [{"system": _ADJUDICATION, "code": "copay"}], "text": "patient responsibility"},
                "amount": _money(facts.patient_share),
            }
        )
    return validated(resource)


def coverage(facts: ClaimFacts) -> dict[str, Any]:
    """The coverage a claim was billed under: its payer and claim filing indicator (no member id)."""
    resource: dict[str, Any] = {
        "resourceType": "Coverage",
        "id": str(facts.id),
        "status": "active",
        "beneficiary": _patient(facts),
        "payor": [_payer(facts)],
    }
    if facts.filing_indicator:
        resource["type"] = {
            "coding": [{"system": "urn:x12:claim-filing-indicator-code", "code": facts.filing_indicator}]
        }
    return validated(resource)


def smart_configuration(token_url: str) -> dict[str, Any]:
    """The SMART configuration of a backend service (SMART App Launch 2.0 section 2.0.10): the token
    endpoint (the assertions' aud), client_credentials with a private_key_jwt assertion (RS384/ES384),
    the system scopes a registration may hold."""
    return {
        "token_endpoint": token_url,
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
        "token_endpoint_auth_signing_alg_values_supported": list(SIGNING_ALGS),
        "scopes_supported": [f"system/{r}.rs" for r in RESOURCES] + [f"system/{r}.read" for r in RESOURCES],
        "capabilities": ["client-confidential-asymmetric"],
    }


def capability(token_url: str, rest_base: str) -> dict[str, Any]:
    """The CapabilityStatement: the four resources with their read interaction (Claim and Coverage also
    searchable), secured by SMART Backend Services (client_credentials with private_key_jwt,
    RS384/ES384) at `token_url`; served as REST at `rest_base` and over the RPC router."""
    return validated(
        {
            "resourceType": "CapabilityStatement",
            "status": "active",
            "date": CAPABILITY_DATE,
            "kind": "instance",
            "fhirVersion": FHIR_VERSION,
            "format": ["json"],
            "software": {"name": "denial-platform"},
            "implementation": {
                "url": rest_base,
                "description": f"FHIR R4 REST at {rest_base} (read; search with _count and next links on "
                f"{' and '.join(SEARCHABLE)}); the same reads over the RPC router: fhirSmartContracts.read "
                "{resourceType, id}",
            },
            "rest": [
                {
                    "mode": "server",
                    "security": {
                        "cors": False,
                        "service": [
                            {
                                "coding": [
                                    {
                                        "system": "http://terminology.hl7.org/CodeSystem/restful-security-service",
                                        "code": "SMART-on-FHIR",
                                    }
                                ]
                            }
                        ],
                        "description": "SMART Backend Services: client_credentials grant, private_key_jwt client "
                        f"assertions signed {' or '.join(SIGNING_ALGS)}, short-lived bearer access tokens",
                        "extension": [
                            {
                                "url": "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
                                "extension": [{"url": "token", "valueUri": token_url}],
                            }
                        ],
                    },
                    "resource": [
                        {
                            "type": r,
                            "interaction": [{"code": "read"}] + ([{"code": "search-type"}] if r in SEARCHABLE else []),
                            **({"searchParam": [_COUNT_PARAM]} if r in SEARCHABLE else {}),
                        }
                        for r in RESOURCES
                    ],
                }
            ],
        }
    )


def searchset(base: str, resources: Sequence[dict[str, Any]], self_url: str, next_url: str | None) -> dict[str, Any]:
    """A searchset Bundle of resources already validated (FHIR R4 3.1.1.4: `link` self and next; each
    entry's fullUrl is `{base}/{type}/{id}`, search mode `match`)."""
    links = [{"relation": "self", "url": self_url}]
    if next_url is not None:
        links.append({"relation": "next", "url": next_url})
    return validated(
        {
            "resourceType": "Bundle",
            "type": "searchset",
            "link": links,
            "entry": [
                {"fullUrl": f"{base}/{r['resourceType']}/{r['id']}", "resource": r, "search": {"mode": "match"}}
                for r in resources
            ],
        }
    )


def operation_outcome(code: str, diagnostics: str) -> dict[str, Any]:
    """An OperationOutcome with one error issue (FHIR R4 issue-type `code`: login, forbidden,
    not-found, invalid, throttled, exception, ...)."""
    return validated(
        {
            "resourceType": "OperationOutcome",
            "issue": [{"severity": "error", "code": code, "diagnostics": diagnostics}],
        }
    )
