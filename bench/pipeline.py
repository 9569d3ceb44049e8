"""Benchmark: the whole analytics pipeline end to end on generated corpora.

For each size: generate a corpus (timed separately, excluded), put it in a drop folder of
a fresh data directory with a migrated SQLite operational database, then time
``run_pipeline`` (raw parse -> extract -> dbt build with all tests -> publish) and, as the
floor to compare with, a bare DuckDB ``CREATE TABLE AS SELECT * FROM read_parquet(...)``
of the same raw rows.

Usage:
    .venv/bin/python bench/pipeline.py                       # 10k and 100k claims
    .venv/bin/python bench/pipeline.py --sizes 10000,100000,1000000
    .venv/bin/python bench/pipeline.py --workdir /tmp/pipebench --keep
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "true")
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")


def prepare(size: int, workdir: Path) -> tuple[Path, str, float | None]:
    """Corpus (cached across runs by size) and a fresh data dir; returns (data_dir, db url, generation seconds)."""
    from sqlalchemy import create_engine, text

    from api.infra.db import migrate
    from pipelines.synthetic import CorpusSpec, generate_corpus

    corpus = workdir / f"corpus_{size}"
    started = time.perf_counter()
    generated = None  # None: reused from an earlier run (same spec, byte-identical)
    if not (corpus / "manifest.json").exists():
        generate_corpus(CorpusSpec(seed=2026, claims=size, months=12), corpus)
        generated = time.perf_counter() - started
    data_dir = workdir / f"data_{size}"
    shutil.rmtree(data_dir, ignore_errors=True)
    drop = data_dir / "drop" / "client_1"
    drop.mkdir(parents=True)
    for path in corpus.iterdir():
        if path.suffix in (".835", ".837", ".csv"):
            os.link(path, drop / path.name)  # hard link: no copy, same bytes
    url = f"sqlite:///{data_dir / 'platform.db'}"
    migrate.upgrade(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        now = datetime.now(UTC)
        conn.execute(
            text(
                "insert into organizations (id, name, slug, status, created_at) values (1, 'Bench', 'bench', 'active', :n)"
            ),
            {"n": now},
        )
        conn.execute(
            text(
                "insert into clients (id, organization_id, name, status, created_at) values (1, 1, 'Bench H', 'active', :n)"
            ),
            {"n": now},
        )
    engine.dispose()
    return data_dir, url, generated


def bare_duckdb_load(data_dir: Path) -> tuple[float, int]:
    """Seconds to CREATE TABLE AS SELECT * FROM read_parquet(...) every raw table once; total rows."""
    import duckdb

    from pipelines.warehouse.layout import WarehouseLayout
    from pipelines.warehouse.raw_tables import RAW_SCHEMAS

    layout = WarehouseLayout.at(data_dir)
    target = data_dir / "bare.duckdb"
    target.unlink(missing_ok=True)
    con = duckdb.connect(str(target))
    started = time.perf_counter()
    rows = 0
    for table in RAW_SCHEMAS:
        con.execute(
            f"create table {table} as select * from read_parquet('{layout.raw_glob(table)}', union_by_name = true)"
        )
        rows += con.execute(f"select count(*) from {table}").fetchone()[0]
    con.execute("checkpoint")
    seconds = time.perf_counter() - started
    con.close()
    target.unlink(missing_ok=True)
    return seconds, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated claim counts")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/pipeline_bench"))
    parser.add_argument("--keep", action="store_true", help="keep the data directories")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.workdir.mkdir(parents=True, exist_ok=True)

    from pipelines.defs.dbt.project import ensure_manifest
    from pipelines.runner import run_pipeline

    ensure_manifest()
    results = []
    for size in sizes:
        data_dir, url, generated = prepare(size, args.workdir)
        started = time.perf_counter()
        summary = run_pipeline(data_dir, url)
        seconds = time.perf_counter() - started
        if not summary.success:
            print(f"{size:>9,} claims: FAILED {summary.errors}")
            return 1
        bare, raw_rows = bare_duckdb_load(data_dir)
        steps = summary.step_seconds
        parse = sum(v for k, v in steps.items() if k.startswith("raw_"))
        results.append(
            (
                size,
                generated,
                seconds,
                size / seconds,
                bare,
                seconds / bare,
                raw_rows,
                parse,
                steps.get("dbt_models", 0.0),
                steps.get("published_snapshot", 0.0),
            )
        )
        made = "corpus reused" if generated is None else f"generated in {generated:.1f}s (excluded)"
        print(
            f"{size:>9,} claims: {made}; pipeline {seconds:7.1f}s "
            f"= {size / seconds:9,.0f} claims/s  [parse {parse:.1f}s, dbt build+tests {steps.get('dbt_models', 0):.1f}s, "
            f"publish {steps.get('published_snapshot', 0):.1f}s]; bare DuckDB CTAS of {raw_rows:,} raw rows "
            f"{bare:.2f}s; ratio {seconds / bare:.1f}x",
            flush=True,
        )
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    print()
    print("| claims | pipeline s | claims/s | parse s | dbt build+tests s | publish s | bare CTAS s | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size, _gen, seconds, rate, bare, ratio, _rows, parse, dbt, publish in results:
        print(
            f"| {size:,} | {seconds:.1f} | {rate:,.0f} | {parse:.1f} | {dbt:.1f} | {publish:.1f} | {bare:.2f} | {ratio:.1f}x |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
