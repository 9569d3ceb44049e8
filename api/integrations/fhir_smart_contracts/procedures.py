"""fhirSmartContracts.*: SMART Backend Services clients of a hospital, their token exchange and FHIR reads.

A registered client signs a short-lived JWT with its own private key (RS384/ES384) and exchanges it at
`fhirSmartContracts.token` for an access token (`dpf_...`, minutes long, scoped). That token travels as
`Authorization: Bearer` like every other and reaches only the procedures declaring `smart_scopes`
(`fhirSmartContracts.read`), in the registering client only.
"""

from __future__ import annotations

from typing import Any

from api.infra.db.base import utcnow
from api.integrations.fhir_smart_contracts import fhir, scopes, service
from api.integrations.fhir_smart_contracts.models import SmartClient
from api.integrations.fhir_smart_contracts.schemas import (
    CapabilityOut,
    KeysIn,
    ListIn,
    ReadIn,
    RegisterIn,
    RotateIn,
    SmartClientOut,
    TokenIn,
    TokenOut,
)
from api.rpc.context import Context, PublicContext
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("fhirSmartContracts")


def _out(row: SmartClient) -> SmartClientOut:
    return SmartClientOut.model_validate(service.view(row))


def _keys(input: KeysIn) -> list[dict[str, Any]] | None:
    """The inline JWK Set's keys as JWK objects (None: a JWKS URL was given instead)."""
    return None if input.jwks is None else [k.as_jwk() for k in input.jwks.keys]


@router.mutation("registerClient", permission="manage")
def register_client(ctx: Context, input: RegisterIn) -> SmartClientOut:
    """Register a SMART Backend Services client of this client: its allowed system scopes (v2
    `system/Claim.rs` or v1 `system/*.read`; Claim, ClaimResponse, ExplanationOfBenefit, Coverage; read
    only) and its public keys (a JWK Set: RSA >= 2048 / RS384 or EC P-384 / ES384, each with a kid), or
    the https URL of its JWK Set. A private key member is BAD_REQUEST and nothing is stored. Answers the
    generated client_id (public, not a secret)."""
    row = service.register(
        ctx.db,
        name=input.name,
        allowed=input.scopes,
        keys=_keys(input),
        jwks_url=input.jwks_url,
        user_id=ctx.user_id,
    )
    ctx.note("smart_client", row.id, after=service.audit_view(row))
    return _out(row)


@router.query("listClients", permission="manage")
def list_clients(ctx: Context, input: ListIn) -> Page[SmartClientOut]:
    """This client's SMART backend registrations, newest first: scopes, key ids, JWKS URL, rotations."""
    return paginate(
        ctx.db,
        service.list_statement(),
        SmartClient.id,
        input,
        lambda row: SmartClientOut.model_validate(service.view(row)),
    )


@router.mutation("rotateKeys", permission="manage")
def rotate_keys(ctx: Context, input: RotateIn) -> SmartClientOut:
    """Replace a registration's keys (inline JWK Set or JWKS URL). The replaced inline keys stay accepted
    for `keepOldKeysMinutes` (default 0: at once); tokens already issued run to their expiry. Audited by
    kid only."""
    row, before = service.rotate(
        ctx.db,
        input.id,
        keys=_keys(input),
        jwks_url=input.jwks_url,
        keep_minutes=input.keep_old_keys_minutes,
        now=utcnow(),
    )
    ctx.note("smart_client", row.id, before=before, after=service.audit_view(row))
    return _out(row)


@router.mutation("token", auth="public")
def token(ctx: PublicContext, input: TokenIn) -> TokenOut:
    """The SMART Backend Services token endpoint (client_credentials, private_key_jwt): a client
    assertion signed RS384/ES384 with a registered key (kid), iss = sub = client_id, aud = this
    endpoint's URL (see capability), exp at most 5 minutes ahead, a jti never used before. Answers a
    short-lived bearer access token for the requested scopes the registration allows. A bad assertion
    is UNAUTHORIZED saying which rule failed (expired, replayed jti, unknown key, bad signature, aud)."""
    settings = ctx.services.settings
    row, issued, granted = service.exchange(
        ctx.db,
        input.client_assertion.get_secret_value(),
        input.scope,
        audience=service.token_endpoint(settings.public_base_url),
        now=utcnow(),
        lifetime_seconds=settings.smart_access_token_seconds,
    )
    ctx.audit.organization_id = row.organization_id
    ctx.note("smart_client", row.id, after={"scopes": granted})
    return TokenOut(access_token=issued, expires_in=settings.smart_access_token_seconds, scope=" ".join(granted))


@router.query("read", smart_scopes=scopes.RESOURCES)
def read(ctx: Context, input: ReadIn) -> dict[str, Any]:
    """One FHIR R4 resource of this client as FHIR JSON, validated by fhir.resources: Claim,
    ClaimResponse and ExplanationOfBenefit (once adjudicated) and Coverage, by the claim's id. Callable
    with a SMART access token (within its scopes) or by a member; the patient is a reference only."""
    smart = ctx.principal.smart
    return service.read(ctx.db, input.resource_type, input.id, smart.scopes if smart else None)


@router.query("capability", auth="public")
def capability(ctx: PublicContext) -> CapabilityOut:
    """The FHIR CapabilityStatement (fhirVersion 4.0.1, read on Claim, ClaimResponse,
    ExplanationOfBenefit, Coverage; SMART security with the token endpoint) and the SMART
    configuration a backend client needs: token endpoint (the assertions' aud), grant type, auth
    method private_key_jwt, signing algorithms RS384/ES384."""
    endpoint = service.token_endpoint(ctx.services.settings.public_base_url)
    config = fhir.smart_configuration(endpoint)
    return CapabilityOut(
        statement=fhir.capability(endpoint, service.rest_base(ctx.services.settings.public_base_url)),
        token_endpoint=config["token_endpoint"],
        grant_types_supported=config["grant_types_supported"],
        token_endpoint_auth_methods_supported=config["token_endpoint_auth_methods_supported"],
        token_endpoint_auth_signing_alg_values_supported=config["token_endpoint_auth_signing_alg_values_supported"],
        scopes_supported=config["scopes_supported"],
    )
