"""The landing zone: original upload bytes, stored once, content-addressed, immutable.

Layout (documented for the Dagster sensor that watches it):

    <landing_dir>/sha256/<h[0:2]>/<h[2:4]>/<h>      the bytes, mode 0400 (directories 0700)

`<h>` is the lower-case hex SHA-256 of the content. A file appears under its
final name only when complete (written to a temporary name in the same
directory, fsynced, then renamed), so a watcher never sees a partial file and
an existing file is never overwritten. The files hold PHI: only the service's
own user may read them (modes set explicitly, whatever the umask). Tenancy lives in the database
(`LandingFile`), not in the path: identical bytes from two clients are stored
once.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from api.infra.private_files import private_dir

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
LANDING_FILE_MODE = 0o400  # owner read-only: the bytes never change, and they are PHI


@dataclass(frozen=True)
class StoredFile:
    sha256: str
    size: int
    path: Path
    created: bool  # False when the content was already in the zone


def content_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class LandingZone:
    """Content-addressed, write-once storage under one root directory."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def path_for(self, sha256: str) -> Path:
        """Where the content with this hash lives (whether or not it exists)."""
        if not _HEX64.match(sha256):
            raise ValueError("a landing-zone key is a 64-character lower-case hex SHA-256")
        return self.root / "sha256" / sha256[:2] / sha256[2:4] / sha256

    def store(self, data: bytes) -> StoredFile:
        """Store `data` once; storing the same bytes again returns the existing file."""
        digest = content_sha256(data)
        final = self.path_for(digest)
        if final.exists():
            return StoredFile(digest, final.stat().st_size, final, created=False)
        private_dir(final.parent)
        fd, tmp_name = tempfile.mkstemp(prefix=".incoming-", dir=final.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp_name, LANDING_FILE_MODE)
            try:
                # link() fails if the name exists: a concurrent writer of the same bytes wins, nothing is overwritten.
                os.link(tmp_name, final)
                created = True
            except FileExistsError:
                created = False
        finally:
            os.unlink(tmp_name)
        fsync_dir(final.parent)
        return StoredFile(digest, len(data), final, created=created)

    def store_file(self, source: Path, sha256: str, size: int) -> StoredFile:
        """Store a spooled file (on the same filesystem, already hashed as it arrived) by linking it
        into place: no copy, no read into memory. `source` stays where it is; the caller removes it."""
        final = self.path_for(sha256)
        if final.exists():
            return StoredFile(sha256, final.stat().st_size, final, created=False)
        private_dir(final.parent)
        os.chmod(source, LANDING_FILE_MODE)
        try:
            os.link(source, final)
            created = True
        except FileExistsError:
            created = False
        fsync_dir(final.parent)
        return StoredFile(sha256, size, final, created=created)

    def read(self, sha256: str) -> bytes:
        """The stored bytes, verified against their hash (a corrupted file is an error, never data)."""
        path = self.path_for(sha256)
        data = path.read_bytes()
        if content_sha256(data) != sha256:
            raise OSError(f"landing file {sha256[:12]}... does not match its hash")
        return data

    def exists(self, sha256: str) -> bool:
        return self.path_for(sha256).exists()


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file, read in 1 MiB blocks (constant memory, whatever its size)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fsync_dir(directory: Path) -> None:
    """Make a rename or link in `directory` durable (the directory entry itself is fsynced)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
