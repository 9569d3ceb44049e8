"""`{base}/fhir/r4/...`: the platform's FHIR reads as standard FHIR R4 REST, for EHRs and gateways.

The same implementation as the RPC procedures, over another wire: the token exchange is
`service.exchange` (aud = this facade's token endpoint), reads are `service.read`, searches
`service.search`; the caller is `Services.resolve_principal` and the tenant `Services.resolve_tenant`
(a SMART token's own client, never a header), as for `fhirSmartContracts.read`. Only SMART access
tokens are taken here: a person reads over RPC.

- `GET metadata` (CapabilityStatement), `GET .well-known/smart-configuration` (SMART App Launch 2.0
  section 2.0.10, the discovery document of a backend service);
- `POST auth/token`: `application/x-www-form-urlencoded` per SMART Backend Services (client_credentials,
  jwt-bearer client assertion); answers OAuth 2.0 JSON, errors per RFC 6749 section 5.2
  (`invalid_request`, `invalid_client` 401, `invalid_scope`, `unsupported_grant_type`);
- `GET {type}/{id}` and `GET Claim|Coverage?_count=N[&_cursor=C]` (a searchset Bundle ordered by
  claim id, `link next` while more remain), with `Authorization: Bearer`; errors are
  OperationOutcome (FHIR R4 http.html: 400/401/403/404; 429 when the caller is over its budget).

Every request is charged to the caller's rate-limit budget like an RPC call.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlencode

import orjson
from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from api.core.errors import (
    DomainError,
    Forbidden,
    InvalidInput,
    NotFound,
    PreconditionFailed,
    RateLimited,
    Unauthenticated,
)
from api.core.services import AuditRecord
from api.infra.db.base import utcnow
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.services.container import Services
from api.integrations.fhir_smart_contracts import fhir, scopes, service
from api.rpc.http import over_budget

log = logging.getLogger("api.integrations.fhir")
FHIR_JSON = "application/fhir+json"
MAX_TOKEN_BODY_BYTES = 16 * 1024
DEFAULT_COUNT = 50
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

_OUTCOME: dict[type[DomainError], tuple[int, str]] = {
    InvalidInput: (400, "invalid"),
    Unauthenticated: (401, "login"),
    Forbidden: (403, "forbidden"),
    NotFound: (404, "not-found"),
    PreconditionFailed: (412, "processing"),
    RateLimited: (429, "throttled"),
}


def _fhir(payload: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(payload), status_code=status, media_type=FHIR_JSON, headers=headers)


def _outcome(exc: DomainError) -> Response:
    status, code = next(((s, c) for kind, (s, c) in _OUTCOME.items() if isinstance(exc, kind)), (500, "exception"))
    headers: dict[str, str] = {}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="fhir"'
    if isinstance(exc, RateLimited) and exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    return _fhir(fhir.operation_outcome(code, exc.message), status, headers)


def _oauth_error(status: int, error: str, description: str) -> Response:
    return Response(
        orjson.dumps({"error": error, "error_description": description}),
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store", "Pragma": "no-cache"},
    )


def _internal(where: str, exc: Exception) -> Response:
    ref = uuid.uuid4().hex[:12]
    # Only the type: messages can carry PHI.
    log.error("fhir rest %s failed: %s (ref %s)", where, type(exc).__name__, ref)
    return _fhir(fhir.operation_outcome("exception", f"Internal error (reference {ref})"), 500)


def _as_smart_client(services: Services, request: Request, work: Callable[[Any, frozenset[str]], Response]) -> Response:
    """Run `work(db, granted scopes)` for the bearer's SMART client, in its tenant scope, read only."""
    throttled = over_budget(services, request, 1)
    if throttled is not None:
        return _outcome(throttled)
    db = services.database.session(write=False)
    try:
        principal = services.resolve_principal(db, request.headers.get("authorization"))
        if principal.smart is None:
            raise Forbidden("The FHIR REST API takes SMART backend access tokens; people read over the RPC API")
        tenant = services.resolve_tenant(db, principal, None, "read")
        set_scope(db, TenantScope(tenant.organization_id, tenant.client_id))
        return work(db, principal.smart.scopes)
    except DomainError as exc:
        return _outcome(exc)
    except Exception as exc:  # noqa: BLE001 - answered as an OperationOutcome, never a stack trace
        return _internal(request.url.path, exc)
    finally:
        db.rollback()
        db.close()


