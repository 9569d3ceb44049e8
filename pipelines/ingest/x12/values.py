"""Vectorised conversion of X12 element strings into typed Polars columns.

Each converter checks every non-empty input and raises X12ParseError naming
the first bad segment; it never silently turns a malformed value into null.
The offending value itself is not quoted, as it may be PHI.
"""

from __future__ import annotations

import polars as pl

from pipelines.ingest.money import POLARS_MONEY
from pipelines.ingest.x12.errors import X12ParseError

MONEY = POLARS_MONEY
QUANTITY = pl.Decimal(18, 4)

# X12 "R" values: optional sign, digits, optional point. Money allows at most two
# significant decimals (trailing zeros are fine) so the Decimal(18, 2) cast is exact.
_MONEY_RE = r"^[+-]?(\d+(\.\d{0,2}0*)?|\.\d{1,2}0*)$"
_QUANTITY_RE = r"^[+-]?(\d+(\.\d{0,4}0*)?|\.\d{1,4}0*)$"


def blank_to_null(expr: pl.Expr) -> pl.Expr:
    """Empty X12 elements mean "not sent"; represent them as null."""
    return pl.when(expr.str.len_bytes() > 0).then(expr).otherwise(None)


def convert(
    frame: pl.DataFrame,
    specs: dict[str, tuple[str, str]],
    *,
    source: str,
) -> pl.DataFrame:
    """Convert string columns in place. ``specs`` maps column -> (kind, label).

    kind is "money" (Decimal(18,2)), "quantity" (Decimal(18,4)) or "date"
    (CCYYMMDD -> Date); label names the element for error messages, e.g. "CLP03".
    ``frame`` must carry ``seg_no`` and ``sid`` so errors can say where.
    """
    if frame.height == 0:
        return frame.with_columns(pl.col(c).cast(_DTYPES[k]) for c, (k, _) in specs.items())
    # Convert first, then judge the inputs against the converted values, so each
    # cast/strptime runs once.
    out = frame.with_columns(
        (
            pl.col(col).str.strptime(pl.Date, "%Y%m%d", strict=False)
            if kind == "date"
            else pl.col(col).cast(_DTYPES[kind], strict=False)
        ).alias(f"_v_{col}")
        for col, (kind, _label) in specs.items()
    )
    flags = []
    for col, (kind, _label) in specs.items():
        c = pl.col(col)
        if kind == "date":
            shape_ok = c.str.len_bytes() == 8
        else:
            shape_ok = c.str.contains(_MONEY_RE if kind == "money" else _QUANTITY_RE)
        # Bad: something was sent, but it is malformed or did not convert.
        flags.append(((c.str.len_bytes() > 0) & ~(shape_ok & pl.col(f"_v_{col}").is_not_null())).fill_null(False))
    if out.select(pl.any_horizontal(flags).any()).item():
        for col, (kind, label) in specs.items():
            rows = out.filter(flags[list(specs).index(col)])
            if rows.height:
                expected = _EXPECTED[kind]
                raise X12ParseError(
                    source,
                    f"{label} is not {expected}",
                    segment_number=int(rows["seg_no"][0]),
                    segment_id=str(rows["sid"][0]),
                    expected=expected,
                )
    return out.with_columns(pl.col(f"_v_{col}").alias(col) for col in specs).drop(f"_v_{col}" for col in specs)


_EXPECTED = {
    "date": "a valid CCYYMMDD date",
    "money": "a decimal amount with at most 2 decimals",
    "quantity": "a decimal quantity with at most 4 decimals",
}
_DTYPES: dict[str, pl.DataType] = {"money": MONEY, "quantity": QUANTITY, "date": pl.Date()}
