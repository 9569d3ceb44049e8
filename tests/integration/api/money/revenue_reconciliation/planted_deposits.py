"""A bank deposits file with known differences from its 835s, and the 835 payments it is judged against.

The generator writes one deposit per paying 835 (BPR02 > 0) with the exact amount and trace number
(TRN02). `plant_differences` derives from that file one with three planted breaks: one amount off by
one cent, one row removed and one extra row whose trace number no 835 has, and says what each
break should look like once reconciled.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from pipelines.ingest.x12 import parse_x12

ONE_CENT = Decimal("0.01")
EXTRA_TRACE = "77700000000001"
EXTRA_AMOUNT = Decimal("123.45")


@dataclass(frozen=True)
class EraPayment:
    """One paying 835 transaction: what its deposit should show."""

    trace_number: str
    payer_key: str
    amount: Decimal  # BPR02
    provider_adjustments: Decimal  # PLB total (positive reduces the payment)


@dataclass(frozen=True)
class PlantedDeposits:
    """The planted file's text and the breaks planted in it."""

    csv_text: str
    amounts_by_trace: dict[str, Decimal]  # every row written, by trace number
    mismatch_trace: str
    mismatch_variance: Decimal  # deposit - ERA of the mismatched row
    removed_trace: str
    removed_amount: Decimal
    extra_trace: str
    extra_amount: Decimal

    @property
    def total(self) -> Decimal:
        """Sum of the amounts in the planted file."""
        return sum(self.amounts_by_trace.values(), Decimal(0))


def paying_era_payments(paths: list[Path]) -> dict[str, EraPayment]:
    """Every 835 transaction of `paths` with BPR02 > 0, by trace number (which must be unique)."""
    out: dict[str, EraPayment] = {}
    for path in paths:
        remittances = parse_x12(path.read_bytes(), source=path.name).tables["remittances"]
        for row in remittances.iter_rows(named=True):
            amount = Decimal(str(row["total_paid"]))
            if amount <= 0:
                continue
            trace = row["trace_number"].strip()
            assert trace not in out, f"{path.name}: trace number {trace} appears in more than one 835 transaction"
            out[trace] = EraPayment(
                trace, row["payer_name"].strip().upper(), amount, Decimal(str(row["plb_total"] or 0))
            )
    return out


def plant_differences(source_text: str, columns: dict[str, str]) -> PlantedDeposits:
    """Plant the three breaks into the generator's deposits file `source_text`, whose headers are
    `columns` ({canonical column: header}); the cent is added to the 2nd row, the 3rd row is removed
    and the extra row (dated like the 1st) is appended."""
    reader = csv.DictReader(io.StringIO(source_text))
    header = list(reader.fieldnames or [])
    rows = list(reader)
    trace_col, amount_col, date_col = columns["trace_number"], columns["amount"], columns["deposit_date"]
    if len(rows) < 3:
        raise ValueError(f"the deposits file has {len(rows)} rows; at least 3 are needed to plant the differences")
    traces = [r[trace_col] for r in rows]
    if len(set(traces)) != len(traces) or EXTRA_TRACE in traces:
        raise ValueError("the deposits file's trace numbers must be unique and must not include the extra trace")

    mismatched, removed = rows[1], rows[2]
    mismatched[amount_col] = str(Decimal(mismatched[amount_col]) + ONE_CENT)
    rows.remove(removed)
    description = columns.get("description")
    extra = {date_col: rows[0][date_col], amount_col: str(EXTRA_AMOUNT), trace_col: EXTRA_TRACE}
    if description:
        extra[description] = "UNKNOWN ORIGINATOR ACH CREDIT"
    rows.append({h: extra.get(h, "") for h in header})

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return PlantedDeposits(
        csv_text=out.getvalue(),
        amounts_by_trace={r[trace_col]: Decimal(r[amount_col]) for r in rows},
        mismatch_trace=mismatched[trace_col],
        mismatch_variance=ONE_CENT,
        removed_trace=removed[trace_col],
        removed_amount=Decimal(removed[amount_col]),
        extra_trace=EXTRA_TRACE,
        extra_amount=EXTRA_AMOUNT,
    )
