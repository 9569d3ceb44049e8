"""`SigningKeys`: the platform's SMART key set, published as JWKS and used to sign assertions."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from api.infra.db.base import utcnow
from api.infra.signing import keyset, store

if TYPE_CHECKING:  # types only: api.core.services refers to SigningKeys
    from api.core.settings import Settings


class SigningKeysUnavailable(RuntimeError):
    """The configured key set cannot be used; the message is safe to show (a path, never key material)."""


@dataclass(frozen=True)
class PublishedKeys:
    jwks: dict[str, Any]
    body: bytes  # the serialised JWKS, served as is
    etag: str


class SigningKeys:
    """The key set at `path`. With `generate_if_missing` (the embedded default) a missing
    file is created with a fresh ES384 + RS384 pair; an explicitly configured file never is."""

    def __init__(
        self, path: Path, *, generate_if_missing: bool, retire_after: timedelta, clock: Callable[[], datetime] = utcnow
    ) -> None:
        self.path = Path(path)
        self.generate_if_missing = generate_if_missing
        self.retire_after = retire_after
        self.clock = clock
        self._lock = threading.Lock()
        self._cache: tuple[tuple[int, int, int], list[dict[str, Any]]] | None = None

    @classmethod
    def from_settings(cls, settings: Settings, clock: Callable[[], datetime] = utcnow) -> SigningKeys:
        explicit = settings.smart_keys_path
        path = Path(explicit) if explicit is not None else settings.default_smart_keys_path
        return cls(
            path,
            generate_if_missing=explicit is None,
            retire_after=timedelta(days=settings.smart_key_retire_after_days),
            clock=clock,
        )

    def ensure(self) -> None:
        """Create the default key set on first start; raise SigningKeysUnavailable when unusable."""
        self._entries()

    def published(self) -> PublishedKeys:
        """The public JWK Set (unretired keys, public members only) and its ETag."""
        jwks = keyset.public_jwks(self._entries(), self.clock())
        body = json.dumps(jwks, separators=(",", ":"), sort_keys=True).encode()
        return PublishedKeys(jwks, body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')

    def rotate(self) -> list[str]:
        """Add a new ES384 + RS384 pair, retire the previous keys after the window, prune
        expired ones, write atomically. Returns the kids published after the rotation."""
        with self._lock, store.exclusive(self.path):
            now = self.clock()
            entries = self._load(allow_generate=True, locked=True)
            updated = keyset.rotate(entries, now, self.retire_after, keyset.generate_pair(now))
            store.write_document(self.path, {"keys": updated})
            self._cache = None
            return [k["kid"] for k in keyset.public_jwks(updated, now)["keys"]]

    def sign_client_assertion(self, claims: dict[str, Any]) -> str:
        """A compact JWT over `claims`, signed ES384 with the newest active key (kid in the header)."""
        entry = keyset.signing_entry(self._entries(), "ES384", self.clock())
        key = keyset.import_private(entry)
        return jwt.encode({"alg": "ES384", "kid": entry["kid"], "typ": "JWT"}, claims, key, algorithms=["ES384"])

    def verify(self, compact: str) -> dict[str, Any] | None:
        """The claims of a JWT this platform signed with any key still in the key set, else None."""
        try:
            keys = KeySet([keyset.import_private(e) for e in self._entries()])
            return dict(jwt.decode(compact, keys, algorithms=list(keyset.ALGORITHMS)).claims)
        except (JoseError, ValueError, KeyError):
            return None

    def _entries(self) -> list[dict[str, Any]]:
        stat = self._stat()
        if stat is not None and self._cache is not None and self._cache[0] == stat:
            return self._cache[1]
        with self._lock:
            return self._load(allow_generate=True)

    def _generate_first(self) -> None:
        if not self.path.exists():
            store.write_document(self.path, {"keys": keyset.generate_pair(self.clock())})

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _load(self, *, allow_generate: bool, locked: bool = False) -> list[dict[str, Any]]:
        if allow_generate and self.generate_if_missing and not self.path.exists():
            if locked:
                self._generate_first()
            else:
                # flock is per open file: take it only when the caller does not already hold it.
                with store.exclusive(self.path):
                    self._generate_first()
        stat = self._stat()
        try:
            entries = keyset.validate(store.read_document(self.path))
        except store.KeyFileUnavailable as exc:
            raise SigningKeysUnavailable(str(exc)) from None
        except keyset.KeySetError as exc:
            raise SigningKeysUnavailable(f"the signing key file {self.path} is malformed: {exc}") from None
        if stat is not None:
            self._cache = (stat, entries)
        return entries
