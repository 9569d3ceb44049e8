"""Vectorised parsers for the value formats found in billing exports.

Each parser is a Polars expression over a string column that yields the typed
value or null when the text is not valid; the caller turns "non-empty input
but null output" into a row error. ``parse_money`` / ``parse_date`` run the
same expressions on one value, for tests and for callers with a single value.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

import polars as pl

from pipelines.ingest.tabular.entities import MONEY_DTYPE

MoneyFormat = Literal["us", "implied_cents"]

#: Date layouts recognised when no explicit format is given: (regex, strptime format).
AUTO_DATE_FORMATS: tuple[tuple[str, str], ...] = (
    (r"^\d{4}-\d{1,2}-\d{1,2}$", "%Y-%m-%d"),
    (r"^\d{8}$", "%Y%m%d"),
    (r"^\d{1,2}/\d{1,2}/\d{4}$", "%m/%d/%Y"),
    (r"^\d{1,2}/\d{1,2}/\d{2}$", "%m/%d/%y"),
    (r"^\d{1,2}-\d{1,2}-\d{4}$", "%m-%d-%Y"),
    (r"^\d{1,2}-\d{1,2}-\d{2}$", "%m-%d-%y"),
)

# Spreadsheet and JSON sources hand over ISO datetimes ("2024-01-05 00:00:00");
# only the date part matters.
_ISO_DATETIME = r"^(\d{4}-\d{1,2}-\d{1,2})[ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?$"


def clean_text(expr: pl.Expr) -> pl.Expr:
    """Trim whitespace and turn empty strings into null."""
    # replace() is much cheaper here than when/then, which copies the column.
    return expr.cast(pl.String).str.strip_chars().replace("", None)


_N = r"(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{0,2})?|\.\d{1,2})"
# One sign at most: (N), -$N, $-N, N-, or unsigned; "$" optional; spaces around signs allowed.
_US_MONEY = rf"^(?:\(\s*\$?\s*{_N}\s*\)|-\s*\$?\s*{_N}|\$\s*-\s*{_N}|\$?\s*{_N}\s*-|\$?\s*{_N})$"


def money_expr(expr: pl.Expr, money_format: MoneyFormat = "us", *, cleaned: bool = False) -> pl.Expr:
    """Parse money text to ``Decimal(18, 2)``; null when empty or not an amount.

    ``us``: optional ``$``, thousands commas, spaces around the sign, and a
    negative as leading/trailing ``-`` or surrounding parentheses, e.g.
    ``($1,234.50)``, ``1,234.50-``, ``-$5``. At most two decimals: money is
    never rounded. ``implied_cents``: digits only (optional sign), the last
    two are cents. ``cleaned=True`` skips trimming for input already passed
    through ``clean_text``.
    """
    text = expr if cleaned else clean_text(expr)
    negative = text.str.contains("(", literal=True) | text.str.contains("-", literal=True)
    if money_format == "us":
        valid = text.str.contains(_US_MONEY)
        # `valid` guarantees signs, "$" and spaces sit only around the digits,
        # so literal removal plus stripping is enough (and cheaper than a regex).
        amount = (
            text.str.replace_all("$", "", literal=True).str.replace_all(",", "", literal=True).str.strip_chars(" \t()-")
        )
    elif money_format == "implied_cents":
        valid = text.str.contains(r"^(?:-\s*\d+|\d+\s*-?|\(\d+\))$")
        padded = text.str.replace_all(r"[\s()\-]", "").str.zfill(3)
        amount = padded.str.slice(0, padded.str.len_chars() - 2) + pl.lit(".") + padded.str.slice(-2)
    else:
        raise ValueError(f"unknown money format {money_format!r}; expected 'us' or 'implied_cents'")
    # Sign applied after the cast: numeric when/then is far cheaper than string concatenation.
    value = amount.cast(MONEY_DTYPE, strict=False)
    signed = pl.when(negative).then(pl.lit(0, MONEY_DTYPE) - value).otherwise(value)
    return pl.when(valid).then(signed).cast(MONEY_DTYPE)


def date_expr(expr: pl.Expr, date_format: str | None = None, *, cleaned: bool = False) -> pl.Expr:
    """Parse date text to ``pl.Date``; null when empty or not a real date.

    With ``date_format`` (strftime) only that layout is accepted; otherwise
    the layouts in ``AUTO_DATE_FORMATS`` are tried. Two-digit years follow
    the usual pivot (00-68 -> 20xx, 69-99 -> 19xx). ``cleaned`` as for ``money_expr``.
    """
    text = expr if cleaned else clean_text(expr)
    if date_format is not None:
        parsed = text.str.strptime(pl.Date, date_format, strict=False)
        # %Y also accepts "24" as the year 24 AD; no billing date is that old.
        return pl.when(parsed.dt.year() >= 1000).then(parsed)
    text = pl.coalesce(text.str.extract(_ISO_DATETIME, 1), text)
    candidates = [
        pl.when(text.str.contains(pattern)).then(text.str.strptime(pl.Date, fmt, strict=False))
        for pattern, fmt in AUTO_DATE_FORMATS
    ]
    return pl.coalesce(candidates)


def auto_date_format(sample: pl.Series) -> str | None:
    """The ``AUTO_DATE_FORMATS`` layout every non-empty sample value matches, if one does."""
    values = sample.cast(pl.String).str.strip_chars()
    values = values.filter(values.str.len_bytes() > 0)
    if values.len() == 0:
        return None
    for pattern, fmt in AUTO_DATE_FORMATS:
        if values.str.contains(pattern).all():
            return fmt
    return None


def code_expr(expr: pl.Expr, *, cleaned: bool = False) -> pl.Expr:
    """Trim and upper-case a code (CPT, CARC, group code...)."""
    return (expr if cleaned else clean_text(expr)).str.to_uppercase()


def code_list_expr(expr: pl.Expr, *, cleaned: bool = False, comma_only: bool = False) -> pl.Expr:
    """Split a list of codes on comma, semicolon, pipe or whitespace.

    ``comma_only=True`` is a fast path for columns known to hold no other
    separator (the caller checks the column once).
    """
    codes = code_expr(expr, cleaned=cleaned)
    if comma_only:
        return codes.str.split(",")
    text = codes.str.replace_all(r"[,;|\s]+", ",").str.strip_chars(",")
    return pl.when(text.str.len_bytes() > 0).then(text.str.split(","))


def parse_money(text: str | None, money_format: MoneyFormat = "us") -> Decimal | None:
    """Parse one money value with ``money_expr`` (None when not an amount)."""
    # a Decimal column's one value (polars types `item()` as Any)
    amount: Decimal | None = pl.select(money_expr(pl.lit(text, dtype=pl.String), money_format)).item()
    return amount


def parse_date(text: str | None, date_format: str | None = None) -> date | None:
    """Parse one date with ``date_expr`` (None when not a date)."""
    # a Date column's one value (polars types `item()` as Any)
    day: date | None = pl.select(date_expr(pl.lit(text, dtype=pl.String), date_format)).item()
    return day
