"""SMART Backend Services: registrations, the client-credentials token exchange, FHIR reads.

Registrations and reads run in the caller's tenant scope. The token exchange is public (the client
authenticates with its signed assertion, not a session), so it finds the registration by the
assertion's `iss` across tenants and writes its rows with the registration's own tenant ids.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.core.errors import Forbidden, InvalidInput, NotFound, PreconditionFailed, Unauthenticated
from api.denials.claims import service as claims
from api.infra.db.lookup import get_by_id
from api.integrations.fhir_smart_contracts import assertion, fhir, jwks, scopes
from api.integrations.fhir_smart_contracts.models import SmartAssertionJti, SmartClient
from api.platform.auth import service as auth
from api.platform.organizations import service as organizations

TOKEN_PATH = "/api/rpc/fhirSmartContracts.token"
#: The FHIR REST facade (`routes.py`): its base and its token endpoint, under the same public base URL.
REST_BASE_PATH = "/fhir/r4"
REST_TOKEN_PATH = REST_BASE_PATH + "/auth/token"
#: Resource types a client can search (page through without knowing ids): one resource per claim.
SEARCHABLE = fhir.SEARCHABLE
MAX_SEARCH_COUNT = 100
CLIENT_ID_PREFIX = "smart_"


def token_endpoint(public_base_url: str) -> str:
    """The token endpoint URL: what every client assertion's `aud` must be."""
    return public_base_url.rstrip("/") + TOKEN_PATH


def rest_base(public_base_url: str) -> str:
    """The FHIR REST base URL (`{base}/fhir/r4`)."""
    return public_base_url.rstrip("/") + REST_BASE_PATH


def rest_token_endpoint(public_base_url: str) -> str:
    """The REST facade's token endpoint: the `aud` of assertions sent to it."""
    return public_base_url.rstrip("/") + REST_TOKEN_PATH


def view(row: SmartClient) -> dict[str, Any]:
    """A registration as answered: key ids, never key material beyond them."""
    return {
        "id": row.id,
        "smart_client_id": row.smart_client_id,
        "name": row.name,
        "scopes": list(row.scopes),
        "key_ids": jwks.kids(row.jwks),
        "jwks_url": row.jwks_url,
        "retired_key_ids": jwks.kids(row.retired_jwks),
        "retired_keys_until": row.retired_keys_until,
        "keys_rotated_at": row.keys_rotated_at,
        "created_at": row.created_at,
    }


def audit_view(row: SmartClient) -> dict[str, Any]:
    return {"name": row.name, "scopes": list(row.scopes), "kids": jwks.kids(row.jwks), "jwks_url": row.jwks_url}


#: A JWK Set's keys as given: public members only (the input refused the rest), kids unique.
Keys = Sequence[Mapping[str, Any]]


def _key_set(keys: Keys | None) -> dict[str, Any] | None:
    return None if keys is None else {"keys": [dict(k) for k in keys]}


def register(
    db: Session, *, name: str, allowed: Sequence[str], keys: Keys | None, jwks_url: str | None, user_id: int
) -> SmartClient:
    row = SmartClient(
        smart_client_id=CLIENT_ID_PREFIX + secrets.token_urlsafe(18),
        name=name,
        scopes=list(dict.fromkeys(allowed)),
        jwks=_key_set(keys),
        jwks_url=jwks_url,
        registered_by=user_id,
    )
    db.add(row)
    db.flush()
    return row


def list_statement() -> Select[Any]:
    """Every registered SMART client of the selected client; unordered, for paging."""
    return select(SmartClient)


def rotate(
    db: Session, registration_id: int, *, keys: Keys | None, jwks_url: str | None, keep_minutes: int, now: datetime
) -> tuple[SmartClient, dict[str, Any]]:
    """Replace the registration's keys; the replaced inline keys stay accepted for `keep_minutes`."""
    row = get_by_id(db, SmartClient, registration_id, "SMART client", for_update=True)
    before = audit_view(row)
    row.retired_jwks = row.jwks if keep_minutes and row.jwks else None
    row.retired_keys_until = now + timedelta(minutes=keep_minutes) if row.retired_jwks else None
    row.jwks = _key_set(keys)
    row.jwks_url = jwks_url
    row.keys_rotated_at = now
    db.flush()
    return row, before


def _accepted_keys(row: SmartClient, now: datetime) -> list[dict[str, Any]]:
    keys = list((row.jwks or {}).get("keys", []))
    if row.retired_jwks and row.retired_keys_until is not None and row.retired_keys_until > now:
        keys += [k for k in row.retired_jwks.get("keys", []) if k.get("kid") not in jwks.kids(row.jwks)]
    if not keys and row.jwks_url:
        raise PreconditionFailed(
            "This client registered a JWKS URL; fetching it is not supported in this deployment: "
            "register the public keys inline with fhirSmartContracts.rotateKeys"
        )
    return keys


def _consume_jti(db: Session, row: SmartClient, verified: assertion.VerifiedAssertion, now: datetime) -> None:
    """Record the assertion's jti once; a second use (even a concurrent one) is a replay.

    Seen ids are kept until their assertion expires: after that the assertion itself is refused as
    expired, so forgetting the id cannot let it be replayed."""
    db.execute(
        delete(SmartAssertionJti)
        .where(SmartAssertionJti.registration_id == row.id, SmartAssertionJti.expires_at <= now)
        .execution_options(synchronize_session=False)
    )
    replay = Unauthenticated("client_assertion refused: replayed jti (this assertion was used already)")
    seen = select(SmartAssertionJti.id).where(
        SmartAssertionJti.registration_id == row.id, SmartAssertionJti.jti == verified.jti
    )
    if db.scalar(seen) is not None:
        raise replay
    try:
        with db.begin_nested():
            db.add(
                SmartAssertionJti(
                    organization_id=row.organization_id,
                    client_id=row.client_id,
                    registration_id=row.id,
                    jti=verified.jti,
                    expires_at=verified.expires_at,
                )
            )
    except IntegrityError:
        raise replay from None


