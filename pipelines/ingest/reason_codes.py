"""A combined reason code as billing systems export it (``CO-27``, ``CO27``, ``CO 27``, ``PR-1``) split
into its claim adjustment group code and its CARC (pure, no I/O).

The group codes are the X12 835 TR3's CAS01 values (005010X221A1, section 1.10.2.4 and the CAS
segment: CO contractual obligation, PR patient responsibility, OA other adjustment, PI payer initiated
reduction; CR correction and reversal, 4010 only). A CARC is numeric (1-999) or one letter then digits
(A1, B7, P12, W1, Y3), so two leading letters are always a group code, never part of a CARC: ``B7`` stays
a CARC, ``COA1`` is CO and A1. Two letters that are no group code (``XX-27``, or ``MA130``, a RARC put in
the reason-code column) are left as they are and flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GROUP_CODES: tuple[str, ...] = ("CO", "PR", "OA", "PI", "CR")
_COMBINED = re.compile(r"^([A-Z]{2})[\s\-_/.:]*([A-Z]?\d{1,3})$")


@dataclass(frozen=True, slots=True)
class SplitCode:
    """What a reason-code cell holds: the group (None when the cell has none), the CARC, and the
    unknown two-letter prefix when there is one (then `carc` is the text as it was, unsplit)."""

    group: str | None
    carc: str
    unknown_group: str | None = None


def split_reason_code(text: str) -> SplitCode:
    """``CO-27`` -> (CO, 27); ``27`` -> (None, 27); ``XX-27`` -> (None, XX-27, unknown XX)."""
    code = text.strip().upper()
    match = _COMBINED.match(code)
    if match is None:
        return SplitCode(None, code)
    group, carc = match.group(1), match.group(2)
    if group not in GROUP_CODES:
        return SplitCode(None, code, unknown_group=group)
    return SplitCode(group, carc)
