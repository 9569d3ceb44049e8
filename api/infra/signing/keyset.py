"""The signing key set as data: generate, validate, rotate, publish. No file I/O here.

A key set is `{"keys": [entry, ...]}`; each entry is a private JWK plus
`kid` (RFC 7638 thumbprint), `alg` (ES384 or RS384), `use: "sig"`,
`created_at`, optional `sign_from` and optional `retire_at` (ISO 8601 UTC).

A key is published from the moment it is in the set until its `retire_at`
passes. It signs only from `sign_from` (default: `created_at`): a rotation
publishes the next key ahead of its first signature, so a relying party that
cached the JWK Set refetches it and finds the new kid before it meets a token
signed with it; the previous key keeps signing until then and stays published
for the retirement window after, so tokens it signed keep verifying.
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
    for field in ("created_at", "sign_from", "retire_at"):
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


class RotationPending(KeySetError):
    """A rotation is already under way: its next keys are published but do not sign yet."""

    def __init__(self, signs_from: datetime) -> None:
        super().__init__(f"the next keys are published and start signing at {_iso(signs_from)}")
        self.signs_from = signs_from


def signs_from(entry: dict[str, Any]) -> datetime:
    """When the key starts signing (its `sign_from`, else its creation)."""
    return parse_time(entry.get("sign_from") or entry["created_at"])


def pending(entries: list[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    """Keys published ahead of their first signature (the next keys of a rotation under way)."""
    return [e for e in entries if is_published(e, now) and signs_from(e) > now]


def rotate(
    entries: list[dict[str, Any]],
    now: datetime,
    retire_after: timedelta,
    new_keys: list[dict[str, Any]],
    *,
    publish_ahead: timedelta = timedelta(0),
    emergency: bool = False,
) -> list[dict[str, Any]]:
    """The key set after a rotation. Keys already past their retire_at are pruned.

    Planned (the default): `new_keys` sign from `now + publish_ahead`; the current keys keep
    signing until then and retire `retire_after` later. Refused with RotationPending while an
    earlier rotation's next keys are not signing yet (rotating again would retire keys that
    never signed). Emergency (a compromised key): `new_keys` sign at once and every other key
    stops being published now, pending ones included.
    """
    waiting = pending(entries, now)
    if waiting and not emergency:
        raise RotationPending(min(signs_from(e) for e in waiting))
    start = now if emergency else now + publish_ahead
    kept: list[dict[str, Any]] = []
    for entry in entries:
        if not is_published(entry, now):
            continue
        copy = dict(entry)
        if emergency:
            copy["retire_at"] = _iso(now)
        elif copy.get("retire_at") is None:
            copy["retire_at"] = _iso(start + retire_after)
        kept.append(copy)
    fresh = [dict(k, sign_from=_iso(start)) for k in new_keys]
    return kept + fresh


def signing_entry(entries: list[dict[str, Any]], alg: str, now: datetime) -> dict[str, Any]:
    """The key that signs new `alg` tokens at `now`: the published one that started signing last."""
    active = [e for e in entries if e.get("alg") == alg and is_published(e, now) and signs_from(e) <= now]
    if not active:
        raise KeySetError(f"no published {alg} key to sign with")
    return max(active, key=lambda e: (signs_from(e), parse_time(e["created_at"])))


def import_private(entry: dict[str, Any]) -> Key:
    """The joserfc key object for an entry (carries kid and alg)."""
    return JWKRegistry.import_key(_jwk_only(entry))


def _jwk_only(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ("created_at", "sign_from", "retire_at")}


def parse_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("time without a zone")
    return parsed.astimezone(UTC)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="seconds")
