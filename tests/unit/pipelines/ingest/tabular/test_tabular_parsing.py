"""Money and date parsers: every supported layout round-trips (Hypothesis)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.tabular.value_formats import parse_date, parse_money

amounts = st.decimals(min_value=Decimal("-99999999.99"), max_value=Decimal("99999999.99"), places=2, allow_nan=False)


def _us_layouts(value: Decimal) -> list[str]:
    magnitude = abs(value)
    plain, grouped = f"{magnitude:.2f}", f"{magnitude:,.2f}"
    if value < 0:
        return [f"-{plain}", f"(${grouped})", f"{grouped}-", f"-${grouped}", f"$-{grouped}", f" ( {plain} ) "]
    return [plain, f"${grouped}", f"$ {grouped}", f" {grouped} "]


@settings(max_examples=150, deadline=None)
@given(amounts)
def test_money_round_trips_in_every_layout(value):
    for text in _us_layouts(value):
        assert parse_money(text) == value, text


@settings(max_examples=100, deadline=None)
@given(amounts)
def test_implied_cents_round_trip(value):
    cents = int(value * 100)
    assert parse_money(str(cents), "implied_cents") == value


@pytest.mark.parametrize(
    "text",
    ["12x.00", "1,23.00", "12.345", "(-1)", "-", "$", "1.2.3", "--5", "1e3", "12-3", "($5", "5)"],
)
def test_money_rejects(text):
    assert parse_money(text) is None


@pytest.mark.parametrize("text", ["", "   ", None])
def test_money_empty_is_null(text):
    assert parse_money(text) is None


dates = st.dates(min_value=date(1970, 1, 1), max_value=date(2068, 12, 31))


def _date_layouts(value: date) -> list[str]:
    m, d, y = value.month, value.day, value.year
    return [
        value.strftime("%m/%d/%Y"),
        f"{m}/{d}/{y % 100:02d}",
        value.isoformat(),
        value.strftime("%Y%m%d"),
        value.strftime("%m-%d-%Y"),
        f"{m}/{d}/{y}",
        f"{value.isoformat()} 00:00:00",
    ]


@settings(max_examples=150, deadline=None)
@given(dates)
def test_dates_round_trip_in_every_layout(value):
    for text in _date_layouts(value):
        assert parse_date(text) == value, text


@settings(max_examples=50, deadline=None)
@given(dates)
def test_explicit_date_format(value):
    assert parse_date(value.strftime("%d.%m.%Y"), "%d.%m.%Y") == value


@pytest.mark.parametrize("text", ["02/30/2024", "13/01/2024", "2024-13-01", "5/1/202", "yesterday", "20241301"])
def test_dates_reject(text):
    assert parse_date(text) is None


def test_explicit_four_digit_year_layout_rejects_two_digit_years():
    assert parse_date("3/6/24", "%m/%d/%Y") is None
    assert parse_date("3/6/2024", "%m/%d/%Y") == date(2024, 3, 6)
