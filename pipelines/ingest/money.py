"""Money: one definition of how amounts are stored, typed and rounded.

Every amount on the platform is a decimal with 18 digits of precision and 2 of
scale: in the operational database (``SQLALCHEMY_MONEY``), in parsed files and
extracts (``POLARS_MONEY``) and in Python (``quantize``). Pure: no I/O, so both
the API and the pipelines import it.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import polars as pl
from sqlalchemy import Numeric

MONEY_PRECISION = 18
MONEY_SCALE = 2

#: One cent, the quantum every amount is rounded to.
CENT = Decimal(1).scaleb(-MONEY_SCALE)

#: Polars dtype of money columns (parsed files, extracts).
POLARS_MONEY = pl.Decimal(MONEY_PRECISION, MONEY_SCALE)

#: SQLAlchemy column type of money columns; the type object is stateless, so models share it.
SQLALCHEMY_MONEY = Numeric(MONEY_PRECISION, MONEY_SCALE)

# Half-even is the ``decimal`` module's default context rounding, which every
# quantisation in the pipelines relied on before this module existed; naming it
# keeps the result independent of whatever context the caller has set.
ROUNDING = ROUND_HALF_EVEN


def quantize(value: Decimal | int | float | str) -> Decimal:
    """``value`` as a ``Decimal`` rounded to the cent (half-even)."""
    return Decimal(value).quantize(CENT, rounding=ROUNDING)


#: The largest magnitude the money type holds: 16 integer digits (18 digits, 2 of them decimals).
MONEY_LIMIT = Decimal(10) ** (MONEY_PRECISION - MONEY_SCALE)

ZERO = Decimal("0.00")


class BadMoneyCell(ValueError):
    """A stored cell that holds something other than an amount. The message names the value's type,
    never the value (a row's cells are read next to PHI and errors reach logs)."""


def read_money(value: object) -> Decimal | None:
    """A stored money cell (an import row's JSON value, a parsed column's value) as an amount, or None.

    - empty: ``None`` or ``""`` -> ``None``; the caller decides what a missing amount means (posting
      posts 0.00, a billed amount stays unknown);
    - an amount: a ``Decimal``, an ``int``, a ``float`` (by its shortest repr) or text that
      ``Decimal`` reads (surrounding whitespace, a sign, an exponent) -> that amount rounded to the
      cent as ``quantize`` rounds (half-even); a negative amount stays negative (its meaning, money
      taken back or a reversal, is the caller's), and a negative zero reads as 0.00;
    - anything else -> ``BadMoneyCell``: text that is not a number (an export's formats such as
      ``$1,234.50``, ``1.234,50`` or the accounting negative ``(5.00)`` are read once, at upload, by
      ``pipelines.ingest.tabular.parse_money``; a stored cell that still holds one was never
      canonicalised, and guessing its sign would post the wrong money), blank text, a boolean,
      NaN or an infinity, and an amount the money type cannot hold (``MONEY_LIMIT`` or more).
    """
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, Decimal | int | float | str):
        raise BadMoneyCell(f"not a money amount: a {type(value).__name__}")
    try:
        amount = Decimal(str(value))
    except ArithmeticError:  # decimal.InvalidOperation: not a number
        raise BadMoneyCell("not a money amount: text that is not a number") from None
    # Bounded before rounding too, without arithmetic (copy_abs): abs() and quantize overflow on an
    # exponent beyond the context's.
    if not amount.is_finite() or amount.copy_abs() >= MONEY_LIMIT:
        raise BadMoneyCell("not a money amount: not finite, or beyond the money type's 16 integer digits")
    rounded = amount.quantize(CENT, rounding=ROUNDING)
    if rounded.copy_abs() >= MONEY_LIMIT:  # 9999999999999999.995 rounds up to 17 integer digits
        raise BadMoneyCell("not a money amount: beyond the money type's 16 integer digits")
    return rounded if rounded else ZERO  # no signed zero: -0.00 and 0.00 are the same money
