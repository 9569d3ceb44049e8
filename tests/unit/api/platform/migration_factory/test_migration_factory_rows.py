"""Reading an old system's export: header synonyms, per-line validation, duplicates, whole-file errors.

Every expected outcome is written by hand here, from the rules in the module docstring."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.core.errors import InvalidInput
from api.platform.migration_factory.rows import parse_amount, parse_date, parse_export

HEADER = "Claim Number,Payer,Denied Amount,Billed Amount,Denial Date,Service Date,CARC,Group Code,Status"


def _read(*lines: str, kind: str = "denials", header: str = HEADER, carcs=("50", "16", "45")):
    return parse_export(kind, "\n".join([header, *lines]).encode(), known_carcs=carcs)


def _refusals(row) -> dict[str, str]:
    return {r.field: r.reason for r in row.refusals}


def test_a_good_denials_line_is_read_and_normalized():
    parsed = _read('PCN-1,Acme Health,"$1,200.5",2000.00,03/15/2026,2026-03-01,co-50,,appealed')
    (row,) = parsed.rows
    assert row.row_number == 2  # the header is row 1
    assert row.valid
    assert row.values == {
        "claimKey": "PCN-1",
        "payer": "Acme Health",
        "deniedAmount": "1200.50",
        "billedAmount": "2000.00",
        "deniedOn": "2026-03-15",
        "serviceDate": "2026-03-01",
        "carc": "50",
        "groupCode": "CO",
        "status": "appealed",
    }
    assert parsed.columns["claimKey"] == "Claim Number"


def test_bad_and_negative_amounts_are_refused_with_row_and_field():
    parsed = _read(
        "PCN-1,Acme,abc,100.00,,,,,",
        "PCN-2,Acme,-5.00,100.00,,,,,",
        "PCN-3,Acme,5.001,100.00,,,,,",
        "PCN-4,Acme,0.00,100.00,,,,,",
    )
    assert [(r.row_number, _refusals(r)) for r in parsed.rows] == [
        (2, {"deniedAmount": "is not an amount"}),
        (3, {"deniedAmount": "is negative; amounts are 0.00 or more"}),
        (4, {"deniedAmount": "has more than 2 decimal places"}),
        (5, {"deniedAmount": "must be more than 0.00"}),
    ]


def test_an_unknown_date_format_is_refused():
    (row,) = _read("PCN-1,Acme,10.00,100.00,15.03.2026,,,,").rows
    assert _refusals(row) == {"deniedOn": "is not a date (use YYYY-MM-DD, MM/DD/YYYY or YYYYMMDD)"}


def test_codes_statuses_and_cross_checks():
    parsed = _read(
        "PCN-1,Acme,10.00,100.00,,,999,,",  # not a known CARC
        "PCN-2,Acme,10.00,100.00,,,50,XX,",  # no such group
        "PCN-3,Acme,10.00,100.00,,,PR-50,CO,",  # the CARC's group and the group column disagree
        "PCN-4,Acme,10.00,100.00,,,,,won",  # closed work
        "PCN-5,Acme,10.00,100.00,,,,,frozen",  # unknown status
        "PCN-6,Acme,150.00,100.00,,,,,",  # denied more than billed
        "PCN-7,Acme,10.00,100.00,2026-01-01,2026-02-01,,,",  # denied before the service
    )
    got = [_refusals(r) for r in parsed.rows]
    assert got[0] == {"carc": "is not a known CARC"}
    assert got[1] == {"groupCode": "must be one of CO, CR, OA, PI, PR"}
    assert got[2] == {"groupCode": "differs from the group given with the CARC"}
    assert got[3] == {"status": "is closed work; only open denials and open A/R are migrated"}
    assert set(got[4]) == {"status"} and got[4]["status"].startswith("is not a known status")
    assert got[5] == {"deniedAmount": "is more than 'billedAmount'"}
    assert got[6] == {"deniedOn": "is before 'serviceDate'"}


def test_a_duplicate_claim_in_the_file_refuses_the_later_line():
    parsed = _read("PCN-1,Acme,10.00,100.00,,,,,", "PCN-2,Acme,10.00,100.00,,,,,", "PCN-1,Beta,20.00,100.00,,,,,")
    assert [r.valid for r in parsed.rows] == [True, True, False]
    assert _refusals(parsed.rows[2]) == {"claimKey": "repeats the claim of row 2; one line per claim"}


def test_unknown_columns_are_dropped_and_listed_never_stored():
    parsed = _read(
        "PCN-1,Jane Doe,Acme,10.00,100.00", header="Account Number,Patient Name,Insurance,Amount Denied,Charges"
    )
    assert parsed.ignored_columns == ("Patient Name",)
    assert "Jane Doe" not in repr(parsed.rows)


def test_refusals_never_echo_the_value():
    (row,) = _read("PCN-1,Acme,JaneDoe123,100.00,JaneDoe,,,,").rows
    assert "JaneDoe" not in repr(row.refusals)


def test_a_missing_required_column_is_invalid_input_naming_it():
    with pytest.raises(InvalidInput) as raised:
        _read("PCN-1,Acme,100.00", header="Claim Number,Payer,Billed Amount")
    assert "'deniedAmount'" in str(raised.value) and "denied_amount" in str(raised.value)


def test_open_ar_needs_a_service_date_column_and_reads_balances():
    with pytest.raises(InvalidInput, match="'serviceDate'"):
        _read("PCN-1,Acme,100.00", kind="open_ar", header="claim_no,payer,billed")
    parsed = _read(
        "PCN-1|Acme|100.00|2026-01-02|40.00|pending",
        "PCN-2|Acme|100.00|2026-01-02|140.00|",
        "PCN-3|Acme|100.00|2026-01-02||paid",
        kind="open_ar",
        header="claim_no|payer|billed|dos|balance|status",
    )
    assert parsed.rows[0].valid and parsed.rows[0].values["balance"] == "40.00"
    assert _refusals(parsed.rows[1]) == {"balance": "is more than 'billedAmount'"}
    assert _refusals(parsed.rows[2]) == {"status": "is closed work; only open denials and open A/R are migrated"}


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "empty"),
        (b"\xff\xfe\x00bad", "UTF-8"),
        (HEADER.encode() + b"\n", "no data line"),
        (b"claim,payer,claim_id,denied,billed\nA,B,C,1,2", "two 'claimKey' columns"),
    ],
)
def test_a_file_that_cannot_be_read_as_a_whole_is_invalid_input(content, why):
    with pytest.raises(InvalidInput, match=why):
        parse_export("denials", content.replace(b"claim,", b"claim_key,"))


def test_an_unknown_kind_is_invalid_input():
    with pytest.raises(InvalidInput, match="'kind'"):
        parse_export("payments", b"a\n1")


def test_a_line_with_more_cells_than_the_header_is_refused():
    (row,) = _read("PCN-1,Acme,10.00,100.00,,,,,,extra").rows
    assert _refusals(row) == {"row": "has more cells than the header has columns"}


@given(st.decimals(min_value=0, max_value=Decimal("999999999.99"), places=2))
def test_amounts_round_trip(amount):
    assert parse_amount(f"{amount:.2f}") == amount
    assert parse_amount(f"${amount:,.2f}") == amount


def test_dates_in_the_three_formats():
    assert {parse_date(s).isoformat() for s in ("2026-03-15", "03/15/2026", "20260315")} == {"2026-03-15"}
