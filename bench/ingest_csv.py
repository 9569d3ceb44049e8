"""Benchmark: our validated claims CSV load vs a bare DuckDB read of the same file.

Usage: .venv/bin/python bench/ingest_csv.py [--rows 1000000]

Generates a deterministic claims export (``$1,234.56`` money, MM/DD/YYYY
dates, realistic columns; no real people), then times in the same run:
  ours : read_tabular(bytes) -> validated canonical Polars frame
  bare : duckdb.read_csv(file) -> materialised with .pl()
and prints seconds, rows/s and the ratio (goal: ours <= 1.5x bare).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipelines.ingest.tabular import read_tabular

HEADER = (
    "Claim ID,Patient Acct #,Patient Last Name,Patient First Name,DOB,MRN,Member ID,Payer,Plan,"
    "Service From,Service To,Total Charges,CPT,Rev Code,Dx,Claim Status,Facility\n"
)
_LAST = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"]
_FIRST = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
_PAYERS = ["Medicare", "Medicaid", "Aetna", "Cigna", "UnitedHealthcare", "BCBS"]
_PLANS = ["PPO", "HMO", "Part A", "Part B", "Managed"]
_CPT = ["99213", "99214", "71046", "80053", "93000", "36415"]
_DX = ["E11.9", "I10", "J18.9", "N39.0", "R07.9"]
_STATUS = ["Submitted", "Paid", "Denied", "Pending"]
_FACILITY = ["Main Campus", "North Clinic", "South ED"]


def generate_claims_csv(rows: int) -> bytes:
    """Deterministic claims CSV built with Polars expressions (fast, no randomness)."""
    i = pl.int_range(rows, dtype=pl.Int64, eager=True)
    cents = (pl.col("i") * 7919) % 2_500_000 + 100
    dollars = cents // 100
    money = (
        pl.lit("$")
        + pl.when(dollars >= 1000)
        .then((dollars // 1000).cast(pl.String) + pl.lit(",") + (dollars % 1000).cast(pl.String).str.zfill(3))
        .otherwise(dollars.cast(pl.String))
        + pl.lit(".")
        + (cents % 100).cast(pl.String).str.zfill(2)
    )

    def us_date(day_offset: pl.Expr) -> pl.Expr:
        return ((pl.date(2023, 1, 1)) + pl.duration(days=day_offset)).dt.strftime("%m/%d/%Y")

    def pick(options: list[str], k: int) -> pl.Expr:
        return pl.lit(pl.Series(options)).get((pl.col("i") * k) % len(options))

    frame = pl.DataFrame({"i": i}).select(
        pl.format("C{}", pl.col("i")).alias("Claim ID"),
        pl.format("A{}", pl.col("i") + 1_000_000).alias("Patient Acct #"),
        pick(_LAST, 7).alias("Patient Last Name"),
        pick(_FIRST, 3).alias("Patient First Name"),
        ((pl.date(1940, 1, 1)) + pl.duration(days=(pl.col("i") * 37) % 25000)).dt.strftime("%m/%d/%Y").alias("DOB"),
        pl.format("M{}", pl.col("i") % 400_000).alias("MRN"),
        pl.format("XZ{}", pl.col("i") * 13 % 9_999_999).alias("Member ID"),
        pick(_PAYERS, 5).alias("Payer"),
        pick(_PLANS, 11).alias("Plan"),
        us_date(pl.col("i") % 700).alias("Service From"),
        us_date(pl.col("i") % 700 + pl.col("i") % 5).alias("Service To"),
        money.alias("Total Charges"),
        pick(_CPT, 13).alias("CPT"),
        pl.lit("0450").alias("Rev Code"),
        pick(_DX, 17).alias("Dx"),
        pick(_STATUS, 19).alias("Claim Status"),
        pick(_FACILITY, 23).alias("Facility"),
    )
    return frame.write_csv(include_header=True).encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs of each path")
    args = parser.parse_args()

    data = generate_claims_csv(args.rows)
    assert data.startswith(HEADER.encode()), "generator header drifted"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "claims.csv"
        path.write_bytes(data)

        ours: list[tuple[float, float]] = []
        bare: list[tuple[float, float]] = []
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            ours.append(_timed(lambda: _ours(data, args.rows)))
            bare.append(_timed(lambda: _bare(path, args.rows)))

    wall_ratios = sorted(o[0] / b[0] for o, b in zip(ours, bare, strict=True))
    best_ours, best_bare = min(o[0] for o in ours), min(b[0] for b in bare)
    cpu_ours, cpu_bare = min(o[1] for o in ours), min(b[1] for b in bare)
    print(
        f"rows={args.rows:,} file={len(data) / 1e6:.1f} MB, {args.repeat} interleaved runs, os.cpu_count()={os.cpu_count()}"
    )
    print(
        f"ours  read_tabular -> validated frame : {best_ours:6.2f} s wall (best)  {args.rows / best_ours:12,.0f} rows/s  {cpu_ours:6.2f} s CPU"
    )
    print(
        f"bare  duckdb.read_csv(...).pl()       : {best_bare:6.2f} s wall (best)  {args.rows / best_bare:12,.0f} rows/s  {cpu_bare:6.2f} s CPU"
    )
    print(f"ratio ours/bare wall, best vs best    : {best_ours / best_bare:6.2f}x (goal <= 1.5x)")
    print(f"ratio ours/bare wall, median of pairs : {statistics.median(wall_ratios):6.2f}x")
    print(f"ratio ours/bare CPU seconds           : {cpu_ours / cpu_bare:6.2f}x (insensitive to other load)")


def _timed(run) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process across all threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def _ours(data: bytes, rows: int) -> None:
    result = read_tabular(data, filename="claims.csv")
    assert result.rows.height == rows and result.invalid_count == 0, result.errors_summary


def _bare(path: Path, rows: int) -> None:
    frame = duckdb.read_csv(str(path)).pl()
    assert frame.height == rows


if __name__ == "__main__":
    main()
