"""Normalization of what is compared (pure): payer names, person names, member ids, dates, sex, claim keys.

Person fields are normalized here only to be hashed or Bloom-encoded (`encoding.py`) at once; nothing
normalized from a person is stored or returned.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

_NON_ALNUM = re.compile(r"[^A-Z0-9]+")
_NON_ALPHA = re.compile(r"[^A-Z]+")
_SPACES = re.compile(r"\s+")

# Payer-name tokens that carry no identity: legal-form suffixes and filler words. Dropping them is what
# makes "AETNA INC." and "AETNA" one spelling; plan words ("MEDICARE", "ADVANTAGE", "HMO") are kept,
# because they tell payers of one family apart.
_PAYER_FILLER = frozenset({"INC", "INCORPORATED", "CO", "CORP", "CORPORATION", "COMPANY", "LLC", "LTD", "THE", "OF"})
# Abbreviations common on remittances (N1*PR names are free text up to 60 characters, X12 835 TR3 1000A):
# expanded so both spellings share their tokens.
_PAYER_ABBREVIATIONS = {
    "BCBS": "BLUE CROSS BLUE SHIELD",
    "BC": "BLUE CROSS",
    "BS": "BLUE SHIELD",
    "UHC": "UNITEDHEALTHCARE",
    "INS": "INSURANCE",
    "HLTH": "HEALTH",
    "MCR": "MEDICARE",
    "MCD": "MEDICAID",
    "ADMIN": "ADMINISTRATORS",
    "SVCS": "SERVICES",
    "NATL": "NATIONAL",
}


def fold(text: str) -> str:
    """Upper-case ASCII letters and digits of `text` (accents folded: NFKD, combining marks dropped)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


def payer_name(name: str) -> str:
    """A payer name reduced to its identifying tokens, space-separated: folded, '&' read as AND,
    punctuation dropped, abbreviations expanded, legal-form and filler tokens dropped."""
    text = fold(name).replace("&", " AND ")
    text = _SPACES.sub(" ", _NON_ALNUM.sub(" ", text)).strip()
    words: list[str] = []
    for word in text.split(" "):
        words.extend(_PAYER_ABBREVIATIONS.get(word, word).split(" "))
    joined = " ".join(w for w in words if w and w not in _PAYER_FILLER)
    # a two-word abbreviation spelled out ("UNITED HEALTHCARE") becomes its one-word form
    for long, short in (("UNITED HEALTHCARE", "UNITEDHEALTHCARE"),):
        joined = joined.replace(long, short)
    return joined


def alias_spelling(name: str) -> str:
    """How the alias table compares a spelling: upper-cased and trimmed (reconciliation's rule)."""
    return name.strip().upper()


def person_name(name: str | None) -> str:
    """A name part as letters only (folded; hyphens, apostrophes, spaces and digits dropped)."""
    return _NON_ALPHA.sub("", fold(name)) if name else ""


def split_full_name(full: str | None) -> tuple[str, str]:
    """(first, last) of an export's single name column: "LAST, FIRST [MIDDLE]" when it has a comma, else
    "FIRST [MIDDLE] LAST". Which is which matters little: names are compared in both orders."""
    if not full:
        return "", ""
    if "," in full:
        last, _, rest = full.partition(",")
        words = rest.split()
        return person_name(words[0] if words else ""), person_name(last)
    parts = full.split()
    if not parts:
        return "", ""
    if len(parts) == 1:
        return "", person_name(parts[0])
    return person_name(parts[0]), person_name(parts[-1])


def member_id(value: str | None) -> str:
    """A member id as upper-case letters and digits (separators dropped), '' when none."""
    return _NON_ALNUM.sub("", fold(value)) if value else ""


def sex(value: str | None) -> str:
    """DMG03 gender (X12 837 TR3 2010BA/2010CA: F, M, U): F or M, '' for unknown or anything else."""
    text = fold(value or "").strip()
    return text[:1] if text[:1] in ("F", "M") else ""


def birth_date(value: object) -> date | None:
    """A birth date from a row value (a date, or text as YYYY-MM-DD / CCYYMMDD); None when unreadable."""
    if isinstance(value, date):
        return value
    text = str(value or "").strip()
    digits = text.replace("-", "")
    if len(digits) != 8 or not digits.isdigit():
        return None
    try:
        return date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None


def claim_key(value: str | None) -> str:
    """A claim key as compared across files: upper-case letters and digits, leading zeros dropped (a
    payer that zero-pads or trims CLP01, a clearinghouse that strips dashes)."""
    return _NON_ALNUM.sub("", fold(value)).lstrip("0") if value else ""
