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

if TYPE_CHECKING:  # types only
    from api.core.settings import Settings


class SigningKeysUnavailable(RuntimeError):
    """The configured key set cannot be used; the message is safe to show (a path, never key material)."""


@dataclass(frozen=True)
class Rotation:
    """What a rotation left published: every kid, the ones signing now, the next ones and when they start."""

    published_kids: list[str]
    signing_kids: list[str]
    next_kids: list[str]
    next_signs_from: datetime | None


@dataclass(frozen=True)
class PublishedKeys:
    jwks: dict[str, Any]
    body: bytes  # the serialised JWKS, served as is
    etag: str


class SigningKeys:
    """The key set at `path`. With `generate_if_missing` (the embedded default) a missing
    file is created with a fresh ES384 + RS384 pair; an explicitly configured file never is."""

    def __init__(
        self,
        path: Path,
        *,
        generate_if_missing: bool,
        retire_after: timedelta,
        publish_ahead: timedelta = timedelta(0),
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.path = Path(path)
        self.generate_if_missing = generate_if_missing
        self.retire_after = retire_after
        self.publish_ahead = publish_ahead
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
            publish_ahead=timedelta(hours=settings.smart_key_publish_ahead_hours),
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

    def rotate(self, *, emergency: bool = False) -> Rotation:
        """Publish a new ES384 + RS384 pair that signs from `publish_ahead` from now (at once in an
        emergency, which also unpublishes every other key), prune expired keys, write atomically.
        Raises keyset.RotationPending while an earlier rotation's keys do not sign yet."""
        with self._lock, store.exclusive(self.path):
            now = self.clock()
            entries = self._load(allow_generate=True, locked=True)
            updated = keyset.rotate(
                entries,
                now,
                self.retire_after,
                keyset.generate_pair(now),
                publish_ahead=self.publish_ahead,
                emergency=emergency,
            )
            store.write_document(self.path, {"keys": updated})
            self._cache = None
            return self.describe(updated, now)

    def state(self) -> Rotation:
        """The published, signing and next keys now (no change)."""
        return self.describe(self._entries(), self.clock())

    @staticmethod
    def describe(entries: list[dict[str, Any]], now: datetime) -> Rotation:
        waiting = keyset.pending(entries, now)
        signing = []
        for alg in keyset.ALGORITHMS:
            try:
                signing.append(keyset.signing_entry(entries, alg, now)["kid"])
            except keyset.KeySetError:
                continue
        return Rotation(
            published_kids=[k["kid"] for k in keyset.public_jwks(entries, now)["keys"]],
            signing_kids=signing,
            next_kids=[e["kid"] for e in waiting],
            next_signs_from=min((keyset.signs_from(e) for e in waiting), default=None),
        )

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
