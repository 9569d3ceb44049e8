"""Benchmark: 837P/837I parsing throughput (file -> Polars ``claims``/``claim_lines``).

Generates a deterministic corpus with the project's synthetic generator (one
837P and one 837I file of the requested number of claims, cached in the work
directory), then parses each file once with ``parse_x12_file`` and prints MB/s
(wall and CPU). Run it before and after a parser change on the same files.

Usage: .venv/bin/python bench/parse_837.py --claims 200000 [--workdir /tmp/x12bench837]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def corpus(workdir: Path, claims: int) -> list[Path]:
    """The 837 files of a cached corpus of ``claims`` claims (generated on first use)."""
    from pipelines.synthetic import CorpusSpec, generate_corpus

    out = workdir / f"corpus_{claims}"
    files = sorted(out.glob("claims_*.837"))
    if not files:
        generate_corpus(CorpusSpec(seed=837, claims=claims, months=6, claims_per_file=claims, write_csv=False), out)
        files = sorted(out.glob("claims_*.837"))
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--claims", type=int, default=200_000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/x12bench837"))
    args = parser.parse_args()
    from pipelines.ingest.x12 import parse_x12_file

    for path in corpus(args.workdir, args.claims):
        mb = path.stat().st_size / 1e6
        wall, cpu = time.perf_counter(), time.process_time()
        result = parse_x12_file(path)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        claims, lines = result.tables["claims"].height, result.tables["claim_lines"].height
        print(
            f"{path.name}: {mb:.1f} MB, {claims} claims, {lines} lines: "
            f"{wall:.2f} s wall ({mb / wall:.1f} MB/s), {cpu:.2f} s CPU ({mb / cpu:.1f} MB/s)"
        )


if __name__ == "__main__":
    main()
