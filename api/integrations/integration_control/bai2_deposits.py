"""A bank's BAI2 balance-and-transaction file -> the deposits CSV the pipeline already reads (pure).

Sources: BAI, *Cash Management Balance Reporting Specifications, Version 2* (2005; "BAI2"):
record 01 file header, 02 group header (as-of date, currency), 03 account identifier, 16
transaction detail (type code, amount, funds type, bank reference, customer reference, text),
88 continuation, 49 account trailer, 98 group trailer, 99 file trailer; appendix A, the type codes.
Parsing is the `bai2` library's (0.15.0): it rebuilds records from their 88 continuations and checks
every control total and record count (49-01/02, 98-01/02/03, 99-01/02/03); this module decides what
a deposit is and how it reaches `stg_exports__deposits` (columns: `pipelines/ingest/tabular/
entities.py` DEPOSIT; a drop-folder CSV is told a deposit file by that header, `headers.detect_header`).

Decisions (the three-way match is `dbt_project/models/marts/fct_bank_deposits.sql`, which joins a
deposit's `trace_number` to the 835's TRN02 and compares the deposit to the positive BPR02):

- **Deposits** are credit details of the type codes in `DEPOSIT_TYPE_CODES`: how an 835 payment
  arrives (BPR04 ACH -> 142/165/169, CHK -> 115/175/301, FWT -> 195). Other credits (interest 354,
  miscellaneous 399, the items inside a deposit 116/143 that would count it twice, ...) are
  counted in the summary and not written: the mart would report each as a deposit without an ERA.
- **Debits are not written** (counted): the mart matches deposits only to remittances that move
  money to the bank (BPR02 > 0); a returned or reversed payment is not a negative deposit there.
- **Zero amounts are not written** (counted): a zero credit moves no money and would only add a
  `deposit_without_era` row.
- **Unknown type codes** (not in BAI2 appendix A, nor the library's table) are counted by code and
  never deposits; the file is still read, since their amounts still add into the control totals.
- **Trace number**: the ACH CCD+ addenda of a health care payment carries the X12 TRN segment
  (`TRN*1*<TRN02>*<TRN03>\\`, NACHA Operating Rules, Health Care EFT "reassociation"); banks pass it in
  the 16 record's text, often over 88 continuations. Its TRN02 is the trace number when present
  (`trace_source=trn`); else the customer reference number (16 field 5, where lockbox and wire
  payments carry the payer's check / reference number) (`customer_reference`); else the bank
  reference (`bank_reference`), which only the bank knows and so will not match an 835 (reported).
- **Amounts** are whole cents without a decimal point (BAI2 "Amount" field); a group's currency
  must be USD (02 field 6, blank = the bank's default, taken as USD): the marts are in dollars.
- **Date** is the group's as-of date (02 field 4): the day the bank reports the credit.
- A file whose control totals or counts do not add up, or that cannot be parsed, is refused whole
  with InvalidInput naming the record: nothing is half-imported.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, ClassVar

from bai2 import parsers as bai2_parsers
from bai2.constants import TypeCode, TypeCodes, TypeCodeTransaction
from bai2.exceptions import IntegrityException, NotSupportedYetException, ParsingException
from bai2.helpers import IteratorHelper

from api.core.errors import InvalidInput

#: Input cap: a day's BAI2 for a hospital is kilobytes; 20 MiB is thousands of accounts.
MAX_BAI2_BYTES = 20 * 1024 * 1024
#: Physical records (lines) cap, checked before parsing.
MAX_BAI2_LINES = 500_000

#: BAI2 appendix A detail credit codes that are a payer's payment reaching the account.
DEPOSIT_TYPE_CODES: dict[str, str] = {
    "115": "Lockbox Deposit",
    "142": "ACH Credit Received",
    "165": "Preauthorized ACH Credit",
    "169": "Miscellaneous ACH Credit",
    "175": "Check Deposit Package",
    "195": "Incoming Money Transfer",
    "301": "Commercial Deposit",
}

#: The deposits CSV header: the canonical DEPOSIT field names, which header detection maps as-is.
DEPOSIT_COLUMNS = ("deposit_date", "amount", "trace_number", "account_last4", "payer_name", "description")

# TRN*1*<TRN02>[*<TRN03>[*<TRN04>]]: TRN01 = 1 (current transaction trace numbers), TRN02 up to 50
# characters (X12 835 TR3 1000A/header TRN). The element separator in an addenda is '*'.
_TRN = re.compile(r"TRN\*1\*([A-Za-z0-9\-]{1,50})")
_MAX_DESCRIPTION = 200
_MAX_TRACE = 50


@dataclass(frozen=True, slots=True)
class Deposit:
    """One row of the deposits CSV."""

    deposit_date: date
    amount_cents: int
    trace_number: str
    trace_source: str
    account_last4: str
    description: str


@dataclass(slots=True)
class Summary:
    """What the file held, for the run record (no account numbers, no text)."""

    groups: int = 0
    accounts: int = 0
    details: int = 0
    deposits: int = 0
    deposit_cents: int = 0
    other_credits: int = 0
    other_credit_cents: int = 0
    debits: int = 0
    debit_cents: int = 0
    zero_amount: int = 0
    non_monetary: int = 0
    unknown_type_codes: dict[str, int] = field(default_factory=dict)
    trace_sources: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _UnknownCode:
    """A type code neither BAI2 appendix A nor the library knows."""

    code: str


def _tolerant_type_code(value: str) -> TypeCode | _UnknownCode:
    known = TypeCodes.get(value)
    if known is not None:
        return known
    if not (len(value) == 3 and value.isdigit()):
        raise InvalidInput(f"BAI2 16 record: type code {value[:10]!r} is not three digits")
    return _UnknownCode(value)


# The library raises on a type code it does not know; these subclasses only swap that lookup, so
# structure, continuations and every integrity check stay the library's.
class _DetailParser(bai2_parsers.TransactionDetailParser):  # type: ignore[misc]  # the library is untyped
    head_fields_config: ClassVar[list[tuple[str, Any]]] = [
        ("type_code", _tolerant_type_code),
        ("amount", int),
        ("funds_type", bai2_parsers.FundsType),
    ]


class _AccountIdentifierParser(bai2_parsers.AccountIdentifierParser):  # type: ignore[misc]  # the library is untyped
    summary_fields_config: ClassVar[list[tuple[str, Any]]] = [
        ("type_code", _tolerant_type_code),
        ("amount", int),
        ("item_count", int),
        ("funds_type", bai2_parsers.FundsType),
    ]


class _AccountParser(bai2_parsers.AccountParser):  # type: ignore[misc]  # the library is untyped
    header_parser_class = _AccountIdentifierParser
    child_parser_class = _DetailParser


class _GroupParser(bai2_parsers.GroupParser):  # type: ignore[misc]  # the library is untyped
    child_parser_class = _AccountParser


class _FileParser(bai2_parsers.Bai2FileParser):  # type: ignore[misc]  # the library is untyped
    child_parser_class = _GroupParser


def _lines(data: bytes) -> list[str]:
    if len(data) > MAX_BAI2_BYTES:
        raise InvalidInput(f"BAI2 file is {len(data)} bytes; at most {MAX_BAI2_BYTES} are read")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"BAI2 file is not ASCII text (byte {exc.start})") from None
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise InvalidInput("BAI2 file is empty")
    if len(lines) > MAX_BAI2_LINES:
        raise InvalidInput(f"BAI2 file has {len(lines)} records; at most {MAX_BAI2_LINES} are read")
    if not lines[0].startswith("01,"):
        raise InvalidInput("BAI2 file does not start with a 01 file header record")
    if not lines[-1].startswith("99,"):
        raise InvalidInput("BAI2 file does not end with a 99 file trailer record (truncated?)")
    return lines


def _parse(lines: list[str]) -> Any:
    """The library's file model, or InvalidInput naming what failed (the library's message names
    the record kind and the expected and found totals; no account data is in it)."""
    try:
        return _FileParser(IteratorHelper(iter(lines)), check_integrity=True).parse()
    except InvalidInput:
        raise
    except IntegrityException as exc:
        raise InvalidInput(
            f"BAI2 control totals do not add up, the file is refused whole: {_named(str(exc))}"
        ) from None
    except NotSupportedYetException as exc:
        raise InvalidInput(f"BAI2 file not supported: {exc}") from None
    except ParsingException as exc:
        raise InvalidInput(f"BAI2 file structure: {exc}") from None
    # Malformed fields reach the library as int()/strptime()/Enum lookups and list indexing; the
    # messages of those may quote a value, so only the kind of fault is said.
    except (ValueError, IndexError, KeyError, TypeError, AttributeError, StopIteration, RuntimeError) as exc:
        raise InvalidInput(f"BAI2 file is malformed ({type(exc).__name__}) near {_where(exc)}") from None


# The library names its model classes; a reader of the error knows the record codes.
_RECORDS = {
    "for Account.": "in a 49 account trailer:",
    "for Group.": "in a 98 group trailer:",
    "for Bai2File.": "in the 99 file trailer:",
}


def _named(message: str) -> str:
    for model, record in _RECORDS.items():
        message = message.replace(model, record)
    return message


def _where(exc: BaseException) -> str:
    tb = exc.__traceback__
    names: list[str] = []
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        model = getattr(owner, "model", None)
        code = getattr(model, "code", None)
        if code is not None:
            names.append(str(code.value))
        tb = tb.tb_next
    return f"a {names[-1]} record" if names else "the record structure"


def _text_of(value: object) -> str:
    return " ".join(str(value or "").split())


def _trace(detail: Any) -> tuple[str, str]:
    text = _text_of(detail.text)
    found = _TRN.search(text)
    if found:
        return found.group(1), "trn"
    customer = _text_of(detail.customer_reference)
    if customer:
        return customer[:_MAX_TRACE], "customer_reference"
    return _text_of(detail.bank_reference)[:_MAX_TRACE], "bank_reference"


def _classify(detail: Any, summary: Summary) -> bool:
    """Counts the detail in the summary; True when it is a deposit to write."""
    amount = int(detail.amount or 0)
    code = detail.type_code
    summary.details += 1
    if isinstance(code, _UnknownCode):
        summary.unknown_type_codes[code.code] = summary.unknown_type_codes.get(code.code, 0) + 1
        return False
    if code.transaction is TypeCodeTransaction.debit:
        summary.debits += 1
        summary.debit_cents += amount
        return False
    if code.transaction is not TypeCodeTransaction.credit:
        summary.non_monetary += 1
        return False
    if amount == 0:
        summary.zero_amount += 1
        return False
    if code.code not in DEPOSIT_TYPE_CODES:
        summary.other_credits += 1
        summary.other_credit_cents += amount
        return False
    return True


def _group_deposits(group: Any, summary: Summary) -> list[Deposit]:
    header = group.header
    currency = (header.currency or "USD").upper()
    if currency != "USD":
        raise InvalidInput(f"BAI2 02 record: currency {currency[:3]!r} is not USD; the marts are in US dollars")
    out: list[Deposit] = []
    for account in group.children:
        summary.accounts += 1
        number = _text_of(account.header.customer_account_number)
        for detail in account.children:
            if not _classify(detail, summary):
                continue
            trace, source = _trace(detail)
            summary.trace_sources[source] = summary.trace_sources.get(source, 0) + 1
            summary.deposits += 1
            summary.deposit_cents += int(detail.amount)
            out.append(
                Deposit(
                    deposit_date=header.as_of_date,
                    amount_cents=int(detail.amount),
                    trace_number=trace,
                    trace_source=source,
                    account_last4=number[-4:],
                    description=f"{DEPOSIT_TYPE_CODES[detail.type_code.code]} {_text_of(detail.text)}".strip()[
                        :_MAX_DESCRIPTION
                    ],
                )
            )
    return out


def read_deposits(data: bytes) -> tuple[list[Deposit], Summary]:
    """The deposits of a BAI2 file and what else it held; InvalidInput refuses the whole file."""
    model = _parse(_lines(data))
    summary = Summary()
    deposits: list[Deposit] = []
    for group in model.children:
        summary.groups += 1
        deposits.extend(_group_deposits(group, summary))
    summary.unknown_type_codes = dict(sorted(Counter(summary.unknown_type_codes).items()))
    return deposits, summary


def _dollars(cents: int) -> str:
    return str((Decimal(cents) / 100).quantize(Decimal("0.01")))


def to_deposits_csv(data: bytes) -> tuple[bytes, Summary]:
    """BAI2 bytes -> the deposits CSV (header `DEPOSIT_COLUMNS`, ISO dates, dollars with two
    places) that a drop folder or `ingestion.uploadCsv` reads as a deposit export, and the summary."""
    deposits, summary = read_deposits(data)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(DEPOSIT_COLUMNS)
    for d in deposits:
        writer.writerow(
            (d.deposit_date.isoformat(), _dollars(d.amount_cents), d.trace_number, d.account_last4, "", d.description)
        )
    return buffer.getvalue().encode("utf-8"), summary
