"""Verifying a SMART Backend Services client assertion (`private_key_jwt`), pure: no I/O, the clock given.

The rules (SMART App Launch 2.x, Backend Services, "authenticating to the token endpoint"):
- the JWS header's alg is RS384 or ES384 (`none`, HS* and every other alg are refused before any key
  is looked at) and its `kid` names one of the client's registered keys of the matching type;
- the signature verifies with that key;
- `iss` and `sub` are both the client_id; `aud` is this platform's token endpoint URL;
- `exp` is present, in the future and at most five minutes ahead; `nbf`, when present, is not ahead;
- `jti` is present (its single use is checked by the service against the ids already seen).

A refusal is `Unauthenticated` saying which rule failed; it never repeats the assertion.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from joserfc import jwt
from joserfc.errors import BadSignatureError, JoseError
from joserfc.jwk import ECKey, RSAKey
from joserfc.jws import extract_compact

from api.core.errors import Unauthenticated
from api.integrations.fhir_smart_contracts.jwks import ALG_KTY

MAX_LIFETIME_SECONDS = 300
MAX_JTI_LENGTH = 255
MAX_ASSERTION_LENGTH = 8192


@dataclass(frozen=True)
class VerifiedAssertion:
    jti: str
    expires_at: datetime


def _refuse(reason: str) -> Unauthenticated:
    return Unauthenticated(f"client_assertion refused: {reason}")


def _header(token: str) -> dict[str, Any]:
    if len(token) > MAX_ASSERTION_LENGTH:
        raise _refuse(f"longer than {MAX_ASSERTION_LENGTH} characters")
    try:
        return dict(extract_compact(token.encode("ascii")).protected)
    except (JoseError, ValueError, TypeError, UnicodeError):
        raise _refuse("not a compact JWS (header.payload.signature)") from None


def _key_for(header: Mapping[str, Any], keys: Sequence[Mapping[str, Any]]) -> tuple[str, Any]:
    alg = header.get("alg")
    if alg not in ALG_KTY:
        raise _refuse("alg must be RS384 or ES384 (none, HS* and others are not accepted)")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise _refuse("the header has no kid; name the registered key that signed it")
    match = next((k for k in keys if k.get("kid") == kid), None)
    if match is None:
        raise _refuse("unknown key: no registered key has this kid")
    if match.get("kty") != ALG_KTY[alg]:
        raise _refuse(f"the key with this kid is not a {ALG_KTY[alg]} key, as {alg} needs")
    key_class = RSAKey if match["kty"] == "RSA" else ECKey
    return alg, key_class.import_key(dict(match))


def _check_expiry(claims: Mapping[str, Any], now: int) -> int:
    exp = claims.get("exp")
    if not isinstance(exp, int) or isinstance(exp, bool):
        raise _refuse("exp is missing (seconds since the epoch)")
    if exp <= now:
        raise _refuse("the assertion has expired")
    if exp > now + MAX_LIFETIME_SECONDS:
        raise _refuse("exp is more than 5 minutes ahead")
    nbf = claims.get("nbf")
    if nbf is not None and (not isinstance(nbf, int) or nbf > now):
        raise _refuse("nbf is in the future")
    return exp


def _check_claims(claims: Mapping[str, Any], client_id: str, audience: str, now: int) -> VerifiedAssertion:
    if claims.get("iss") != client_id or claims.get("sub") != client_id:
        raise _refuse("iss and sub must both be the client_id")
    aud = claims.get("aud")
    if not (aud == audience or (isinstance(aud, list) and audience in aud)):
        raise _refuse(f"wrong aud: it must be the token endpoint URL {audience}")
    exp = _check_expiry(claims, now)
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti or len(jti) > MAX_JTI_LENGTH:
        raise _refuse(f"jti is missing (a unique id of at most {MAX_JTI_LENGTH} characters)")
    return VerifiedAssertion(jti=jti, expires_at=datetime.fromtimestamp(exp, UTC))


def verify(
    token: str, *, keys: Sequence[Mapping[str, Any]], client_id: str, audience: str, now: int
) -> VerifiedAssertion:
    """The assertion's jti and expiry when it passes every rule above; `Unauthenticated` otherwise."""
    alg, key = _key_for(_header(token), keys)
    try:
        decoded = jwt.decode(token, key, algorithms=[alg])
    except BadSignatureError:
        raise _refuse("bad signature: it does not verify with the registered key of this kid") from None
    except (JoseError, ValueError, TypeError):
        raise _refuse("the payload is not a JSON claims set") from None
    return _check_claims(decoded.claims, client_id, audience, now)


def claimed_client_id(token: str) -> str:
    """The assertion's `iss`, read without verifying anything: only to find whose keys verify it."""
    _header(token)
    try:
        payload = json.loads(extract_compact(token.encode("ascii")).payload)
    except (JoseError, ValueError, TypeError, UnicodeError):
        raise _refuse("the payload is not a JSON claims set") from None
    iss = payload.get("iss") if isinstance(payload, dict) else None
    if not isinstance(iss, str) or not iss:
        raise _refuse("iss is missing; it must be the client_id")
    return iss
