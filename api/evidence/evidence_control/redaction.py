"""PHI redaction of derived text (pure, no I/O).

The text that letters, previews and analytics use is the extracted text with PHI replaced by typed
markers; the original bytes are never changed. What is replaced, in this order:

1. e-mail addresses ``[EMAIL]``;
2. **terms** the caller knows for this document (patient name, member id, date of birth) and the
   linked claim's identifiers: matched case-insensitively, with any run of spaces and ``- . / ,``
   between their parts. A term that reads as a date is also matched in its other usual spellings
   (``4/2/1961``, ``04/02/1961``, ``1961-04-02``, ``April 2, 1961``, ...) and becomes ``[DOB]``;
   a term with a digit becomes ``[MEMBER-ID]``; any other is a name (``[NAME]``), and each of its
   words of three letters or more is matched on its own too (``Ms. Doe``);
3. SSNs ``[SSN]``: ``123-45-6789``, ``123 45 6789``, or nine digits after an SSN label;
4. dates of birth ``[DOB]``: the first date after a birth word (DOB, date of birth, born, ...) on its
   line, or on the next line when the label ends its line (a form's field);
5. member / subscriber / policy / record ids after their label ``[MEMBER-ID]`` (the value must hold a
   digit);
6. phone and fax numbers ``[PHONE]`` (separated 10-digit numbers, or any after a phone label);
7. street addresses and PO boxes ``[ADDRESS]`` (a house number, capitalised street words and a street
   suffix, optionally a unit and ", City, ST 12345"), and the rest of a line after ``Address:``;
8. names after a patient label (``Patient:``, ``Name:``, ``Subscriber:``, ``Insured:``, ...) ``[NAME]``.

Markers are never matched again, so redacting twice gives the same text (tested with Hypothesis).
Terms are only held in memory for the call: never stored, logged or audited.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

MARKERS: Mapping[str, str] = {
    "name": "[NAME]",
    "ssn": "[SSN]",
    "dob": "[DOB]",
    "member_id": "[MEMBER-ID]",
    "phone": "[PHONE]",
    "address": "[ADDRESS]",
    "email": "[EMAIL]",
}
MARKER = re.compile(r"\[(?:NAME|SSN|DOB|MEMBER-ID|PHONE|ADDRESS|EMAIL)\]")
MAX_TERMS = 50
MIN_TERM_CHARS = 2

_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTHS = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
DATE = (
    r"(?:(?<!\d)\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})(?!\d)"
    r"|(?<!\d)\d{4}[/.-]\d{1,2}[/.-]\d{1,2}(?!\d)"
    rf"|(?i:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}(?!\d)"
    rf"|(?<!\d)\d{{1,2}}\s+(?i:{_MONTHS})\.?,?\s+\d{{4}}(?!\d)"
    r"|(?<!\d)\d{8}(?!\d))"
)
_DATE_OR_MARKER = re.compile(rf"\[DOB\]|{DATE}")
_BIRTH = re.compile(
    r"(?<![A-Za-z])(?i:dob|d\.o\.b\.?|date\s+of\s+birth|birth\s*date|birthday|born(?:\s+on)?)(?![A-Za-z])"
)

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+")
_SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])|(?<![\d-])(?<!\d )\d{3} \d{2} \d{4}(?! ?\d)")
_SSN_LABELLED = re.compile(
    r"(?P<label>(?<![A-Za-z])(?i:ssn|ss#|social[^\S\n]+security(?:[^\S\n]+(?:number|no\.?))?)[^\S\n]*[:#]?[^\S\n]*)"
    r"(?P<value>\d{9})(?!\d)"
)
_MEMBER_ID = re.compile(
    r"(?P<label>(?i:(?<![A-Za-z])(?:(?:member|subscriber|policy|insured|patient|beneficiary|medicare|medicaid|account|acct)"
    r"[^\S\n]*(?:id|identifier|#|no\.?|num(?:ber)?)|mrn|medical[^\S\n]+record[^\S\n]*(?:number|no\.?|#)?|mbi|hicn|id[^\S\n]*(?:#|no\.?|number)))"
    r"[^\S\n]*[:#]?[^\S\n]*)"
    r"(?P<value>(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{3,24})(?![A-Za-z0-9])"
)
_PHONE = re.compile(r"(?<![\w-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)[^\S\n]?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?![\w-])")
_PHONE_LABELLED = re.compile(
    r"(?P<label>(?<![A-Za-z])(?i:phone|tel|telephone|fax|cell|mobile)[^\S\n]*[:#]?[^\S\n]*)"
    r"(?P<value>\+?\d[\d().-]{8,15}\d)(?!\d)"
)
_STREET_SUFFIX = (
    r"(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|ter|"
    r"circle|cir|highway|hwy|parkway|pkwy|square|sq|trail|trl)"
)
_ADDRESS = re.compile(
    rf"(?<![\w-])\d{{1,6}}[^\S\n]+(?:[A-Z][A-Za-z]*\.?[^\S\n]+){{1,4}}{_STREET_SUFFIX}(?![A-Za-z])\.?"
    r"(?:,?[^\S\n]*(?i:apt|apartment|suite|ste|unit|#)\.?[^\S\n]*[A-Za-z0-9-]{1,8}(?![A-Za-z0-9-]))?"
    r"(?:,[^\S\n]*[A-Z][A-Za-z.]*(?:[^\S\n][A-Z][A-Za-z.]*){0,3},[^\S\n]*[A-Z]{2}[^\S\n]+\d{5}(?:-\d{4})?(?!\d))?"
    r"|(?<![A-Za-z])(?i:p\.?[^\S\n]?o\.?[^\S\n]+box)[^\S\n]+\d{1,8}(?!\d)"
)
_ADDRESS_LINE = re.compile(r"(?P<label>(?<![A-Za-z])(?i:address)[^\S\n]*:[^\S\n]*)(?P<value>[^\n]*[A-Za-z0-9][^\n]*)")
_NOT_A_NAME = r"(?!(?:DOB|SSN|MRN|ID|Member|Phone|Address|Date|Sex|Gender|Age|Claim|Account|Policy)(?![A-Za-z]))"
_NAME_WORD = rf"{_NOT_A_NAME}[A-Z][A-Za-z'\u2019-]*\.?"
_NAME = re.compile(
    r"(?P<label>(?i:(?<![A-Za-z])(?:patient(?:[^\S\n]+name)?|(?<![A-Za-z][^\S\n])name|member[^\S\n]+name|"
    r"subscriber(?:[^\S\n]+name)?|insured(?:[^\S\n]+name)?|guarantor|beneficiary))[^\S\n]*:[^\S\n]*)"
    rf"(?P<value>{_NAME_WORD}(?:(?:,[^\S\n]*|[^\S\n]+){_NAME_WORD}){{0,3}})"
)


@dataclass(frozen=True)
class Redacted:
    text: str
    counts: dict[str, int] = field(default_factory=dict)  # markers placed, by kind


def _outside_markers(text: str, fn: Callable[[str], str]) -> str:
    """Apply `fn` to the text between markers only: a marker is never redacted again."""
    pieces: list[str] = []
    last = 0
    for match in MARKER.finditer(text):
        pieces.append(fn(text[last : match.start()]))
        pieces.append(match.group())
        last = match.end()
    pieces.append(fn(text[last:]))
    return "".join(pieces)


def _replace(pattern: re.Pattern[str], kind: str, text: str, counts: Counter[str], group: str | None = None) -> str:
    marker = MARKERS[kind]

    def one(match: re.Match[str]) -> str:
        counts[kind] += 1
        if group is None:
            return marker
        start, end = match.span(group)
        whole = match.group()
        offset = match.start()
        return whole[: start - offset] + marker + whole[end - offset :]

    return _outside_markers(text, lambda piece: pattern.sub(one, piece))


def _redact_birth_dates(text: str, counts: Counter[str]) -> str:
    """The first date after each birth word, on its line (or the next, when the label ends the line)."""
    spans: list[tuple[int, int]] = []
    for word in _BIRTH.finditer(text):
        line_end = text.find("\n", word.end())
        line_end = len(text) if line_end < 0 else line_end
        window_end = line_end
        if not re.search(r"[A-Za-z0-9\[]", text[word.end() : line_end]) and line_end < len(text):
            following = text.find("\n", line_end + 1)
            window_end = len(text) if following < 0 else following
        found = _DATE_OR_MARKER.search(text, word.end(), window_end)
        if found is not None and found.group() != MARKERS["dob"]:
            spans.append(found.span())
    out: list[str] = []
    last = 0
    for start, end in sorted(set(spans)):
        if start < last:
            continue
        out.append(text[last:start])
        out.append(MARKERS["dob"])
        counts["dob"] += 1
        last = end
    out.append(text[last:])
    return "".join(out)


# --- terms -----------------------------------------------------------------------------------------------

_SEPARATORS = r"[\s\-./,]*"
_DATE_FORMATS = ("%m/%d/%Y", "%m-%d-%Y", "%Y-%m-%d", "%m/%d/%y", "%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%m%d%Y")


def parse_date(term: str) -> date | None:
    cleaned = re.sub(r"\s+", " ", term.strip().replace(".", "/"))
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).date()
        except ValueError:
            continue
    return None


def date_spellings(day: date) -> list[str]:
    """The usual ways a date is written, for matching a known date of birth."""
    m, d, y = day.month, day.day, day.year
    month = _MONTH_NAMES[m - 1]
    return [
        f"{m}/{d}/{y}",
        f"{m:02d}/{d:02d}/{y}",
        f"{m}/{d}/{y % 100:02d}",
        f"{m:02d}/{d:02d}/{y % 100:02d}",
        f"{y}-{m:02d}-{d:02d}",
        f"{y}-{m}-{d}",
        f"{month} {d}, {y}",
        f"{month[:3]} {d}, {y}",
        f"{d} {month} {y}",
        f"{d} {month[:3]} {y}",
        f"{m:02d}{d:02d}{y}",
    ]


def _term_pattern(term: str) -> str | None:
    tokens = [t for t in re.split(r"[\s\-./,]+", term) if t]
    if not tokens or sum(len(t) for t in tokens) < MIN_TERM_CHARS:
        return None
    return r"(?<![A-Za-z0-9])" + _SEPARATORS.join(re.escape(t) for t in tokens) + r"(?![A-Za-z0-9])"


def term_kind(term: str) -> str:
    if parse_date(term) is not None:
        return "dob"
    return "member_id" if any(ch.isdigit() for ch in term) else "name"


def compile_terms(terms: Iterable[str]) -> list[tuple[str, re.Pattern[str]]]:
    """(kind, pattern) per spelling of each term, longest spelling first."""
    spellings: dict[str, str] = {}
    for raw in list(terms)[:MAX_TERMS]:
        term = raw.strip()
        if len(term) < MIN_TERM_CHARS:
            continue
        kind = term_kind(term)
        variants = [term]
        parsed = parse_date(term) if kind == "dob" else None
        if parsed is not None:
            variants += date_spellings(parsed)
        if kind == "name":
            variants += [w for w in re.split(r"[\s,]+", term) if len(w.strip(".'-")) >= 3]
        for variant in variants:
            spellings.setdefault(variant, kind)
    compiled: list[tuple[str, re.Pattern[str]]] = []
    for variant in sorted(spellings, key=len, reverse=True):
        pattern = _term_pattern(variant)
        if pattern is not None:
            compiled.append((spellings[variant], re.compile(pattern, re.IGNORECASE)))
    return compiled


def redact(text: str, terms: Iterable[str] = ()) -> Redacted:
    """`text` with PHI replaced by markers, and how many of each kind were placed."""
    counts: Counter[str] = Counter()
    text = _replace(_EMAIL, "email", text, counts)
    for kind, pattern in compile_terms(terms):
        text = _replace(pattern, kind, text, counts)
    text = _replace(_SSN, "ssn", text, counts)
    text = _replace(_SSN_LABELLED, "ssn", text, counts, group="value")
    text = _redact_birth_dates(text, counts)
    text = _replace(_MEMBER_ID, "member_id", text, counts, group="value")
    text = _replace(_PHONE, "phone", text, counts)
    text = _replace(_PHONE_LABELLED, "phone", text, counts, group="value")
    text = _replace(_ADDRESS, "address", text, counts)
    text = _replace(_ADDRESS_LINE, "address", text, counts, group="value")
    text = _replace(_NAME, "name", text, counts, group="value")
    return Redacted(text, dict(sorted(counts.items())))
