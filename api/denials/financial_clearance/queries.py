"""The contracted allowed amounts financialClearance borrows from fct_service_lines.

Contract pricing is SQL's (`dbt_project/macros/contract_pricing.sql`); this only reads what it priced.
A fee-schedule price is rate x units of the line and nothing else, so a line of the same code and units
priced by a term in force on the service date has the contracted amount the new line will get. A
percent-of-charges, per-diem or case-rate term (or a lesser-of cap) depends on the charge or the stay,
so its price is not borrowed: those lines stay at their charge, a ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from api.infra.snapshot.reader import MartRow, ScopedMarts

LINE_MARTS = ("fct_service_lines",)
UNITS = Decimal("0.001")


class Contracted(MartRow):
    procedure_code: str
    units: Decimal
    expected_allowed_amount: Decimal


def contracted(
    m: ScopedMarts, payer_key: str, codes: Sequence[str], service_date: date
) -> dict[tuple[str, Decimal], Decimal]:
    """(code, units) -> the contracted amount of the payer's latest fee-schedule-priced line of that code
    and units under a term in force on `service_date`."""
    if not codes:
        return {}
    rows = m.rows_as(
        Contracted,
        """
        select upper(procedure_code) as procedure_code, units,
               max_by(expected_allowed_amount, coalesce(payment_date, service_date)) as expected_allowed_amount
        from fct_service_lines
        where upper(payer_key) = $payer and list_contains($codes, upper(procedure_code))
          and contract_method = 'fee_schedule' and expected_allowed_amount is not null and not is_reversal
          and units is not null and contract_effective_from <= $served
          and (contract_effective_to is null or contract_effective_to >= $served)
        group by upper(procedure_code), units""",
        {"payer": payer_key, "codes": list(codes), "served": service_date},
    )
    return {(r.procedure_code, r.units.quantize(UNITS)): r.expected_allowed_amount for r in rows}
