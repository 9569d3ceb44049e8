"""The contract pricing rules exist once, as the dbt macros in dbt_project/macros/contract_pricing.sql.
These tests render those very macros (plain Jinja: they call no other macro) and evaluate them in DuckDB,
against prices written by hand and against properties that must hold for any input."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import duckdb
import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.paths import REPO

_MACROS = jinja2.Environment().from_string((REPO / "dbt_project/macros/contract_pricing.sql").read_text()).module
_CON = duckdb.connect()


def price(method, rate=None, percent=None, units=1, days=None, charge="0", lesser_of=False) -> Decimal | None:
    """The macro's price for literal inputs (strings or None), evaluated by DuckDB."""

    def lit(value, sql_type):
        return "null" if value is None else f"cast('{value}' as {sql_type})"

    sql = _MACROS.contract_price(
        lit(method, "varchar"),
        lit(rate, "numeric(18, 4)"),
        lit(percent, "numeric(9, 4)"),
        lit(units, "numeric(18, 4)"),
        lit(days, "integer"),
        lit(charge, "numeric(18, 2)"),
        "true" if lesser_of else "false",
    )
    value = _CON.execute(f"select cast({sql} as numeric(18, 2))").fetchone()[0]
    return value


def in_effect(on: date, start: date | None, end: date | None) -> bool:
    def lit(d):
        return "null" if d is None else f"date '{d.isoformat()}'"

    return _CON.execute(f"select {_MACROS.term_in_effect(lit(on), lit(start), lit(end))}").fetchone()[0]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"method": "fee_schedule", "rate": "92.00", "units": "1", "charge": "150.00"}, "92.00"),
        ({"method": "fee_schedule", "rate": "3.3333", "units": "3", "charge": "50.00"}, "9.99"),  # 9.9999 truncated
        ({"method": "fee_schedule", "rate": "50.00", "units": "1", "charge": "30.00", "lesser_of": True}, "30.00"),
        ({"method": "fee_schedule", "rate": "50.00", "units": "1", "charge": "30.00"}, "50.00"),
        ({"method": "percent_of_charges", "percent": "60", "charge": "200.00"}, "120.00"),
        ({"method": "percent_of_charges", "percent": "62.5", "charge": "99.99"}, "62.49"),  # 62.49375
        ({"method": "drg_case_rate", "rate": "12000.00", "charge": "30000.00"}, "12000.00"),
        ({"method": "drg_case_rate", "rate": "12000.00", "charge": "9000.00", "lesser_of": True}, "9000.00"),
        ({"method": "per_diem", "rate": "1500.00", "days": 3, "charge": "9000.00"}, "4500.00"),
        ({"method": "per_diem", "rate": "1500.00", "days": 7, "charge": "9000.00", "lesser_of": True}, "9000.00"),
        ({"method": None, "rate": "1.00", "charge": "10.00"}, None),
    ],
)
def test_hand_prices(kwargs, expected):
    got = price(**kwargs)
    assert (None if got is None else str(got)) == expected


_cents = st.decimals(min_value=0, max_value=100_000, places=2)


@settings(max_examples=150, deadline=None)
@given(
    method=st.sampled_from(["fee_schedule", "percent_of_charges", "drg_case_rate", "per_diem"]),
    rate=_cents,
    percent=st.decimals(min_value=0, max_value=100, places=2),
    units=st.integers(min_value=1, max_value=20),
    days=st.integers(min_value=1, max_value=60),
    charge=_cents,
)
def test_lesser_of_never_exceeds_billed_and_never_exceeds_the_term(method, rate, percent, units, days, charge):
    capped = price(method, str(rate), str(percent), str(units), days, str(charge), lesser_of=True)
    plain = price(method, str(rate), str(percent), str(units), days, str(charge), lesser_of=False)
    assert capped <= charge
    assert capped <= plain
    assert capped == min(plain, charge)
    assert plain >= 0


@settings(max_examples=100, deadline=None)
@given(rate=_cents, units=st.integers(min_value=1, max_value=20))
def test_fee_schedule_is_truncated_never_rounded_up(rate, units):
    got = price("fee_schedule", str(rate), None, str(units), None, "1000000.00")
    assert got == rate * units  # a two-place rate times whole units is exact


@settings(max_examples=200, deadline=None)
@given(
    start=st.dates(min_value=date(2020, 1, 1), max_value=date(2030, 12, 31)),
    length=st.integers(min_value=0, max_value=400),
    offset=st.integers(min_value=-3, max_value=403),
)
def test_effective_dates_are_inclusive_at_both_ends(start, length, offset):
    end = start + timedelta(days=length)
    on = start + timedelta(days=offset)
    assert in_effect(on, start, end) == (start <= on <= end)
    assert in_effect(start, start, end) and in_effect(end, start, end)
    assert not in_effect(start - timedelta(days=1), start, end)
    assert not in_effect(end + timedelta(days=1), start, end)
    assert in_effect(on, start, None) == (on >= start)
    assert in_effect(on, None, None)
