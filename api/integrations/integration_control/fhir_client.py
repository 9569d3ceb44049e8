"""An outbound FHIR R4 client for `ehr` integrations: SMART Backend Services token, then Coverage and
Claim pulled by search with paging, each resource validated (fhir.resources R4B).

Sources: SMART App Launch 2.0 "Backend Services" (client_credentials; `client_assertion` a JWT signed
RS384 or ES384 with iss = sub = client_id, aud = the token URL, exp <= 5 minutes ahead, a unique
jti); FHIR R4 http.html (search, `_count`, Bundle `link` `next`, application/fhir+json) and
bundle.html (searchset).

httpx (synchronous, already a dependency) rather than a FHIR client library: fhirpy is asyncio-only
and would validate nothing the R4B models do not; what matters here are caps that no client library
sets for us (bytes per response, resources per run, timeouts, https only, no redirects, `next`
links kept on the configured base so a hostile server cannot send the bearer token elsewhere).

Failures are domain errors: `FhirPullRefused` (PreconditionFailed: the EHR said no, or answered
something this client will not take) and `FhirUnreachable` (Unavailable: network, TLS, timeouts).
Their messages name the step and the HTTP status or OAuth error code, never a token, a key or a
resource's content.
"""

from __future__ import annotations

import ssl
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from fhir.resources.R4B.claim import Claim
from fhir.resources.R4B.coverage import Coverage
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey
from pydantic import BaseModel, ValidationError

from api.core.errors import InvalidInput, PreconditionFailed, Unavailable
from api.integrations.integration_control.schemas import EhrConfig

JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: Pulled in this order: a claim's Coverage first, so a run cut short has the coverage of its claims.
RESOURCE_TYPES: tuple[str, ...] = ("Coverage", "Claim")
_MODELS: dict[str, type[BaseModel]] = {"Coverage": Coverage, "Claim": Claim}
_FHIR_TYPES = ("application/fhir+json", "application/json")
# SMART Backend Services: the assertion lives at most five minutes; four leaves room for clock skew.
_ASSERTION_SECONDS = 240


class FhirPullRefused(PreconditionFailed):
    """The EHR refused the client (token, scope, read) or answered what this client does not take."""


class FhirUnreachable(Unavailable):
    """The EHR could not be reached: connection, TLS verification, timeout."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps of one pull."""

    max_resources: int = 5_000
    """Resources per run, all types together; a run that reaches it stops and says where."""
    max_response_bytes: int = 8 * 1024 * 1024
    """Bytes of one HTTP answer (token or page), counted while reading."""
    page_size: int = 50
    timeout_seconds: float = 30.0

    def __post_init__(self) -> None:
        if not 1 <= self.page_size <= self.max_resources:
            raise InvalidInput("page_size must be at least 1 and at most max_resources (a page is taken whole)")
        if self.max_response_bytes < 1 or self.timeout_seconds <= 0:
            raise InvalidInput("max_response_bytes and timeout_seconds must be positive")


@dataclass(frozen=True, slots=True)
class PullResult:
    """What one pull brought back."""

    resources: dict[str, list[dict[str, Any]]]
    """Resource type -> the resources (FHIR JSON, each validated), in the server's order."""
    resume: dict[str, str]
    """Resource type -> the next page URL where the run stopped (a cap reached); pass it as
    `since_cursor` to go on. A type read to its end has no entry."""
    granted_scopes: tuple[str, ...] = field(default=())

    @property
    def complete(self) -> bool:
        """Every type read to its end."""
        return not self.resume


@dataclass(frozen=True, slots=True)
class SigningKey:
    """The client's private key as joserfc wants it, and the JWS alg SMART allows for it."""

    key: RSAKey | ECKey
    alg: str
    kid: str


def signing_key(private_key_pem: str, key_id: str | None = None) -> SigningKey:
    """The PEM private key as a SMART signing key: RSA (>= 2048 bits) signs RS384, EC P-384 signs ES384
    (the only two algorithms SMART Backend Services names). The kid is `key_id`, else the key's
    RFC 7638 thumbprint (register the public JWK under the same kid)."""
    try:
        loaded = load_pem_private_key(private_key_pem.encode(), password=None)
    except (ValueError, TypeError):
        raise InvalidInput("The EHR private key is not an unencrypted PEM private key") from None
    key: RSAKey | ECKey
    if isinstance(loaded, rsa.RSAPrivateKey):
        if loaded.key_size < 2048:
            raise InvalidInput("The EHR private key is RSA below 2048 bits")
        key, alg = RSAKey.import_key(private_key_pem), "RS384"
    elif isinstance(loaded, ec.EllipticCurvePrivateKey) and loaded.curve.name == "secp384r1":
        key, alg = ECKey.import_key(private_key_pem), "ES384"
    else:
        raise InvalidInput("The EHR private key must be RSA (RS384) or EC P-384 (ES384) for SMART Backend Services")
    return SigningKey(key, alg, key_id or key.thumbprint())


