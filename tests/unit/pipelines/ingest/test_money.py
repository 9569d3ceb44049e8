"""The one money definition: precision and scale, cent rounding, and the column types built from them."""

from __future__ import annotations

from decimal import Decimal, localcontext

import polars as pl
from sqlalchemy import Numeric

from pipelines.ingest.money import CENT, MONEY_PRECISION, MONEY_SCALE, POLARS_MONEY, SQLALCHEMY_MONEY, quantize


def test_money_is_decimal_18_2_everywhere():
    assert (MONEY_PRECISION, MONEY_SCALE) == (18, 2)
    assert Decimal("0.01") == CENT
    assert pl.Decimal(18, 2) == POLARS_MONEY
    assert isinstance(SQLALCHEMY_MONEY, Numeric)
    assert (SQLALCHEMY_MONEY.precision, SQLALCHEMY_MONEY.scale) == (18, 2)


def test_quantize_rounds_half_even_to_the_cent():
    assert quantize(Decimal("1.005")) == Decimal("1.00")
    assert quantize(Decimal("1.015")) == Decimal("1.02")
    assert quantize(Decimal("-2.675")) == Decimal("-2.68")
    assert quantize(7) == Decimal("7.00")
    assert quantize("12.3") == Decimal("12.30")


def test_quantize_ignores_the_callers_decimal_context():
    with localcontext() as ctx:
        ctx.rounding = "ROUND_UP"
        assert quantize(Decimal("1.001")) == Decimal("1.00")
