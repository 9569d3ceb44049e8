"""What of a call is stored for analytics: turns with PHI replaced by markers (pure, no I/O).

Every turn goes through the evidence redaction (`api/evidence/evidence_control/redaction.py`: e-mail,
SSN, a date after a birth word, labelled member/subscriber ids, phones, addresses, labelled names).
Speech has no colons, so the payer side's turns (IVR and representative) first get the spoken forms:
a name after "patient", "member", "subscriber", "beneficiary" or "insured" (optionally "'s name" /
"name" / "is"), and an id after "member ID" / "subscriber number" ... with "is" between. The agent's
turns hold only the delegation's call data (no patient identifiers by construction) and are redacted
with the general patterns only, so the hospital's own name ("Patient Financial Services") stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from api.evidence.evidence_control.redaction import MARKERS, redact

PAYER_SPEAKERS = frozenset({"ivr", "representative"})
# Linear time, as the evidence redaction (issue 23): runs of spaces are possessive (what follows them
# is never a space) and the id's digit look-ahead reads at most the id's 25 characters.
_NAME_WORD = r"(?!(?:ID|DOB|Number|Date)\b)[A-Z][a-z'\u2019-]++"
_SPOKEN_NAME = re.compile(
    r"(?P<label>(?<![A-Za-z])(?i:patient|member|subscriber|beneficiary|insured)(?:'s|\u2019s)?"
    r"(?:\s++(?i:name))?(?:\s++(?i:is))?\s++)"
    rf"(?P<value>{_NAME_WORD}(?:\s++{_NAME_WORD}){{0,2}})"
)
_SPOKEN_ID = re.compile(
    r"(?P<label>(?<![A-Za-z])(?i:member|subscriber|policy|medicare|medicaid|beneficiary)\s++(?i:id|number|identifier)"
    r"(?:\s++(?i:is))?[\s:#]*+)"
    r"(?P<value>(?=[A-Za-z0-9-]{0,24}\d)[A-Za-z0-9][A-Za-z0-9-]{3,24})(?![A-Za-z0-9])"
)


def _spoken(text: str) -> str:
    text = _SPOKEN_ID.sub(lambda m: m.group("label") + MARKERS["member_id"], text)
    return _SPOKEN_NAME.sub(lambda m: m.group("label") + MARKERS["name"], text)


def redact_turn(speaker: str, text: str, terms: Iterable[str] = ()) -> str:
    """The turn's text as stored: PHI replaced by typed markers ([NAME], [DOB], [MEMBER-ID], ...)."""
    if speaker in PAYER_SPEAKERS:
        text = _spoken(text)
    return redact(text, terms).text


def redact_turns(turns: Iterable[dict[str, Any]], terms: Iterable[str] = ()) -> list[dict[str, Any]]:
    known = list(terms)
    return [{**turn, "text": redact_turn(turn["speaker"], turn["text"], known)} for turn in turns]