def client_assertion(config: EhrConfig, key: SigningKey, *, now: int | None = None) -> str:
    """The signed JWT that authenticates the client at `config.token_url`."""
    issued = int(time.time()) if now is None else now
    claims = {
        "iss": config.client_id,
        "sub": config.client_id,
        "aud": str(config.token_url),
        "exp": issued + _ASSERTION_SECONDS,
        "iat": issued,
        "jti": uuid.uuid4().hex,
    }
    header = {"alg": key.alg, "kid": key.kid, "typ": "JWT"}
    return jwt.encode(header, claims, key.key, algorithms=[key.alg])


def _ssl_context(ca_bundle: Path | None) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if ca_bundle is not None:
        try:
            context.load_verify_locations(cafile=str(ca_bundle))
        except (OSError, ssl.SSLError):
            raise InvalidInput("The FHIR CA bundle cannot be read as PEM certificates") from None
    return context


def _read_capped(response: httpx.Response, limit: int, step: str) -> bytes:
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise FhirPullRefused(f"{step}: the answer declares {declared} bytes; at most {limit} are read")
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise FhirPullRefused(f"{step}: the answer exceeds {limit} bytes; reading stopped")
        chunks.append(chunk)
    return b"".join(chunks)


def _json(body: bytes, step: str) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        raise FhirPullRefused(f"{step}: the answer is not JSON") from None


class _Session:
    """One pull's HTTP client: https only, verified, no redirects, every answer capped."""

    def __init__(self, limits: Limits, ca_bundle: Path | None) -> None:
        self.limits = limits
        self.http = httpx.Client(
            verify=_ssl_context(ca_bundle),
            timeout=httpx.Timeout(limits.timeout_seconds),
            follow_redirects=False,
            trust_env=False,
        )

    def close(self) -> None:
        self.http.close()

    def send(self, step: str, method: str, url: str, **kwargs: Any) -> tuple[int, str, Any]:
        """(status, content type, parsed JSON or None) of one request."""
        if urlsplit(url).scheme != "https":
            raise FhirPullRefused(f"{step}: only https URLs are followed")
        try:
            with self.http.stream(method, url, **kwargs) as response:
                body = _read_capped(response, self.limits.max_response_bytes, step)
        except httpx.TimeoutException:
            raise FhirUnreachable(f"{step}: the EHR did not answer within {self.limits.timeout_seconds:g} s") from None
        except httpx.HTTPError as exc:
            raise FhirUnreachable(f"{step}: the EHR could not be reached ({type(exc).__name__})") from None
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        return response.status_code, content_type, (_json(body, step) if body else None)


def _token(session: _Session, config: EhrConfig, key: SigningKey) -> tuple[str, tuple[str, ...]]:
    step = "token"
    form = {
        "grant_type": "client_credentials",
        "client_assertion_type": JWT_BEARER,
        "client_assertion": client_assertion(config, key),
        "scope": " ".join(config.scopes),
    }
    status, _, answer = session.send(step, "POST", str(config.token_url), data=form)
    if status != 200:
        error = answer.get("error") if isinstance(answer, dict) else None
        said = answer.get("error_description") if isinstance(answer, dict) else None
        detail = f" {error}" if isinstance(error, str) else ""
        reason = f": {said[:300]}" if isinstance(said, str) else ""
        raise FhirPullRefused(f"token: the EHR refused the client (HTTP {status}{detail}){reason}")
    token = answer.get("access_token") if isinstance(answer, dict) else None
    if not isinstance(token, str) or not token:
        raise FhirPullRefused("token: the answer has no access_token")
    scope = answer.get("scope")
    granted = tuple(scope.split()) if isinstance(scope, str) else tuple(config.scopes)
    return token, granted


def _allows(granted: Sequence[str], resource_type: str) -> bool:
    """Whether a granted SMART system scope lets the client search `resource_type` (v2 `.rs`/`.s`,
    v1 `.read`, or `*`)."""
    for scope in granted:
        target, _, perms = scope.removeprefix("system/").partition(".")
        if not scope.startswith("system/") or target not in ("*", resource_type):
            continue
        if perms in ("read", "*") or "s" in perms:
            return True
    return False


def _same_base(url: str, base: str) -> bool:
    """`next` stays on the configured server and under its base path (the bearer token goes with it)."""
    a, b = urlsplit(url), urlsplit(base)
    return (a.scheme, a.netloc) == (b.scheme, b.netloc) and (a.path + "/").startswith(b.path.rstrip("/") + "/")


