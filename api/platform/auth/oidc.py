"""Verifying bearer tokens from an external OpenID Connect provider.

The provider's JWKS is fetched from `OIDC_JWKS_URL` (or discovered from the
issuer's `/.well-known/openid-configuration`), cached, and refetched when a
token names a key id we have not seen (the provider rotated its keys) -- but
never more than once per `min_refetch_seconds`, failed fetches included: a kid
still unknown after that is answered from the cache, so unauthenticated callers
cannot make the server fetch on their behalf.
"""

from __future__ import annotations

import threading
import time

import httpx
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jws import extract_compact
from joserfc.jwt import JWTClaimsRegistry

from api.core.errors import Unauthenticated
from api.core.identity import VerifiedIdentity

ALLOWED_ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384"]


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
        min_refetch_seconds: int = 60,
    ):
        self.issuer = issuer.rstrip("/")
        self.audience = audience
        self._jwks_url = jwks_url
        self.email_claim = email_claim
        self.leeway = leeway
        self.cache_seconds = cache_seconds
        self.min_refetch_seconds = min_refetch_seconds
        self._keys: KeySet | None = None
        self._fetched_at = 0.0
        self._attempted_at: float | None = None  # the last fetch, successful or not
        self._lock = threading.Lock()

    def _jwks_endpoint(self) -> str:
        if self._jwks_url:
            return self._jwks_url
        doc = httpx.get(f"{self.issuer}/.well-known/openid-configuration", timeout=5).json()
        self._jwks_url = doc["jwks_uri"]
        return self._jwks_url

    def _key_set(self, *, refresh: bool = False) -> KeySet:
        with self._lock:
            now = time.monotonic()
            stale = now - self._fetched_at > self.cache_seconds
            recently = self._attempted_at is not None and now - self._attempted_at < self.min_refetch_seconds
            if (self._keys is None or refresh or stale) and not recently:
                self._fetch(now)
            if self._keys is None:
                raise Unauthenticated("The identity provider's signing keys could not be fetched; try again later")
            return self._keys

    def _fetch(self, now: float) -> None:
        self._attempted_at = now
        try:
            response = httpx.get(self._jwks_endpoint(), timeout=5)
            response.raise_for_status()
            self._keys = KeySet.import_key_set(response.json())
            self._fetched_at = now
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            if self._keys is None:
                raise Unauthenticated(
                    "The identity provider's signing keys could not be fetched; try again later",
                ) from exc
            # Keep serving the keys we have; the next refetch waits for the interval.

    @staticmethod
    def _kid(token: str) -> str | None:
        try:
            header = extract_compact(token.encode()).protected
        except (JoseError, ValueError):
            return None
        kid = header.get("kid")
        return kid if isinstance(kid, str) else None

    def verify(self, token: str) -> VerifiedIdentity:
        keys = self._key_set()
        kid = self._kid(token)
        if kid is not None and not _has_kid(keys, kid):
            # An unknown kid usually means the provider rotated: refetch, at most once per interval.
            keys = self._key_set(refresh=True)
        try:
            decoded = jwt.decode(token, keys, algorithms=ALLOWED_ALGORITHMS)
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


def _has_kid(keys: KeySet, kid: str) -> bool:
    return any(k.kid == kid for k in keys.keys)


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