def exchange(
    db: Session, client_assertion: str, scope: str, *, audience: str, now: datetime, lifetime_seconds: int
) -> tuple[SmartClient, str, list[str]]:
    """Verify the client assertion and issue an access token for the granted scopes."""
    claimed = assertion.claimed_client_id(client_assertion)
    row = db.scalar(select(SmartClient).where(SmartClient.smart_client_id == claimed))
    if row is None:
        raise Unauthenticated("client_assertion refused: unknown client_id (iss)")
    verified = assertion.verify(
        client_assertion,
        keys=_accepted_keys(row, now),
        client_id=row.smart_client_id,
        audience=audience,
        now=int(now.timestamp()),
    )
    granted = scopes.grant(scope.split(), row.scopes)
    if not granted:
        raise Forbidden(
            f"None of the requested scopes is registered for this client; it may ask for {' '.join(row.scopes)}"
        )
    _consume_jti(db, row, verified, now)
    token = auth.issue_smart_token(
        db,
        organization_id=row.organization_id,
        client_id=row.client_id,
        registration_id=row.id,
        scopes=granted,
        now=now,
        lifetime_seconds=lifetime_seconds,
    )
    db.flush()
    return row, token, granted


def _facts(db: Session, record: claims.ClaimRecord) -> fhir.ClaimFacts:
    claim, lines, latest, adjudicated = record.claim, record.lines, record.remitted, record.adjudicated
    provider = organizations.client_name(db, claim.client_id) or "provider"
    return fhir.ClaimFacts(
        id=claim.id,
        state=claim.state,
        created=claim.created_at,
        total_charge=claim.total_charge,
        provider=provider,
        payer=claim.payer,
        payer_id=claim.payer_id,
        filing_indicator=claim.filing_indicator,
        bill_type=claim.bill_type,
        statement_from=claim.statement_from,
        statement_to=claim.statement_to,
        diagnosis_codes=list(claim.diagnosis_codes or []),
        patient_ref=claim.patient_ref,
        lines=[
            fhir.LineFacts(
                line_number=line.line_number,
                charge=line.charge,
                procedure_code=line.procedure_code,
                revenue_code=line.revenue_code,
                modifiers=list(line.modifiers or []),
                units=line.units,
                service_date_from=line.service_date_from,
                service_date_to=line.service_date_to,
            )
            for line in lines
        ],
        paid=latest["paid"].amount if adjudicated and "paid" in latest else None,
        patient_share=latest["patient"].amount if adjudicated and "patient" in latest else None,
        adjudicated_at=claim.state_changed_at if adjudicated else None,
    )


_BUILDERS = {
    "Claim": fhir.claim,
    "ClaimResponse": fhir.claim_response,
    "ExplanationOfBenefit": fhir.explanation_of_benefit,
    "Coverage": fhir.coverage,
}


def read(db: Session, resource_type: str, resource_id: str, granted: frozenset[str] | None) -> dict[str, Any]:
    """One FHIR resource of the caller's client, validated; `granted` are a SMART token's scopes (None:
    a signed-in member, who reads with the `read` permission)."""
    if granted is not None and not scopes.allows_read(granted, resource_type):
        raise Forbidden(f"This access token's scopes do not allow reading {resource_type}")
    missing = NotFound(f"{resource_type}/{resource_id} was not found in this client")
    if not resource_id.isdigit() or len(resource_id) > 18:
        raise missing
    record = claims.claim_record(db, int(resource_id))
    if record is None:
        raise missing
    facts = _facts(db, record)
    if resource_type in ("ClaimResponse", "ExplanationOfBenefit") and not facts.adjudicated:
        raise NotFound(f"{resource_type}/{resource_id} was not found: the claim has no adjudication yet")
    return _BUILDERS[resource_type](facts)


def _resource(db: Session, resource_type: str, record: claims.ClaimRecord) -> dict[str, Any]:
    return _BUILDERS[resource_type](_facts(db, record))


def search(
    db: Session, resource_type: str, *, after_id: int, count: int, granted: frozenset[str] | None
) -> tuple[list[dict[str, Any]], int | None]:
    """A page of the caller's client's `resource_type` resources (Claim or Coverage: one per claim) in
    claim id order after `after_id`, validated; and the id to continue after (None: the last page)."""
    if resource_type not in SEARCHABLE:
        raise InvalidInput(f"Searching {resource_type} is not supported; search {' or '.join(SEARCHABLE)}")
    if granted is not None and not scopes.allows_search(granted, resource_type):
        raise Forbidden(f"This access token's scopes do not allow searching {resource_type}")
    if not 1 <= count <= MAX_SEARCH_COUNT:
        raise InvalidInput(f"_count must be between 1 and {MAX_SEARCH_COUNT}")
    ids = claims.claim_ids_after(db, after_id, count + 1)
    page, more = ids[:count], len(ids) > count
    found: list[dict[str, Any]] = []
    for claim_id in page:
        record = claims.claim_record(db, claim_id)
        if record is not None:
            found.append(_resource(db, resource_type, record))
    return found, (page[-1] if more and page else None)
