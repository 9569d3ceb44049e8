"""PHI redaction of derived text (pure, no I/O), in time linear in the text's length.

The text that letters, previews and analytics use is the extracted text with PHI replaced by typed
markers; the original bytes are never changed. What is replaced, in this order:

1. e-mail addresses ``[EMAIL]``;
2. **terms** the caller knows for this document (patient name, member id, date of birth) and the
   linked claim's identifiers: matched case-insensitively, with any run of spaces and ``- . / ,``
   between their parts. A term that reads as a date is also matched in its other usual spellings
   (``4/2/1961``, ``04/02/1961``, ``1961-04-02``, ``April 2, 1961``, ...) and becomes ``[DOB]``;
   a term with a digit becomes ``[MEMBER-ID]``; any other is a name (``[NAME]``), and each of its
   words of three letters or more is matched on its own too (``Ms. Doe``). One pass: at each
   position the longest spelling that fits, and an occurrence wins over a later one it overlaps;
3. SSNs ``[SSN]``: ``123-45-6789``, ``123 45 6789``, or nine digits after an SSN label;
4. dates of birth ``[DOB]``: the first date after a birth word (DOB, date of birth, born, ...) on its
   line, or on the next line when the label ends its line (a form's field);
5. member / subscriber / policy / record ids after their label ``[MEMBER-ID]`` (the value must hold a
   digit within its 25 characters);
6. phone and fax numbers ``[PHONE]`` (separated 10-digit numbers, or any after a phone label);
7. street addresses and PO boxes ``[ADDRESS]`` (a house number, capitalised street words and a street
   suffix, optionally a unit and ", City, ST 12345"), and the rest of a line after ``Address:``;
8. names after a patient label (``Patient:``, ``Name:``, ``Subscriber:``, ``Insured:``, ...) ``[NAME]``.

Markers are never matched again (not even the ``DOB`` inside ``[DOB]`` as a birth word), so
redacting twice gives the same text (tested with Hypothesis).
Terms are only held in memory for the call: never stored, logged or audited.

**Linear time** (issue 23: an 80 KB text held every tenant's writes for 15 s). Python's `re`
backtracks, so a pattern is linear only if no attempt can rescan an unbounded stretch that other
attempts scan too. The rules every pattern here follows:

- a run that may be long (spaces after a label, separators between a term's parts, a word) is
  matched *possessively* (``*+``, ``++``: never given back) and only where what follows cannot start
  with a character of the run, so the possessive run matches exactly what the greedy one did; such a
  run follows one label or term occurrence, so the runs different attempts scan do not overlap;
- a look-ahead scans a bounded stretch (the member id's digit check reads at most 25 characters);
- the birth-date rule is one left-to-right pass (`_redact_birth_dates`) instead of a search from every
  birth word to its line's end;
- the caller's terms are one pattern (a trie of their spellings: one pass, and the work at a position
  bounded by the terms, not by the text) instead of one pass per spelling.

`tests/unit/api/evidence/evidence_control/test_evidence_redaction.py` runs each old worst case at
1 MB and checks the output.
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
# The schema caps a caller's term at 200 characters; this bounds the terms' pattern whoever calls.
MAX_TERM_CHARS = 256

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
# `\s++`: the spaces before a day or a year are followed by a digit, never by a space.
DATE = (
    r"(?:(?<!\d)\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})(?!\d)"
    r"|(?<!\d)\d{4}[/.-]\d{1,2}[/.-]\d{1,2}(?!\d)"
    rf"|(?i:{_MONTHS})\.?\s++\d{{1,2}}(?:st|nd|rd|th)?,?\s++\d{{4}}(?!\d)"
    rf"|(?<!\d)\d{{1,2}}\s++(?i:{_MONTHS})\.?,?\s++\d{{4}}(?!\d)"
    r"|(?<!\d)\d{8}(?!\d))"
)
_BIRTH = r"(?<![A-Za-z])(?i:dob|d\.o\.b\.?|date\s++of\s++birth|birth\s*+date|birthday|born(?:\s++on)?)(?![A-Za-z])"
_BIRTH_WORD = re.compile(_BIRTH)
_DATE_OR_MARKER = re.compile(rf"\[DOB\]|{DATE}")
_LABEL_TEXT = re.compile(r"[A-Za-z0-9\[]")

_S = r"[^\S\n]"  # a space or tab: labels and their values stay on one line
# Between a label and its value: spaces, an optional ':' or '#', spaces (possessive: the value
# starts with neither).
_GAP = rf"{_S}*+[:#]?{_S}*+"

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+")
_SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])|(?<![\d-])(?<!\d )\d{3} \d{2} \d{4}(?! ?\d)")
_SSN_LABELLED = re.compile(
    rf"(?P<label>(?<![A-Za-z])(?i:ssn|ss#|social{_S}++security(?:{_S}++(?:number|no\.?))?){_GAP})"
    r"(?P<value>\d{9})(?!\d)"
)
_MEMBER_ID = re.compile(
    r"(?P<label>(?i:(?<![A-Za-z])(?:(?:member|subscriber|policy|insured|patient|beneficiary|medicare|medicaid|account|acct)"
    rf"{_S}*+(?:id|identifier|#|no\.?|num(?:ber)?)|mrn|medical{_S}++record{_S}*+(?:number|no\.?|#)?|mbi|hicn|id{_S}*+(?:#|no\.?|number)))"
    rf"{_GAP})"
    # The digit look-ahead reads at most the value's 25 characters (it read the whole run before:
    # "mrn-mrn-mrn-..." made every label rescan the rest of the text).
    r"(?P<value>(?=[A-Za-z0-9-]{0,24}\d)[A-Za-z0-9][A-Za-z0-9-]{3,24})(?![A-Za-z0-9])"
)
_PHONE = re.compile(r"(?<![\w-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)[^\S\n]?|\d{3}[\s.-])\d{3}[\s.-]\d{4}(?![\w-])")
_PHONE_LABELLED = re.compile(
    rf"(?P<label>(?<![A-Za-z])(?i:phone|tel|telephone|fax|cell|mobile){_GAP})"
    r"(?P<value>\+?\d[\d().-]{8,15}\d)(?!\d)"
)
_STREET_SUFFIX = (
    r"(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|ter|"
    r"circle|cir|highway|hwy|parkway|pkwy|square|sq|trail|trl)"
)
# A word's letters are followed by '.', a space or ',', never a letter: possessive runs match what the
# greedy ones did, and the backtracking left is over at most four street words.
_ADDRESS = re.compile(
    rf"(?<![\w-])\d{{1,6}}{_S}++(?:[A-Z][A-Za-z]*+\.?{_S}++){{1,4}}{_STREET_SUFFIX}(?![A-Za-z])\.?"
    rf"(?:,?{_S}*+(?i:apt|apartment|suite|ste|unit|#)\.?{_S}*+[A-Za-z0-9-]{{1,8}}(?![A-Za-z0-9-]))?"
    rf"(?:,{_S}*+[A-Z][A-Za-z.]*+(?:{_S}[A-Z][A-Za-z.]*+){{0,3}},{_S}*+[A-Z]{{2}}{_S}++\d{{5}}(?:-\d{{4}})?(?!\d))?"
    rf"|(?<![A-Za-z])(?i:p\.?{_S}?o\.?{_S}++box){_S}++\d{{1,8}}(?!\d)"
)
# The rest of the line after "Address:", when it holds a letter or digit (the look-ahead stops at the
# first one; when there is none, no later "address" label is on the line either).
_ADDRESS_LINE = re.compile(
    rf"(?P<label>(?<![A-Za-z])(?i:address){_S}*+:{_S}*+)(?P<value>(?=[^\n]*?[A-Za-z0-9])[^\n]*+)"
)
_NOT_A_NAME = r"(?!(?:DOB|SSN|MRN|ID|Member|Phone|Address|Date|Sex|Gender|Age|Claim|Account|Policy)(?![A-Za-z]))"
_NAME_WORD = rf"{_NOT_A_NAME}[A-Z][A-Za-z'\u2019-]*+\.?"
_NAME = re.compile(
    rf"(?P<label>(?i:(?<![A-Za-z])(?:patient(?:{_S}++name)?|(?<![A-Za-z]{_S})name|member{_S}++name|"
    rf"subscriber(?:{_S}++name)?|insured(?:{_S}++name)?|guarantor|beneficiary)){_S}*+:{_S}*+)"
    rf"(?P<value>{_NAME_WORD}(?:(?:,{_S}*+|{_S}++){_NAME_WORD}){{0,3}})"
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


class _LineEnds:
    """The index of the line break ending the line at a position (or the text's length); positions
    asked for only grow, so each break is searched for once."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._start = 0
        self._end = -1  # the answer for every position in [_start, _end]

    def at(self, pos: int) -> int:
        if not self._start <= pos <= self._end:
            found = self._text.find("\n", pos)
            self._start, self._end = pos, len(self._text) if found < 0 else found
        return self._end


def _window_end(text: str, word_end: int, lines: _LineEnds, next_lines: _LineEnds) -> int:
    """Where a birth word's date may end: its line's end, or the next line's when the label ends its line."""
    line_end = lines.at(word_end)
    # Stops at the first letter, digit or '[' after the word: every later birth word starts with one,
    # so the stretches read for different words never overlap.
    if line_end < len(text) and _LABEL_TEXT.search(text, word_end, line_end) is None:
        return next_lines.at(line_end + 1)
    return line_end


class _NextDate:
    """The first date (or [DOB] marker) at or after a position. Positions asked for only grow, and the
    answer for one holds for every later position up to that date: the text is searched once."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._from = len(text) + 1  # nothing searched yet
        self._found: re.Match[str] | None = None

    def at(self, pos: int) -> re.Match[str] | None:
        stale = pos < self._from or (self._found is not None and self._found.start() < pos)
        if stale:
            self._from, self._found = pos, _DATE_OR_MARKER.search(self._text, pos)
        return self._found


def _is_marker_word(text: str, word: re.Match[str]) -> bool:
    """The 'DOB' of a [DOB] marker: a date already redacted, not a label."""
    return word.start() > 0 and text[word.start() - 1] == "[" and text.startswith("]", word.end())


def _redact_birth_dates(text: str, counts: Counter[str]) -> str:
    """The first date after each birth word, on its line (or the next, when the label ends the line).

    In one pass: the birth words in order, each with the first date (or marker) after it, found by a
    search that resumes where the previous one stopped (`_NextDate`), and its window's end
    (`_LineEnds`). A marker found first means the date was redacted already."""
    lines, next_lines, dates = _LineEnds(text), _LineEnds(text), _NextDate(text)
    out: list[str] = []
    last = 0
    for word in _BIRTH_WORD.finditer(text):
        if _is_marker_word(text, word):
            continue
        found = dates.at(word.end())
        if found is None or found.start() < last or found.group() == MARKERS["dob"]:
            continue  # no date after it, or the one already redacted for an earlier word
        if found.end() <= _window_end(text, word.end(), lines, next_lines):
            out.append(text[last : found.start()])
            out.append(MARKERS["dob"])
            counts["dob"] += 1
            last = found.end()
    out.append(text[last:])
    return "".join(out)


# --- terms -----------------------------------------------------------------------------------------------

_SEPARATOR_CHARS = r"[\s\-./,]"
_SEPARATORS = re.compile(rf"{_SEPARATOR_CHARS}+")
# Between a term's parts; possessive, since a part never starts with a separator.
_SEP = rf"{_SEPARATOR_CHARS}*+"
_SEP_UNIT = ""  # the trie's key for "a run of separators" (every other key is one character)
_TERM_START = r"(?<![A-Za-z0-9])"
_TERM_END = r"(?![A-Za-z0-9])"
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


def term_kind(term: str) -> str:
    if parse_date(term) is not None:
        return "dob"
    return "member_id" if any(ch.isdigit() for ch in term) else "name"


def _fold(ch: str) -> str:
    """A character as the trie keys it (matching ignores case)."""
    lower = ch.lower()
    return lower if len(lower) == 1 else ch


def _units(spelling: str) -> list[str] | None:
    """A spelling as trie keys: its parts' characters with a separator run between parts."""
    parts = [p for p in _SEPARATORS.split(spelling) if p]
    if not parts or sum(len(p) for p in parts) < MIN_TERM_CHARS:
        return None
    units: list[str] = []
    for part in parts:
        if units:
            units.append(_SEP_UNIT)
        units.extend(_fold(ch) for ch in part)
    return units


def _key(text: str) -> str:
    """What identifies a spelling, whatever the separators and case: its folded characters."""
    return "".join(_fold(ch) for ch in _SEPARATORS.sub("", text))


class _Node:
    __slots__ = ("children", "end", "longest")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.end = False
        self.longest = 0  # the most units below this node: longer spellings are tried first


def _node_pattern(node: _Node) -> str:
    """The alternatives below a trie node: a chain without branches is a plain sequence (no group), so
    groups nest only where spellings diverge (at most MAX_TERM_CHARS deep)."""
    options = [
        (_SEP if unit == _SEP_UNIT else re.escape(unit)) + _node_pattern(child)
        for unit, child in sorted(node.children.items(), key=lambda item: -item[1].longest)
    ]
    if node.end:
        options.append(_TERM_END)
    return options[0] if len(options) == 1 else "(?:" + "|".join(options) + ")"


@dataclass(frozen=True)
class TermPattern:
    """Every spelling of the caller's terms as one pattern, and the kind of each spelling (by `_key`)."""

    pattern: re.Pattern[str]
    kinds: Mapping[str, str]

    def kind_of(self, matched: str) -> str:
        return self.kinds.get(_key(matched)) or term_kind(matched)


def _spellings(terms: Iterable[str]) -> dict[str, str]:
    """Each spelling of each term and its kind (the first term to give a spelling names its kind)."""
    spellings: dict[str, str] = {}
    for raw in list(terms)[:MAX_TERMS]:
        term = raw.strip()[:MAX_TERM_CHARS]
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
    return spellings


def compile_terms(terms: Iterable[str]) -> TermPattern | None:
    """One pattern matching any spelling of the terms (the longest that fits at a position), or None."""
    root = _Node()
    kinds: dict[str, str] = {}
    for spelling, kind in sorted(_spellings(terms).items(), key=lambda item: -len(item[0])):
        units = _units(spelling)
        if units is None:
            continue
        kinds.setdefault("".join(u for u in units if u != _SEP_UNIT), kind)
        node = root
        node.longest = max(node.longest, len(units))
        for i, unit in enumerate(units):
            node = node.children.setdefault(unit, _Node())
            node.longest = max(node.longest, len(units) - i - 1)
        node.end = True
    if not root.children:
        return None
    return TermPattern(re.compile(_TERM_START + _node_pattern(root), re.IGNORECASE), kinds)


def _replace_terms(compiled: TermPattern, text: str, counts: Counter[str]) -> str:
    def one(match: re.Match[str]) -> str:
        kind = compiled.kind_of(match.group())
        counts[kind] += 1
        return MARKERS[kind]

    return _outside_markers(text, lambda piece: compiled.pattern.sub(one, piece))


def redact(text: str, terms: Iterable[str] = ()) -> Redacted:
    """`text` with PHI replaced by markers, and how many of each kind were placed."""
    counts: Counter[str] = Counter()
    text = _replace(_EMAIL, "email", text, counts)
    compiled = compile_terms(terms)
    if compiled is not None:
        text = _replace_terms(compiled, text, counts)
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
