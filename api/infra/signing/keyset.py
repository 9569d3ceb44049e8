"""The signing key set as data: generate, validate, rotate, publish. No file I/O here.

A key set is `{"keys": [entry, ...]}`; each entry is a private JWK plus
`kid` (RFC 7638 thumbprint), `alg` (ES384 or RS384), `use: "sig"`,
`created_at` and optional `retire_at` (ISO 8601 UTC). A key is published
until its `retire_at` passes, so tokens signed just before a rotation keep
verifying for the retirement window.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from joserfc.jwk import ECKey, JWKRegistry, Key, RSAKey

ALGORITHMS: dict[str, tuple[str, str | None]] = {"ES384": ("EC", "P-384"), "RS384": ("RSA", None)}
RSA_BITS = 3072
# Only these members ever leave the server; the private ones (d, p, q, dp, dq, qi, k) never do.
PUBLIC_MEMBERS: tuple[str, ...] = ("kty", "crv", "x", "y", "n", "e", "kid", "alg", "use")
PRIVATE_MEMBERS: frozenset[str] = frozenset({"d", "p", "q", "dp", "dq", "qi", "k", "oth"})


class KeySetError(ValueError):
    """The key set is malformed; the message says which entry and what is wrong (never key material)."""


def generate_key(alg: str, now: datetime) -> dict[str, Any]:
    """A new private key entry for `alg` (ES384 on P-384, RS384 on RSA 3072)."""
    key: ECKey | RSAKey
    if alg == "ES384":
        key = ECKey.generate_key("P-384", private=True)
    elif alg == "RS384":
        key = RSAKey.generate_key(RSA_BITS, private=True)
    else:
        raise KeySetError(f"unsupported signing algorithm {alg!r} (use ES384 or RS384)")
    entry = dict(key.as_dict(private=True))
    entry.update(kid=key.thumbprint(), alg=alg, use="sig", created_at=_iso(now))
    return entry


def generate_pair(now: datetime) -> list[dict[str, Any]]:
    """One ES384 and one RS384 key, both created at `now`."""
    return [generate_key("ES384", now), generate_key("RS384", now)]


def validate(document: Any) -> list[dict[str, Any]]:
    """Check a parsed key set file and return its entries; raise KeySetError naming the bad entry."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise KeySetError('the key set must be a JSON object {"keys": [...]}')
    entries: list[dict[str, Any]] = document["keys"]
    if not entries:
        raise KeySetError("the key set holds no keys")
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"keys[{i}]"
        if not isinstance(entry, dict):
            raise KeySetError(f"{where} is not an object")
        alg = _check_algorithm(entry, where)
        kid = _check_kid(entry, where, seen)
        seen.add(kid)
        if "d" not in entry:
            raise KeySetError(f"{where}: the private key is missing (a signing key set holds private keys)")
        _check_times(entry, where)
        _check_importable(entry, where, alg)
    return entries


def _check_algorithm(entry: dict[str, Any], where: str) -> str:
    """The entry's alg, with its key type, curve and use consistent with it."""
    alg = entry.get("alg")
    if alg not in ALGORITHMS:
        raise KeySetError(f"{where}: alg must be ES384 or RS384")
    kty, crv = ALGORITHMS[alg]
    if entry.get("kty") != kty or (crv and entry.get("crv") != crv):
        raise KeySetError(f"{where}: {alg} needs kty {kty}" + (f" on curve {crv}" if crv else ""))
    if entry.get("use") != "sig":
        raise KeySetError(f"{where}: use must be 'sig'")
    return str(alg)


def _check_kid(entry: dict[str, Any], where: str, seen: set[str]) -> str:
    kid = entry.get("kid")
    if not isinstance(kid, str) or not kid:
        raise KeySetError(f"{where}: kid is missing")
    if kid in seen:
        raise KeySetError(f"{where}: kid {kid} appears twice")
    return kid


def _check_times(entry: dict[str, Any], where: str) -> None:
    for field in ("created_at", "retire_at"):
        if entry.get(field) is not None:
            try:
                parse_time(entry[field])
            except (TypeError, ValueError):
                raise KeySetError(f"{where}: {field} is not an ISO 8601 time") from None
    if entry.get("created_at") is None:
        raise KeySetError(f"{where}: created_at is missing")


def _check_importable(entry: dict[str, Any], where: str, alg: str) -> None:
    try:
        JWKRegistry.import_key(_jwk_only(entry))
    except Exception as exc:  # noqa: BLE001 - any import failure means a broken key
        raise KeySetError(f"{where}: not a valid {alg} key ({type(exc).__name__})") from None


def is_published(entry: dict[str, Any], now: datetime) -> bool:
    retire_at = entry.get("retire_at")
    return retire_at is None or parse_time(retire_at) > now


def public_jwks(entries: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
    """The JWK Set to publish: unretired keys, public members only."""
    return {
        "keys": [{m: entry[m] for m in PUBLIC_MEMBERS if m in entry} for entry in entries if is_published(entry, now)]
    }


def rotate(
    entries: list[dict[str, Any]], now: datetime, retire_after: timedelta, new_keys: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The key set after a rotation: active keys get `retire_at = now + retire_after`,
    keys already past their retire_at are pruned, `new_keys` are added."""
    kept: list[dict[str, Any]] = []
    for entry in entries:
        if not is_published(entry, now):
            continue
        copy = dict(entry)
        if copy.get("retire_at") is None:
            copy["retire_at"] = _iso(now + retire_after)
        kept.append(copy)
    return kept + [dict(k) for k in new_keys]


def signing_entry(entries: list[dict[str, Any]], alg: str, now: datetime) -> dict[str, Any]:
    """The newest unretiring key for `alg` (the one that signs new tokens)."""
    active = [e for e in entries if e.get("alg") == alg and e.get("retire_at") is None]
    if not active:
        active = [e for e in entries if e.get("alg") == alg and is_published(e, now)]
    if not active:
        raise KeySetError(f"no published {alg} key to sign with")
    return max(active, key=lambda e: parse_time(e["created_at"]))


def import_private(entry: dict[str, Any]) -> Key:
    """The joserfc key object for an entry (carries kid and alg)."""
    return JWKRegistry.import_key(_jwk_only(entry))


def _jwk_only(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ("created_at", "retire_at")}


def parse_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("time without a zone")
    return parsed.astimezone(UTC)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="seconds")
