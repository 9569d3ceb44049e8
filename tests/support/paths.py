"""Where the test suite's files are, independent of how deep a test module sits."""

from __future__ import annotations

from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parents[1]
REPO = TESTS_DIR.parent
X12_FIXTURES = TESTS_DIR / "fixtures" / "x12"
CSV_FIXTURES = TESTS_DIR / "fixtures" / "csv"
NODE_DIR = TESTS_DIR / "e2e" / "node"
BENCH_DIR = REPO / "bench"
