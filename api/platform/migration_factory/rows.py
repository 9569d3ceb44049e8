"""Reading an old system's export into migration rows (pure: bytes in, rows and refusals out).

Two kinds of export, each a CSV (comma, tab, semicolon or pipe) whose first line is the header:

- ``denials``: one open denial per line: claim key, payer, denied amount, billed amount (required);
  denial date, service date, CARC, group code, payer claim number, status (optional).
- ``open_ar``: one open receivable per line: claim key, payer, billed amount, service date (required);
  balance, payer claim number, status (optional).

Headers are matched through explicit synonyms (case, spaces and punctuation ignored). A column the
kind does not know is ignored and never stored (patient names, member ids and birth dates an export
may carry never enter the platform); its header is listed. A missing required column is
INVALID_INPUT naming the column and its accepted headers. Each line is validated on its own: a
refused line says its row number (the header is row 1), the field and why, never the value.

Reading is linear in the file and bounded (``ExportLimits``, from the MIGRATION_* settings): the
header line and every record have a length cap, checked as the physical lines are handed to the csv
reader (so one line of a million delimiters never becomes a million cells), and the data lines a
count cap. The delimiter is the one that splits the first lines consistently
(``pipelines.ingest.detect.delimiter_of``, one csv pass per candidate), never csv.Sniffer, whose
regexes are quadratic on a long header line.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from api.core.errors import InvalidInput
from pipelines.ingest.detect import delimiter_of

if TYPE_CHECKING:
    from _csv import _reader as _csv_reader

KINDS = ("denials", "open_ar")
# The defaults of the MIGRATION_* settings (api.core.settings), for callers without settings.
MAX_ROWS = 10_000
MAX_HEADER_CHARS = 8_192
MAX_LINE_CHARS = 16_384
#: How much of the file the delimiter is chosen from.
_DETECT_CHARS = 64 * 1024
MAX_AMOUNT = Decimal("999999999.99")
CENT = Decimal("0.01")
GROUP_CODES = frozenset({"CO", "PR", "OA", "PI", "CR"})

#: field -> accepted headers (normalized: lower case, runs of other characters as one '_').
SYNONYMS: dict[str, tuple[str, ...]] = {
    "claimKey": (
        "claim_key",
        "claim_number",
        "claim_no",
        "claim_id",
        "account_number",
        "account_no",
        "patient_control_number",
        "pcn",
        "encounter_number",
    ),
    "payer": ("payer", "payer_name", "insurance", "insurer", "carrier", "plan_name"),
    "deniedAmount": ("denied_amount", "amount_denied", "denial_amount", "amount_at_stake"),
    "billedAmount": ("billed_amount", "billed", "total_charge", "total_charges", "charges", "charge_amount"),
    "balance": ("balance", "open_balance", "balance_due", "outstanding", "ar_balance"),
    "deniedOn": ("denial_date", "denied_on", "date_denied", "remit_date", "remittance_date"),
    "serviceDate": ("service_date", "date_of_service", "dos", "from_date", "statement_from"),
    "carc": ("carc", "reason_code", "denial_code", "adjustment_reason_code"),
    "groupCode": ("group_code", "group", "adjustment_group", "cas_group"),
    "payerClaimNumber": ("payer_claim_number", "icn", "payer_icn", "payer_claim_id"),
    "status": ("status", "claim_status", "denial_status", "ar_status"),
}

REQUIRED: dict[str, tuple[str, ...]] = {
    "denials": ("claimKey", "payer", "deniedAmount", "billedAmount"),
    "open_ar": ("claimKey", "payer", "billedAmount", "serviceDate"),
}
OPTIONAL: dict[str, tuple[str, ...]] = {
    "denials": ("deniedOn", "serviceDate", "carc", "groupCode", "payerClaimNumber", "status"),
    "open_ar": ("balance", "payerClaimNumber", "status"),
}

#: What the old system's status means here: a case state (denials) or a claim state (open A/R).
#: ``None``: the line is closed work, which is not migrated.
STATUS_MEANING: dict[str, dict[str, str | None]] = {
    "denials": {
        **dict.fromkeys(("", "open", "new", "pending", "unworked"), "open"),
        **dict.fromkeys(("triaged", "in_review", "working", "in_progress"), "triaged"),
        **dict.fromkeys(("appealed", "in_appeal", "appeal_submitted"), "in_appeal"),
        **dict.fromkeys(("awaiting_payer", "pending_payer"), "awaiting_payer"),
        **dict.fromkeys(("closed", "won", "lost", "paid", "written_off", "resolved", "overturned", "upheld"), None),
    },
    "open_ar": {
        **dict.fromkeys(("", "open", "pending", "submitted", "unpaid", "billed", "outstanding"), "submitted"),
        "denied": "adjudicated_denied",
        **dict.fromkeys(("partially_paid", "partial"), "adjudicated_partially_paid"),
        **dict.fromkeys(("paid", "closed", "written_off", "void", "voided"), None),
    },
}

_CLAIM_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,79}$")
_PAYER_BAD = re.compile(r"[*~^:\x00-\x1f]")
_CARC = re.compile(r"^(?:(CO|PR|OA|PI|CR)[- ]?)?([A-Z]?\d{1,3})$")
_REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,79}$")
_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%Y%m%d")


@dataclass(frozen=True)
class Refusal:
    """Why a line cannot be migrated: the field (camelCase, as in the row's values) and the reason."""

    field: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "reason": self.reason}


