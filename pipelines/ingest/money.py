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
