"""Reading and writing the key set file: atomic replace, mode 0600, one writer at a time."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any


class KeyFileUnavailable(RuntimeError):
    """The key set file is missing or unreadable; the message names the path, never its content."""


def read_document(path: Path) -> Any:
    """The parsed JSON of the key set file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise KeyFileUnavailable(f"the signing key file {path} does not exist") from None
    except (PermissionError, IsADirectoryError, OSError) as exc:
        raise KeyFileUnavailable(f"the signing key file {path} cannot be read ({type(exc).__name__})") from None
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise KeyFileUnavailable(f"the signing key file {path} is not valid JSON") from None


def write_document(path: Path, document: dict[str, Any]) -> None:
    """Replace the file atomically: a reader sees the old or the new set, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(document, fh, indent=2, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an advisory lock beside the key file so two processes never rotate at once."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock_path = path.with_name(path.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
