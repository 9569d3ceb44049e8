"""Integration secrets at rest: AES-256-GCM under a key kept outside the database (pure, no I/O).

A sealed value is `v1.<base64url(nonce || ciphertext+tag)>`; the associated data binds it to its
row (client, integration key, config version), so a ciphertext copied onto another row does not open.
The keyed fingerprint (HMAC-SHA256 under the same key) lets `upsert` tell whether the secrets changed
without decrypting and without a digest someone holding only the database could test guesses against.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Mapping

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

VERSION = "v1"
NONCE_BYTES = 12


class SealError(Exception):
    """The sealed secrets do not open with this key (wrong key, wrong row, or tampered)."""


def _aead_key(key: bytes) -> bytes:
    if len(key) < 16:
        raise ValueError("the integration secrets key must hold at least 16 bytes")
    return hashlib.sha256(b"integration-secrets/aead\x00" + key).digest()


def _canonical(secrets: Mapping[str, str]) -> bytes:
    return json.dumps(dict(secrets), sort_keys=True, separators=(",", ":")).encode()


def seal(key: bytes, secrets: Mapping[str, str], associated: str) -> str:
    """Encrypt `secrets` (name -> value) with a fresh random nonce."""
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(_aead_key(key)).encrypt(nonce, _canonical(secrets), associated.encode())
    return f"{VERSION}.{base64.urlsafe_b64encode(nonce + sealed).decode()}"


def open_sealed(key: bytes, token: str, associated: str) -> dict[str, str]:
    """Decrypt what `seal` produced with the same key and associated data; else SealError."""
    version, _, body = token.partition(".")
    if version != VERSION:
        raise SealError("unknown sealing version")
    try:
        raw = base64.urlsafe_b64decode(body.encode())
        plain = AESGCM(_aead_key(key)).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], associated.encode())
    except (InvalidTag, ValueError) as exc:
        raise SealError("the integration secrets do not open with this key") from exc
    value = json.loads(plain)
    return {str(k): str(v) for k, v in value.items()}


def fingerprint(key: bytes, secrets: Mapping[str, str]) -> str:
    """HMAC-SHA256 (hex) of the secrets under a key derived from the sealing key."""
    mac_key = hashlib.sha256(b"integration-secrets/mac\x00" + key).digest()
    return hmac.new(mac_key, _canonical(secrets), hashlib.sha256).hexdigest()
