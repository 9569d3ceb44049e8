"""Column-level fast paths stay correct on larger inputs."""

from __future__ import annotations

import importlib.util
from datetime import date
from decimal import Decimal

import pytest

from pipelines.ingest.tabular import read_tabular
from tests.support.paths import BENCH_DIR

BENCH = BENCH_DIR / "ingest_csv.py"


def test_sampled_date_layout_with_late_outliers():
    # The first 2000+ values fix the layout at MM/DD/YYYY; later rows in other
    # layouts must still parse, and a bad one must still be flagged.
    lines = ["Account Number,Service Date,Billed Amount"]
    lines += [f"A{i},01/02/2024,1.00" for i in range(2500)]
    lines += ["B1,2024-03-04,1.00", "B2,20240305,1.00", "B3,3/6/24,1.00", "B4,31/31/2024,1.00"]
    rows = read_tabular("\n".join(lines).encode(), filename="d.csv").rows
    tail = rows.tail(4)
    assert tail["service_from"].to_list() == [date(2024, 3, 4), date(2024, 3, 5), date(2024, 3, 6), None]
    assert tail["row_errors"].to_list()[-1] == ["service_from: '31/31/2024' is not a date"]
    assert rows.filter(rows["row_status"] == "invalid").height == 1


def test_mixed_layouts_in_sample():
    lines = ["Account Number,Service Date,Billed Amount", "A1,01/02/2024,1", "A2,2024-01-03,2", "A3,20240104,3"]
    rows = read_tabular("\n".join(lines).encode(), filename="d.csv").rows
    assert rows["service_from"].to_list() == [date(2024, 1, 2), date(2024, 1, 3), date(2024, 1, 4)]


@pytest.mark.slow
def test_generated_claims_file_reads_completely():
    spec = importlib.util.spec_from_file_location("bench_ingest_csv", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = module.generate_claims_csv(200_000)
    result = read_tabular(data, filename="claims.csv")
    rows = result.rows
    assert (result.entity, rows.height, result.invalid_count) == ("claim", 200_000, 0)
    assert rows["row_number"][0] == 2 and rows["row_number"][-1] == 200_001
    first = rows.row(0, named=True)
    assert first["billed_amount"] == Decimal("1.00") and first["service_from"] == date(2023, 1, 1)
    # row i: cents = (i * 7919) % 2_500_000 + 100
    i = 123_456
    assert rows["billed_amount"][i] == Decimal((i * 7919) % 2_500_000 + 100) / 100
