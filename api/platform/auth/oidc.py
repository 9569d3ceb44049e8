"""Verifying bearer tokens from an external OpenID Connect provider.

The provider's JWKS is fetched from `OIDC_JWKS_URL` (or discovered from the
issuer's `/.well-known/openid-configuration`), cached, and refetched when a
token names a key id we have not seen (the provider rotated its keys).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jwt import JWTClaimsRegistry

from api.core.errors import Unauthenticated

ALLOWED_ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384"]


@dataclass(frozen=True)
class VerifiedIdentity:
    issuer: str
    subject: str
    email: str | None
    claims: dict[str, Any]


class OidcVerifier:
    def __init__(
        self,
        issuer: str,
        audience: str,
        jwks_url: str | None,
        *,
        email_claim: str = "email",
        leeway: int = 30,
        cache_seconds: int = 600,
    ):
        self.issuer = issuer.rstrip("/")
        self.audience = audience
        self._jwks_url = jwks_url
        self.email_claim = email_claim
        self.leeway = leeway
        self.cache_seconds = cache_seconds
        self._keys: KeySet | None = None
        self._fetched_at = 0.0
        self._lock = threading.Lock()

    def _jwks_endpoint(self) -> str:
        if self._jwks_url:
            return self._jwks_url
        doc = httpx.get(f"{self.issuer}/.well-known/openid-configuration", timeout=5).json()
        self._jwks_url = doc["jwks_uri"]
        return self._jwks_url

    def _key_set(self, *, refresh: bool = False) -> KeySet:
        with self._lock:
            stale = time.monotonic() - self._fetched_at > self.cache_seconds
            if self._keys is None or refresh or stale:
                try:
                    response = httpx.get(self._jwks_endpoint(), timeout=5)
                    response.raise_for_status()
                    self._keys = KeySet.import_key_set(response.json())
                    self._fetched_at = time.monotonic()
                except (httpx.HTTPError, ValueError, KeyError) as exc:
                    raise Unauthenticated(
                        "The identity provider's signing keys could not be fetched; try again later",
                    ) from exc
            return self._keys

    def verify(self, token: str) -> VerifiedIdentity:
        keys = self._key_set()
        try:
            try:
                decoded = jwt.decode(token, keys, algorithms=ALLOWED_ALGORITHMS)
            except JoseError as first:
                # An unknown kid usually means the provider rotated: refetch once.
                if "kid" not in str(first).lower() and "key" not in str(first).lower():
                    raise
                decoded = jwt.decode(token, self._key_set(refresh=True), algorithms=ALLOWED_ALGORITHMS)
            registry = JWTClaimsRegistry(
                leeway=self.leeway,
                iss={"essential": True, "value": self.issuer},
                aud={"essential": True, "value": self.audience},
                exp={"essential": True},
                sub={"essential": True},
            )
            registry.validate(decoded.claims)
        except (JoseError, ValueError) as exc:
            raise Unauthenticated(f"The identity token was rejected: {_reason(exc)}") from exc
        claims = decoded.claims
        return VerifiedIdentity(
            issuer=self.issuer, subject=str(claims["sub"]), email=claims.get(self.email_claim), claims=claims
        )


def _reason(exc: Exception) -> str:
    name = type(exc).__name__
    known = {
        "ExpiredTokenError": "it has expired",
        "InvalidClaimError": "a claim (issuer or audience) does not match this platform",
        "MissingClaimError": "a required claim is missing",
        "BadSignatureError": "its signature does not verify",
        "InvalidTokenError": "it is not yet valid",
    }
    return known.get(name, "it is malformed or signed with an unknown key")
