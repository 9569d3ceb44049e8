"""Draft content: normalised bytes, their digest, and the diff between two versions (pure, no I/O).

Line endings are normalised so the same text digests the same whichever client typed it. The digest
is what approvals are bound to and what the audit log gets; the text itself may hold PHI.
"""

from __future__ import annotations

import hashlib

from api.denials.drafts import line_diff

#: The longest content a version holds, in characters (the input's bound; the diff's default cap).
MAX_CONTENT = 200_000
#: The default of DRAFT_DIFF_MAX_CHANGED_LINES (api.core.settings).
MAX_CHANGED_LINES = 1_000


def normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def digest(text: str) -> str:
    """SHA-256 (lowercase hex) of the normalised text in UTF-8."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def size(text: str) -> int:
    return len(normalise(text).encode("utf-8"))


def unified_diff(
    old: str, new: str, from_label: str, to_label: str, *, context: int = 3, max_changes: int = MAX_CHANGED_LINES
) -> str:
    """A unified diff of two texts, line by line; empty when they are equal. Bounded work: beyond
    `max_changes` changed lines the differing stretch is shown removed and re-added whole
    (`line_diff`), still a diff that turns the old text into the new one."""
    a = normalise(old).splitlines(keepends=True)
    b = normalise(new).splitlines(keepends=True)
    out = []
    for line in line_diff.unified(a, b, from_label, to_label, line_diff.opcodes(a, b, max_changes), context):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