@dataclass(frozen=True)
class ParsedRow:
    """One data line: its row number in the file, its normalized values (text), its refusals."""

    row_number: int
    values: dict[str, str]
    refusals: tuple[Refusal, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.refusals


@dataclass(frozen=True)
class ParsedExport:
    kind: str
    rows: tuple[ParsedRow, ...]
    columns: dict[str, str] = field(default_factory=dict)  # field -> the header it was read from
    ignored_columns: tuple[str, ...] = ()


def normalize_header(header: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", header.strip().lower()).strip("_")


def _decode(content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidInput("Invalid input: 'file' is not UTF-8 text (export the file as UTF-8 CSV)") from None


@dataclass(frozen=True)
class ExportLimits:
    """How big an export may be: the header line and any one record in characters (a record's physical
    lines together), and the data lines. Each cap names its setting in the refusal."""

    header_chars: int = MAX_HEADER_CHARS
    line_chars: int = MAX_LINE_CHARS
    rows: int = MAX_ROWS


class _CappedLines:
    """The text's physical lines, as the csv reader asks for them, refusing a record (the lines read
    since the last `next_record()`) longer than the current cap: linear, and no cell list can grow
    beyond the cap whatever the file holds."""

    def __init__(self, text: str, limits: ExportLimits) -> None:
        self._lines: Iterator[str] = iter(io.StringIO(text, newline=""))
        self._limits = limits
        self._cap, self._setting, self._what = limits.header_chars, "MIGRATION_MAX_HEADER_CHARS", "the header line"
        self._used = 0
        self._read = 0  # physical lines handed out

    def __iter__(self) -> _CappedLines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self._read += 1
        self._used += len(line) - _ending(line)  # the line break is not a character of the line
        if self._used > self._cap:
            raise InvalidInput(
                f"Invalid input: {self._what} of 'file' is longer than {self._cap} characters "
                f"({self._setting}); export only the columns the migration reads"
            )
        return line

    def next_record(self) -> None:
        """The record read so far is complete: the next one starts from zero, under the line cap."""
        self._used = 0
        self._cap, self._setting = self._limits.line_chars, "MIGRATION_MAX_LINE_CHARS"
        self._what = f"line {self._read + 1}"


def _ending(line: str) -> int:
    return 2 if line.endswith("\r\n") else 1 if line.endswith(("\n", "\r")) else 0


def _delimiter(text: str) -> str:
    """The delimiter that splits the first lines consistently (comma when none does)."""
    head = text[:_DETECT_CHARS]
    lines = head.splitlines()
    if len(text) > len(head) and len(lines) > 1:
        lines = lines[:-1]  # the last line of a prefix may be cut
    return delimiter_of(lines) or ","


def _columns(kind: str, header: list[str]) -> tuple[dict[str, int], tuple[str, ...]]:
    """field -> index of its column, and the headers ignored; INVALID_INPUT for a missing or doubled column."""
    wanted = REQUIRED[kind] + OPTIONAL[kind]
    by_header = {synonym: name for name in wanted for synonym in SYNONYMS[name]}
    found: dict[str, int] = {}
    ignored: list[str] = []
    for index, raw in enumerate(header):
        name = by_header.get(normalize_header(raw))
        if name is None:
            if raw.strip():
                ignored.append(raw.strip()[:80])
            continue
        if name in found:
            raise InvalidInput(
                f"Invalid input: the file has two '{name}' columns "
                f"('{header[found[name]].strip()}' and '{raw.strip()}'); keep one"
            )
        found[name] = index
    for name in REQUIRED[kind]:
        if name not in found:
            raise InvalidInput(
                f"Invalid input: the file has no '{name}' column, which a '{kind}' export needs "
                f"(accepted headers: {', '.join(SYNONYMS[name])})"
            )
    return found, tuple(ignored)


def parse_export(
    kind: str, content: bytes, *, known_carcs: Iterable[str] | None = None, limits: ExportLimits | None = None
) -> ParsedExport:
    """Every data line of the export with its values and refusals (duplicates included).

    INVALID_INPUT for a file that cannot be read as a whole: unknown kind, not UTF-8, not CSV, no
    header, a missing required column, no data line, a header line or a line over its length cap,
    more data lines than the cap."""
    if kind not in KINDS:
        raise InvalidInput(f"Invalid input: 'kind' must be one of {', '.join(KINDS)}")
    limits = limits or ExportLimits()
    text = _decode(content)
    if "\x00" in text:
        raise InvalidInput("Invalid input: 'file' is not a text CSV (it contains NUL bytes)")
    lines = _CappedLines(text, limits)
    reader = csv.reader(lines, delimiter=_delimiter(text))
    try:
        header = next(reader, None)
        lines.next_record()
        if header is None or not any(cell.strip() for cell in header):
            raise InvalidInput("Invalid input: 'file' is empty; the first line must be the header")
        columns, ignored = _columns(kind, header)
        carcs = frozenset(c.upper() for c in known_carcs) if known_carcs is not None else None
        rows = _read_rows(kind, reader, lines, columns, len(header), carcs, limits.rows)
    except csv.Error:
        raise InvalidInput(f"Invalid input: 'file' is not readable CSV at line {reader.line_num}") from None
    if not rows:
        raise InvalidInput("Invalid input: 'file' has a header but no data line")
    named = {name: header[index].strip() for name, index in columns.items()}
    return ParsedExport(kind, mark_duplicates(rows), named, ignored)


def _read_rows(
    kind: str,
    reader: _csv_reader,
    lines: _CappedLines,
    columns: Mapping[str, int],
    width: int,
    carcs: frozenset[str] | None,
    max_rows: int,
) -> list[ParsedRow]:
    rows: list[ParsedRow] = []
    for cells in reader:
        lines.next_record()
        if not any(cell.strip() for cell in cells):
            continue
        if len(rows) >= max_rows:
            raise InvalidInput(
                f"Invalid input: 'file' has more than {max_rows} data lines (MIGRATION_MAX_ROWS); split the export"
            )
        rows.append(read_row(kind, reader.line_num, cells, columns, width, carcs))
    return rows


def read_row(
    kind: str,
    row_number: int,
    cells: list[str],
    columns: Mapping[str, int],
    width: int,
    known_carcs: frozenset[str] | None = None,
) -> ParsedRow:
    """One line's values and refusals (pure)."""
    raw = {name: (cells[i].strip() if i < len(cells) else "") for name, i in columns.items()}
    values: dict[str, str] = {}
    refusals: list[Refusal] = []
    if len(cells) > width:
        refusals.append(Refusal("row", "has more cells than the header has columns"))
    for name, cell in raw.items():
        value, why = _read_value(kind, name, cell, known_carcs)
        if why is not None:
            refusals.append(Refusal(name, why))
        elif value:
            values[name] = value
    refusals.extend(_cross_checks(values, {r.field for r in refusals}))
    if "carc" in values and "-" in values["carc"]:
        group, _, carc = values["carc"].partition("-")
        values["carc"] = carc
        if "groupCode" in values and values["groupCode"] != group:
            refusals.append(Refusal("groupCode", "differs from the group given with the CARC"))
        values.setdefault("groupCode", group)
    return ParsedRow(row_number, values, tuple(refusals))


def _read_value(kind: str, name: str, cell: str, known_carcs: frozenset[str] | None) -> tuple[str, str | None]:
    """(normalized text, None) or ("", why it is refused); an empty optional cell is ("", None)."""
    if not cell:
        return "", ("is empty" if name in REQUIRED[kind] else None)
    if name == "claimKey":
        return (cell, None) if _CLAIM_KEY.match(cell) else ("", "is not a claim key (letters, digits, . _ / - )")
    if name == "payer":
        return (cell, None) if len(cell) <= 200 and not _PAYER_BAD.search(cell) else ("", "is not a payer name")
    if name == "payerClaimNumber":
        return (cell, None) if _REFERENCE.match(cell) else ("", "is not a payer claim number")
    if name in ("deniedAmount", "billedAmount", "balance"):
        return _read_amount(cell, positive=name == "deniedAmount")
    if name in ("deniedOn", "serviceDate"):
        return _read_date(cell)
    if name == "groupCode":
        code = cell.upper()
        return (code, None) if code in GROUP_CODES else ("", f"must be one of {', '.join(sorted(GROUP_CODES))}")
    if name == "carc":
        return _read_carc(cell, known_carcs)
    return _read_status(kind, cell)


def parse_amount(cell: str) -> Decimal:
    """A money cell as a Decimal with 2 places ("1,234.50", "$80", "80.5"); ValueError with why."""
    text = cell.replace(",", "").replace("$", "").strip()
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise ValueError("is not an amount") from None
    if not amount.is_finite():
        raise ValueError("is not an amount")
    if amount < 0:
        raise ValueError("is negative; amounts are 0.00 or more")
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2:
        raise ValueError("has more than 2 decimal places")
    if amount > MAX_AMOUNT:
        raise ValueError(f"is more than {MAX_AMOUNT}")
    return amount.quantize(CENT)


def _read_amount(cell: str, *, positive: bool) -> tuple[str, str | None]:
    try:
        amount = parse_amount(cell)
    except ValueError as why:
        return "", str(why)
    if positive and amount == 0:
        return "", "must be more than 0.00"
    return f"{amount:.2f}", None


def parse_date(cell: str) -> date:
    """YYYY-MM-DD, MM/DD/YYYY or YYYYMMDD; ValueError otherwise."""
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cell, fmt).date()
        except ValueError:
            continue
    raise ValueError("is not a date (use YYYY-MM-DD, MM/DD/YYYY or YYYYMMDD)")


def _read_date(cell: str) -> tuple[str, str | None]:
    try:
        return parse_date(cell).isoformat(), None
    except ValueError as why:
        return "", str(why)


def _read_carc(cell: str, known_carcs: frozenset[str] | None) -> tuple[str, str | None]:
    found = _CARC.match(cell.upper())
    if found is None:
        return "", "is not a CARC (e.g. 50, CO-50)"
    group, carc = found.group(1), found.group(2)
    if known_carcs is not None and carc not in known_carcs:
        return "", "is not a known CARC"
    return (f"{group}-{carc}" if group else carc), None


def _read_status(kind: str, cell: str) -> tuple[str, str | None]:
    meaning = STATUS_MEANING[kind]
    status = normalize_header(cell)
    if status not in meaning:
        return "", f"is not a known status (known: {', '.join(sorted(s for s in meaning if s))})"
    if meaning[status] is None:
        return "", "is closed work; only open denials and open A/R are migrated"
    return status, None


def _cross_checks(values: Mapping[str, str], refused: set[str]) -> list[Refusal]:
    out: list[Refusal] = []
    billed = Decimal(values["billedAmount"]) if "billedAmount" in values else None
    if billed is not None and "deniedAmount" in values and Decimal(values["deniedAmount"]) > billed:
        out.append(Refusal("deniedAmount", "is more than 'billedAmount'"))
    if billed is not None and "balance" in values and Decimal(values["balance"]) > billed:
        out.append(Refusal("balance", "is more than 'billedAmount'"))
    if "deniedOn" in values and "serviceDate" in values and values["deniedOn"] < values["serviceDate"]:
        out.append(Refusal("deniedOn", "is before 'serviceDate'"))
    return out


def mark_duplicates(rows: Iterable[ParsedRow]) -> tuple[ParsedRow, ...]:
    """A claim key seen on an earlier line refuses the later line (one line per claim per export)."""
    first: dict[str, int] = {}
    out: list[ParsedRow] = []
    for row in rows:
        key = row.values.get("claimKey")
        if key is not None and key in first:
            why = Refusal("claimKey", f"repeats the claim of row {first[key]}; one line per claim")
            out.append(ParsedRow(row.row_number, row.values, (*row.refusals, why)))
            continue
        if key is not None:
            first[key] = row.row_number
        out.append(row)
    return tuple(out)


def case_state_of(status: str | None) -> str:
    """The case state a denials line's status opens the case in."""
    state = STATUS_MEANING["denials"].get(status or "")
    assert state is not None  # closed statuses are refused when read
    return state


def claim_state_of(kind: str, status: str | None) -> str:
    """The state a new claim of this line is created in."""
    if kind == "denials":
        return "adjudicated_denied"
    state = STATUS_MEANING["open_ar"].get(status or "")
    assert state is not None
    return state
