"""The installation's symmetric secret for keyed digests, kept beside the signing keys.

It lives in a file under `DATA_DIR/keys` (mode 0600), never in the database, so someone who can
read the database alone can neither test guesses against the audit log's digests nor forge them.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from api.core.settings import Settings
from api.infra.signing import store

SECRET_BYTES = 32


def load_or_create(path: Path) -> bytes:
    """The secret at `path`, created (32 random bytes, mode 0600) on first use."""
    path = Path(path)
    with store.exclusive(path):
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_bytes(SECRET_BYTES).hex().encode())
                fh.flush()
                os.fsync(fh.fileno())
        raw = path.read_bytes().strip()
    try:
        key = bytes.fromhex(raw.decode())
    except (UnicodeDecodeError, ValueError):
        raise RuntimeError(f"the secret file {path.name} is not hex") from None
    if len(key) < 16:
        raise RuntimeError(f"the secret file {path.name} holds fewer than 16 bytes")
    return key


def digest_key(settings: Settings) -> bytes:
    """The installation's key for keyed digests (the audit's input digests, throttle keys, patient and
    member digests) at `settings.resolved_audit_key_path`, created on first use: read once by the
    composition root, and by a job handler that needs it through the API worker's settings."""
    return load_or_create(settings.resolved_audit_key_path)
