"""financialClearance's read of fct_service_lines (queries.contracted) on a planted DuckDB mart: only
fee-schedule prices of the payer, the same code and units, under a term in force on the service date,
the latest payment's; contract pricing itself stays in dbt."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from api.denials.financial_clearance.queries import contracted
from api.infra.snapshot.reader import ScopedMarts, Snapshot

SERVED = date(2026, 3, 10)
COLUMNS = """payer_key varchar, procedure_code varchar, units decimal(12, 3), payment_date date, service_date date,
    contract_method varchar, expected_allowed_amount decimal(18, 2), is_reversal boolean,
    contract_effective_from date, contract_effective_to date"""
ROWS = [
    # payer, code, units, paid on, method, expected allowed, reversal, term from, term to
    ("SANDBOX HEALTH PLAN", "64612", 2, "2026-01-05", "fee_schedule", "780.00", False, "2025-01-01", None),
    ("SANDBOX HEALTH PLAN", "64612", 2, "2026-02-05", "fee_schedule", "812.40", False, "2025-01-01", None),  # latest
    ("SANDBOX HEALTH PLAN", "64612", 2, "2026-02-20", "fee_schedule", "999.00", True, "2025-01-01", None),  # reversal
    ("SANDBOX HEALTH PLAN", "64612", 1, "2026-02-06", "fee_schedule", "406.20", False, "2025-01-01", None),
    ("SANDBOX HEALTH PLAN", "99213", 1, "2026-02-07", "percent_of_charges", "120.00", False, "2025-01-01", None),
    ("SANDBOX HEALTH PLAN", "80053", 1, "2026-02-07", "fee_schedule", "11.00", False, "2025-01-01", "2026-02-28"),
    ("OTHER PAYER", "99214", 1, "2026-02-07", "fee_schedule", "95.00", False, "2025-01-01", None),
]


@pytest.fixture
def marts():
    conn = duckdb.connect()
    conn.execute(f"create table fct_service_lines ({COLUMNS})")
    for payer, code, units, paid, method, amount, reversal, start, end in ROWS:
        conn.execute(
            "insert into fct_service_lines values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [payer, code, units, paid, paid, method, amount, reversal, start, end],
        )
    snapshot = Snapshot(Path("planted"), datetime(2026, 3, 1, tzinfo=UTC), ("fct_service_lines",), frozenset())
    yield ScopedMarts(conn, snapshot)
    conn.close()


def test_only_fee_schedule_prices_in_force_for_the_same_code_and_units(marts):
    found = contracted(marts, "SANDBOX HEALTH PLAN", ["64612", "99213", "80053", "99214"], SERVED)
    assert found == {("64612", Decimal("2.000")): Decimal("812.40"), ("64612", Decimal("1.000")): Decimal("406.20")}
    assert contracted(marts, "SANDBOX HEALTH PLAN", [], SERVED) == {}
    # 80053's term ended on 2026-02-28: in force for a service on the 20th
    assert contracted(marts, "SANDBOX HEALTH PLAN", ["80053"], date(2026, 2, 20)) == {
        ("80053", Decimal("1.000")): Decimal("11.00")
    }
