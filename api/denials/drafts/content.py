"""Draft content: normalised bytes, their digest, and the diff between two versions (pure, no I/O).

Line endings are normalised so the same text digests the same whichever client typed it. The digest
is what approvals are bound to and what the audit log gets; the text itself may hold PHI.
"""

from __future__ import annotations

import difflib
import hashlib


def normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def digest(text: str) -> str:
    """SHA-256 (lowercase hex) of the normalised text in UTF-8."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def size(text: str) -> int:
    return len(normalise(text).encode("utf-8"))


def unified_diff(old: str, new: str, from_label: str, to_label: str, *, context: int = 3) -> str:
    """A unified diff (difflib) of two texts, line by line; empty when they are equal."""
    lines = difflib.unified_diff(
        normalise(old).splitlines(keepends=True),
        normalise(new).splitlines(keepends=True),
        fromfile=from_label,
        tofile=to_label,
        n=context,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
