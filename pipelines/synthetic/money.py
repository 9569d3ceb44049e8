"""Exact money formatting from integer cents (never float)."""

from __future__ import annotations

from decimal import Decimal

from pipelines.ingest.money import MONEY_SCALE, quantize


def x12_amount(cents: int) -> str:
    """``12345`` -> ``"123.45"``, ``-5`` -> ``"-0.05"`` (X12 R-type element)."""
    if cents < 0:
        return "-" + x12_amount(-cents)
    whole, cents_part = divmod(cents, 100)
    return f"{whole}.{cents_part:02d}"


def dollars(cents: int) -> str:
    """Billing-system style: ``123456`` -> ``"$1,234.56"``, negatives with a leading minus."""
    if cents < 0:
        return "-" + dollars(-cents)
    return f"${cents // 100:,}.{cents % 100:02d}"


def accounting(cents: int) -> str:
    """Accounting style: negatives in parentheses, ``-123456`` -> ``"($1,234.56)"``."""
    if cents < 0:
        return f"({dollars(-cents)})"
    return dollars(cents)


def to_decimal(cents: int) -> Decimal:
    """Integer cents as an exact ``Decimal`` with two places."""
    return Decimal(cents).scaleb(-MONEY_SCALE)


def to_cents(amount: Decimal) -> int:
    """An amount as integer cents, rounded to the cent first (half-even, as ``quantize``)."""
    return int(quantize(amount).scaleb(MONEY_SCALE))