def _after(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 18:
        raise InvalidInput("_cursor is not a cursor this server gave (follow the Bundle's next link)")
    return int(cursor)


def _count(value: str | None) -> int:
    if value is None:
        return DEFAULT_COUNT
    if not value.isdigit() or len(value) > 4:
        raise InvalidInput(f"_count must be a whole number between 1 and {service.MAX_SEARCH_COUNT}")
    return int(value)


def _search_answer(base: str, resource_type: str, request: Request, db: Any, granted: frozenset[str]) -> Response:
    unknown = sorted(set(request.query_params) - {"_count", "_cursor"})
    if unknown:
        raise InvalidInput(f"Unsupported search parameter {unknown[0][:40]!r}; this server takes _count and _cursor")
    count = _count(request.query_params.get("_count"))
    after = _after(request.query_params.get("_cursor"))
    found, next_after = service.search(db, resource_type, after_id=after, count=count, granted=granted)
    page_url = f"{base}/{resource_type}?"
    self_url = page_url + urlencode({"_count": count, **({"_cursor": after} if after else {})})
    next_url = None if next_after is None else page_url + urlencode({"_count": count, "_cursor": next_after})
    return _fhir(fhir.searchset(base, found, self_url, next_url))


async def _form(request: Request) -> dict[str, str] | Response:
    """The token request's form fields (each once), or the OAuth error answering it."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return _oauth_error(400, "invalid_request", "Send the token request as application/x-www-form-urlencoded")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_TOKEN_BODY_BYTES:
            return _oauth_error(400, "invalid_request", f"The token request exceeds {MAX_TOKEN_BODY_BYTES} bytes")
    try:
        fields = parse_qs(body.decode("ascii"), keep_blank_values=True, strict_parsing=False, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        return _oauth_error(400, "invalid_request", "The token request is not a valid form body")
    repeated = sorted(k for k, v in fields.items() if len(v) > 1)
    if repeated:
        return _oauth_error(400, "invalid_request", f"Parameter {repeated[0][:40]!r} is repeated")
    return {k: v[0] for k, v in fields.items()}


def _token_problem(form: dict[str, str]) -> Response | None:
    if form.get("grant_type") != "client_credentials":
        return _oauth_error(400, "unsupported_grant_type", "grant_type must be client_credentials")
    if form.get("client_assertion_type") != JWT_BEARER:
        return _oauth_error(400, "invalid_request", f"client_assertion_type must be {JWT_BEARER}")
    if not form.get("client_assertion"):
        return _oauth_error(400, "invalid_request", "client_assertion is missing")
    if not form.get("scope", "").strip():
        return _oauth_error(400, "invalid_scope", "scope is missing (e.g. system/Claim.rs)")
    return None


def _exchange(services: Services, form: dict[str, str]) -> Response:
    """`service.exchange` in its own transaction, audited like `fhirSmartContracts.token`."""
    settings = services.settings
    db = services.database.session(write=True)
    try:
        row, issued, granted = service.exchange(
            db,
            form["client_assertion"],
            form["scope"],
            audience=service.rest_token_endpoint(settings.public_base_url),
            now=utcnow(),
            lifetime_seconds=settings.smart_access_token_seconds,
        )
        set_scope(db, None)
        services.audit(
            db,
            AuditRecord(
                organization_id=row.organization_id,
                client_id=None,
                actor_user_id=None,
                actor_kind="anonymous",
                procedure="fhirSmartContracts.token",
                input_value={"scope": form["scope"], "via": service.REST_TOKEN_PATH},
                target_type="smart_client",
                target_id=str(row.id),
                before=None,
                after={"scopes": granted},
            ),
        )
        db.commit()
    except Unauthenticated as exc:
        db.rollback()
        return _oauth_error(401, "invalid_client", exc.message)
    except (Forbidden, InvalidInput) as exc:
        db.rollback()
        return _oauth_error(400, "invalid_scope", exc.message)
    except PreconditionFailed as exc:
        db.rollback()
        return _oauth_error(400, "invalid_client", exc.message)
    except Exception as exc:  # noqa: BLE001 - an OAuth error, never a stack trace
        db.rollback()
        ref = uuid.uuid4().hex[:12]
        log.error("fhir rest token failed: %s (ref %s)", type(exc).__name__, ref)
        return _oauth_error(500, "server_error", f"Internal error (reference {ref})")
    finally:
        db.close()
    body = {
        "access_token": issued,
        "token_type": "bearer",
        "expires_in": settings.smart_access_token_seconds,
        "scope": " ".join(granted),
    }
    return Response(
        orjson.dumps(body), media_type="application/json", headers={"Cache-Control": "no-store", "Pragma": "no-cache"}
    )


def install(app: FastAPI, services: Services) -> None:
    """Mount the FHIR R4 REST facade under `{base}/fhir/r4`."""
    prefix = service.REST_BASE_PATH
    public = services.settings.public_base_url
    base = service.rest_base(public)
    token_url = service.rest_token_endpoint(public)

    @app.get(f"{prefix}/metadata", include_in_schema=False)
    def metadata() -> Response:
        return _fhir(fhir.capability(token_url, base))

    @app.get(f"{prefix}/.well-known/smart-configuration", include_in_schema=False)
    def smart_configuration() -> Response:
        return Response(orjson.dumps(fhir.smart_configuration(token_url)), media_type="application/json")

    @app.post(f"{prefix}/auth/token", include_in_schema=False)
    async def token(request: Request) -> Response:
        throttled = over_budget(services, request, 1)
        if throttled is not None:
            return _oauth_error(429, "slow_down", throttled.message)
        form = await _form(request)
        if isinstance(form, Response):
            return form
        problem = _token_problem(form)
        if problem is not None:
            return problem
        return await run_in_threadpool(_exchange, services, form)

    @app.get(f"{prefix}/{{resource_type}}/{{resource_id}}", include_in_schema=False)
    def read(resource_type: str, resource_id: str, request: Request) -> Response:
        if resource_type not in scopes.RESOURCES:
            return _outcome(NotFound(f"Resource type {resource_type[:40]!r} is not served here"))
        return _as_smart_client(
            services, request, lambda db, granted: _fhir(service.read(db, resource_type, resource_id, granted))
        )

    @app.get(f"{prefix}/{{resource_type}}", include_in_schema=False)
    def search(resource_type: str, request: Request) -> Response:
        if resource_type not in scopes.RESOURCES:
            return _outcome(NotFound(f"Resource type {resource_type[:40]!r} is not served here"))
        return _as_smart_client(
            services, request, lambda db, granted: _search_answer(base, resource_type, request, db, granted)
        )
