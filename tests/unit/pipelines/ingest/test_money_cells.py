"""`read_money`: the one reader of a stored money cell, and how each caller treats an empty or bad cell.

Semantics (pipelines/ingest/money.py): None or "" is empty (None); an amount (Decimal, int, float, or
text Decimal reads) is rounded half-even to the cent, its sign kept, -0 read as 0.00; anything else
(export formats such as "(5.00)" or "$1,234.50", blank text, booleans, NaN, infinities, 17+ integer
digits) is `BadMoneyCell`. Posting and the X12 row rules raise it; the claims intake records 0.00.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from api.denials.claims.intake import PostedRow, claims_from_837_rows
from api.money.ingestion.posting import RowView, plan_entries
from api.money.ingestion.rules import validate
from pipelines.ingest.money import CENT, MONEY_LIMIT, ZERO, BadMoneyCell, quantize, read_money

LARGEST = MONEY_LIMIT - CENT
stored_amounts = st.decimals(min_value=-LARGEST, max_value=LARGEST, places=2, allow_nan=False, allow_infinity=False)
any_amounts = st.decimals(min_value=-MONEY_LIMIT + 1, max_value=MONEY_LIMIT - 1, allow_nan=False, allow_infinity=False)


# --- the reader ------------------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [None, ""])
def test_an_empty_cell_reads_as_none(empty):
    assert read_money(empty) is None


@pytest.mark.parametrize(
    ("cell", "amount"),
    [
        ("150.00", "150.00"),
        ("150", "150.00"),
        (" 12.5 ", "12.50"),  # Decimal's own tolerance of surrounding whitespace
        ("-40.00", "-40.00"),  # negative stays negative: its meaning is the caller's
        ("+7", "7.00"),
        ("1E+2", "100.00"),  # str() of a Decimal may use an exponent
        ("1.005", "1.00"),  # half-even, as quantize
        ("1.015", "1.02"),
        ("-0", "0.00"),  # no signed zero
        ("-0.001", "0.00"),
        ("1e-999999999", "0.00"),
        (7, "7.00"),
        (0.1, "0.10"),  # a float by its shortest repr, never its binary expansion
        (2.675, "2.68"),
        (Decimal("99.999"), "100.00"),
        ("9999999999999999.99", "9999999999999999.99"),
    ],
)
def test_an_amount_reads_rounded_to_the_cent(cell, amount):
    read = read_money(cell)
    assert read == Decimal(amount)
    assert str(read) == amount  # the exact text too: two places, no sign on zero


@pytest.mark.parametrize(
    "cell",
    [
        "(5.00)",  # an accounting negative: read at upload by parse_money, never guessed here
        "$5.00",
        "1,234.50",
        "1.234,50",
        "5.00-",
        " ",  # blank text is not empty
        "abc",
        "NaN",
        "sNaN",
        "Infinity",
        "-inf",
        float("nan"),
        float("inf"),
        True,
        False,
        ["1.00"],
        {"amount": "1.00"},
        "1e16",
        10**16,
        "9999999999999999.995",  # rounds up past 16 integer digits
        "1e999999999",
        "-1e999999999999999999",
    ],
)
def test_anything_else_is_a_bad_cell_that_never_quotes_the_value(cell):
    with pytest.raises(BadMoneyCell) as raised:
        read_money(cell)
    assert "5.00" not in str(raised.value) and "1,234" not in str(raised.value)


@given(stored_amounts)
def test_a_stored_amount_reads_back_exactly_as_text_number_or_decimal(amount):
    # What the parsers store (jsonable: str of a Decimal(18, 2)) is read back unchanged.
    for cell in (amount, str(amount), f"{amount:.2f}"):
        assert read_money(cell) == amount
    assert str(read_money(str(amount))) == f"{amount + 0:.2f}"


@given(any_amounts)
@example(Decimal("0.005"))
@example(Decimal("-0.005"))
def test_any_amount_reads_as_quantize_reads_it(amount):
    read = read_money(str(amount))
    assert read == quantize(amount)
    assert read is not None and read.as_tuple().exponent == -2
    assert read_money(str(-amount)) == -read  # the sign is kept, half-even is symmetric


@given(st.integers(min_value=-(10**16) + 1, max_value=10**16 - 1))
def test_an_integer_reads_as_whole_money(number):
    assert read_money(number) == Decimal(number) == read_money(str(number))


@given(st.text(max_size=40))
@example("(1.00)")
@example("1_000")
def test_text_is_empty_an_amount_within_the_type_or_a_bad_cell_and_nothing_else(text):
    try:
        read = read_money(text)
    except BadMoneyCell:
        return
    if text == "":
        assert read is None
        return
    assert read is not None and read.as_tuple().exponent == -2 and abs(read) < MONEY_LIMIT
    assert read == quantize(Decimal(text))  # only what Decimal itself reads is an amount


@given(st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100000"), places=2))
def test_an_export_formatted_negative_is_never_read_as_either_sign(amount):
    for cell in (f"({amount})", f"${amount}", f"-${amount}", f"{amount}-"):
        with pytest.raises(BadMoneyCell):
            read_money(cell)


# --- the callers -----------------------------------------------------------------------------------

CLAIM = {
    "patient_control_number": "PCN1",
    "claim_status_code": "1",
    "total_charge": "100.00",
    "paid_amount": "70.00",
    "claim_level_adjustment_total": "0.00",
    "line_adjustment_total": "30.00",
    "payer_name": "ACME",
}


def test_posting_posts_an_empty_amount_as_zero_and_keeps_an_empty_billed_amount_unknown():
    plans = plan_entries([RowView(1, 1, "remittance_claim", {**CLAIM, "paid_amount": "", "total_charge": None})])
    assert [(p.entry_type, p.amount, p.billed_amount) for p in plans] == [("payment", ZERO, None)]


@pytest.mark.parametrize("cell", ["NaN", "abc", "(70.00)", "1e20"])
def test_posting_refuses_a_bad_amount_instead_of_posting_it(cell):
    # Before the one reader, "NaN" posted a NaN payment (Decimal("NaN").quantize is NaN): a bug.
    with pytest.raises(BadMoneyCell):
        plan_entries([RowView(1, 1, "remittance_claim", {**CLAIM, "paid_amount": cell})])


def test_the_row_rules_count_a_missing_amount_as_zero_and_refuse_a_bad_one():
    missing = {**CLAIM, "claim_level_adjustment_total": None, "paid_amount": ""}
    assert validate("remittance_claim", missing)[0].startswith(
        "claim_balance: total_charge - paid_amount (100.00) does not equal the CAS adjustments (30.00)"
    )
    assert validate("remittance_claim", {**CLAIM, "claim_level_adjustment_total": ""}) == []
    with pytest.raises(BadMoneyCell):
        validate("remittance_claim", {**CLAIM, "paid_amount": "NaN"})


def _claim_with_line(total: object, charge: object) -> list[PostedRow]:
    claim = {"patient_control_number": "C-1", "total_charge": total}
    line = {"procedure_code": "99213", "charge_amount": charge}
    return [PostedRow(1, 1, "claim", claim, None), PostedRow(2, 2, "claim_line", line, 1)]


@pytest.mark.parametrize(
    ("cell", "recorded"),
    [
        ("150.00", "150.00"),
        ("", "0.00"),
        (None, "0.00"),
        ("abc", "0.00"),
        ("NaN", "0.00"),  # a bug before the one reader: NaN was recorded as the charge
        ("Infinity", "0.00"),
        ("-0", "0.00"),
    ],
)
def test_the_claims_intake_records_an_empty_or_bad_charge_as_zero(cell, recorded):
    (claim,) = claims_from_837_rows(_claim_with_line(cell, cell), b"k" * 32)
    assert str(claim.total_charge) == recorded
    assert str(claim.lines[0]["charge"]) == recorded
