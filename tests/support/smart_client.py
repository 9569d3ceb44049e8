"""A SMART Backend Services client for tests: fresh keys, signed client assertions (joserfc)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey


def rsa_key(kid: str | None = None, bits: int = 2048) -> RSAKey:
    return RSAKey.generate_key(bits, parameters={"kid": kid or f"rsa-{uuid.uuid4().hex[:8]}"})


def ec_key(kid: str | None = None) -> ECKey:
    return ECKey.generate_key("P-384", parameters={"kid": kid or f"ec-{uuid.uuid4().hex[:8]}"})


def public_jwk(key: RSAKey | ECKey) -> dict[str, Any]:
    return key.as_dict(private=False)


def sign(key: Any, claims: dict[str, Any], *, alg: str | None = None, header: dict[str, Any] | None = None) -> str:
    alg = alg or ("RS384" if isinstance(key, RSAKey) else "ES384")
    protected = {k: v for k, v in {"alg": alg, "kid": key.kid, "typ": "JWT", **(header or {})}.items() if v is not None}
    return jwt.encode(protected, claims, key, algorithms=[alg])


@dataclass
class SmartTestClient:
    """One registered client: its client_id, the token endpoint (the aud) and its private key."""

    client_id: str
    audience: str
    key: Any = field(default_factory=rsa_key)

    def claims(self, **overrides: Any) -> dict[str, Any]:
        base = {
            "iss": self.client_id,
            "sub": self.client_id,
            "aud": self.audience,
            "exp": int(time.time()) + 240,
            "jti": uuid.uuid4().hex,
        }
        return {**base, **overrides}

    def assertion(self, key: Any = None, **overrides: Any) -> str:
        return sign(key or self.key, self.claims(**overrides))

    def token_request(self, assertion: str, scope: str = "system/Claim.rs") -> dict[str, Any]:
        return {
            "grant_type": "client_credentials",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": assertion,
            "scope": scope,
        }