def _valid(entry: Any, index: int, resource_type: str, step: str) -> dict[str, Any] | None:
    """The entry's resource validated as R4 `resource_type`; None for another type (an
    OperationOutcome of search mode outcome, an included resource)."""
    resource = entry.get("resource") if isinstance(entry, dict) else None
    if not isinstance(resource, dict):
        raise FhirPullRefused(f"{step}: entry {index} has no resource")
    if resource.get("resourceType") != resource_type:
        return None
    try:
        parsed = _MODELS[resource_type].model_validate(resource)
    except ValidationError as exc:
        raise FhirPullRefused(
            f"{step}: entry {index} is not a valid R4 {resource_type} ({exc.error_count()} errors)"
        ) from None
    valid: dict[str, Any] = orjson.loads(parsed.model_dump_json())
    return valid


def _next_link(bundle: dict[str, Any]) -> str | None:
    links = [link for link in bundle.get("link") or [] if isinstance(link, dict)]
    following = next((link.get("url") for link in links if link.get("relation") == "next"), None)
    return following if isinstance(following, str) else None


def _entries(bundle: Any, resource_type: str, step: str) -> tuple[list[dict[str, Any]], str | None]:
    if not isinstance(bundle, dict) or bundle.get("resourceType") != "Bundle" or bundle.get("type") != "searchset":
        raise FhirPullRefused(f"{step}: the answer is not a searchset Bundle")
    found = [_valid(entry, index, resource_type, step) for index, entry in enumerate(bundle.get("entry") or [])]
    return [r for r in found if r is not None], _next_link(bundle)


def _refusal(step: str, status: int, answer: Any) -> FhirPullRefused:
    issues = answer.get("issue") if isinstance(answer, dict) else None
    first = issues[0] if isinstance(issues, list) and issues and isinstance(issues[0], dict) else {}
    code = first.get("code")
    said = first.get("diagnostics")
    detail = f" {code}" if isinstance(code, str) else ""
    reason = f": {said[:300]}" if isinstance(said, str) else ""
    return FhirPullRefused(f"{step}: the EHR answered HTTP {status}{detail}{reason}")


def _page(
    session: _Session, url: str, resource_type: str, headers: Mapping[str, str]
) -> tuple[list[dict[str, Any]], str | None]:
    step = f"search {resource_type}"
    status, content_type, answer = session.send(step, "GET", url, headers=dict(headers))
    if status != 200:
        raise _refusal(step, status, answer)
    if content_type not in _FHIR_TYPES:
        raise FhirPullRefused(f"{step}: the answer is {content_type[:60] or 'untyped'}, not FHIR JSON")
    return _entries(answer, resource_type, step)


def _pull_type(
    session: _Session,
    base: str,
    resource_type: str,
    start: str,
    headers: Mapping[str, str],
    budget: int,
) -> tuple[list[dict[str, Any]], str | None]:
    """The type's resources from `start` on, at most `budget`; and the page to go on from (None: done).
    A page is taken whole or not at all, so a resumed run never sees a resource twice."""
    out: list[dict[str, Any]] = []
    url: str | None = start
    while url is not None:
        if not _same_base(url, base):
            raise FhirPullRefused(f"search {resource_type}: a next link leaves the configured FHIR base")
        if len(out) >= budget:
            return out, url
        found, following = _page(session, url, resource_type, headers)
        if len(out) + len(found) > budget:
            return out, url  # this page is read again by the next run
        out.extend(found)
        url = following
    return out, None


def pull(
    config: EhrConfig,
    private_key_pem: str,
    *,
    key_id: str | None = None,
    since_cursor: Mapping[str, str] | None = None,
    limits: Limits = Limits(),
    ca_bundle: Path | None = None,
    resource_types: Sequence[str] = RESOURCE_TYPES,
) -> PullResult:
    """Get a token for `config` with the private key, then page through each resource type by search
    (from `since_cursor`'s URL for a type when given, else its first page), stopping at
    `limits.max_resources`. TLS is verified against the system store plus `ca_bundle` (the caller
    passes `settings.fhir_client_ca_bundle_path`)."""
    unknown = [t for t in resource_types if t not in _MODELS]
    if unknown:
        raise InvalidInput(f"This client pulls {' and '.join(_MODELS)}; not {unknown[0][:40]}")
    base = str(config.fhir_base_url).rstrip("/")
    key = signing_key(private_key_pem, key_id)
    session = _Session(limits, ca_bundle)
    try:
        token, granted = _token(session, config, key)
        missing = [t for t in resource_types if not _allows(granted, t)]
        if missing:
            raise FhirPullRefused(
                f"token: the EHR did not grant a scope to search {missing[0]} (granted: {' '.join(granted)[:300]})"
            )
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/fhir+json"}
        resources: dict[str, list[dict[str, Any]]] = {}
        resume: dict[str, str] = {}
        budget = limits.max_resources
        for resource_type in resource_types:
            start = (since_cursor or {}).get(resource_type) or f"{base}/{resource_type}?_count={limits.page_size}"
            found, stopped = _pull_type(session, base, resource_type, start, headers, budget)
            resources[resource_type] = found
            budget -= len(found)
            if stopped is not None:
                resume[resource_type] = stopped
        return PullResult(resources=resources, resume=resume, granted_scopes=granted)
    finally:
        session.close()
