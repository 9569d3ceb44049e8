"""Applying a unified diff (any context) to the text it was made from: the check that a diff is right."""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")
_NO_NEWLINE = "\\ No newline at end of file"


def apply_unified(old: str, diff: str) -> str:
    """The new text: every hunk's context and removed lines checked against `old`, then replaced."""
    if not diff:
        return old
    source = old.splitlines(keepends=True)
    lines = diff.split("\n")[:-1]  # the diff ends with a line break
    assert lines[0].startswith("--- ") and lines[1].startswith("+++ ")
    out: list[str] = []
    at, index = 0, 2
    while index < len(lines):
        found = _HUNK.match(lines[index])
        assert found, lines[index]
        start, count = int(found.group(1)), int(found.group(2) or 1)
        first = start - 1 if count else start
        out += source[at:first]
        at, index = first, index + 1
        while index < len(lines) and not lines[index].startswith("@@"):
            line, index = lines[index], index + 1
            ends = not (index < len(lines) and lines[index] == _NO_NEWLINE)
            if not ends:
                index += 1
            text = line[1:] + ("\n" if ends else "")
            if line[0] in " -":
                assert source[at] == text, (at, source[at], text)
                at += 1
            if line[0] in " +":
                out.append(text)
    return "".join(out + source[at:])
