"""A SMART client's public keys (pure, no I/O): what a registered JWK must be.

SMART Backend Services clients sign their assertions with RS384 or ES384, so a key is RSA of at least
2048 bits or EC on P-384, with a `kid` (the assertion names it). Only public keys are registered: a
JWK with any private member (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`) or a symmetric key (`k`, kty oct) is
refused before anything is stored.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from joserfc.errors import JoseError
from joserfc.jwk import ECKey, RSAKey

PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")
ALG_KTY = {"RS384": "RSA", "ES384": "EC"}
MIN_RSA_BITS = 2048


def private_members(jwk: Mapping[str, Any]) -> list[str]:
    return [m for m in PRIVATE_MEMBERS if m in jwk]


def _b64_bits(value: str) -> int:
    raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    return int.from_bytes(raw, "big").bit_length()


def key_problem(jwk: Mapping[str, Any]) -> str | None:
    """Why this JWK cannot be registered, or None. Names members, never their values."""
    found = private_members(jwk)
    if found:
        return f"has private member(s) {', '.join(found)}: register the public key only"
    kty, alg = jwk.get("kty"), jwk.get("alg")
    if alg is not None and ALG_KTY.get(alg) != kty:
        return f"alg must be RS384 (kty RSA) or ES384 (kty EC, P-384); got alg {alg!s:.10} for kty {kty!s:.10}"
    if jwk.get("use", "sig") != "sig":
        return "use must be 'sig'"
    try:
        if kty == "RSA":
            if _b64_bits(str(jwk.get("n", ""))) < MIN_RSA_BITS:
                return f"an RSA key must have at least {MIN_RSA_BITS} bits"
            RSAKey.import_key(dict(jwk))
        elif kty == "EC":
            if jwk.get("crv") != "P-384":
                return "an EC key must be on curve P-384 (ES384)"
            ECKey.import_key(dict(jwk))
        else:
            return "kty must be RSA (RS384) or EC (ES384)"
    except (JoseError, ValueError, TypeError, binascii.Error):
        return "does not parse as a public key of its kty"
    return None


def kid_problem(keys: Sequence[Mapping[str, Any]]) -> str | None:
    kids = [k.get("kid") for k in keys]
    if len(set(kids)) != len(kids):
        return "every key needs its own kid (kids repeat)"
    return None


def kids(jwks: Mapping[str, Any] | None) -> list[str]:
    return [str(k.get("kid")) for k in (jwks or {}).get("keys", [])]
