"""Benchmark: the three text paths issue 23 found super-linear, before and after, in CPU seconds.

- migrationFactory's delimiter: csv.Sniffer on one long header line of stray quotes (quadratic) vs
  `pipelines.ingest.detect.delimiter_of` (one csv pass per candidate);
- drafts.diff: difflib.unified_diff (longest-match recursion; the attack shape is 101 short lines
  repeated, each just under difflib's 1 % "popular" threshold, reordered) vs `api.denials.drafts.content.unified_diff`
  (trimmed ends + Myers with a cap on the changes);
- appealAssembly's wrapping of one overlong word: the old prefix-by-prefix search (cubic) vs the
  renderer's `_Typesetter.wrap` (per-character widths, one pass).

The old paths run at `--old-scale` of the attack size (at full size they take seconds to minutes:
3.9 s, 12 s and 14.5 s as reported in the issue); the new ones at the attack size and at the old
one's size, so the ratio compares like with like.

    .venv/bin/python bench/heavy_text.py
    .venv/bin/python bench/heavy_text.py --old-scale 1     # the old paths at full size: minutes
"""

from __future__ import annotations

import argparse
import csv
import difflib
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fpdf import FPDF  # noqa: E402

from api.denials.appeal_assembly.render import TEXT_W, _Typesetter  # noqa: E402
from api.denials.drafts.content import unified_diff  # noqa: E402
from pipelines.ingest.detect import delimiter_of  # noqa: E402


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def header(chars: int) -> str:
    """A header line of stray quotes after delimiters: csv.Sniffer's quote regex retries its lazy
    `.*?` from every quote, quadratic in the line."""
    return (',"a' * (chars // 3 + 1))[:chars]


def cyclic(chars: int, step: int) -> str:
    return "".join(f"{(i * step) % 101:03d}\n" for i in range(chars // 4))


def old_wrap(word: str) -> int:
    pdf = FPDF(format="Letter", unit="mm")
    pdf.set_font("Helvetica", "", 10.5)
    rest, pieces = word, 0
    while pdf.get_string_width(rest) > TEXT_W:
        cut = next((i for i in range(len(rest) - 1, 0, -1) if pdf.get_string_width(rest[:i]) <= TEXT_W), 1)
        rest, pieces = rest[cut:], pieces + 1
    return pieces


def new_wrap(word: str) -> int:
    return len(_Typesetter(FPDF(format="Letter", unit="mm")).wrap(word))


def row(name: str, size: str, old: float | None, new: float) -> None:
    ratio = f"{old / new:,.0f}x" if old is not None and new > 0 else "-"
    before = f"{old:.3f}" if old is not None else "-"
    print(f"{name:<34} {size:>10} {before:>10} {new:>10.3f} {ratio:>10}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old-scale", type=float, default=0.25, help="size of the old paths' runs, of the attack's")
    args = parser.parse_args()
    scale = args.old_scale
    print(f"{'path':<34} {'size':>10} {'old CPU s':>10} {'new CPU s':>10} {'old/new':>10}")

    small = int(60_000 * scale)
    row(
        "delimiter, one header line",
        f"{small:,}",
        cpu(lambda: csv.Sniffer().sniff(header(small), ",\t;|")),
        cpu(lambda: delimiter_of([header(small)])),
    )
    row("delimiter, one header line", "60,000", None, cpu(lambda: delimiter_of([header(60_000)])))

    small = int(48_000 * scale)
    old_pair, new_pair = (cyclic(small, 1), cyclic(small, 7)), (cyclic(48_000, 1), cyclic(48_000, 7))
    old = cpu(lambda: "".join(difflib.unified_diff(old_pair[0].splitlines(True), old_pair[1].splitlines(True))))
    row("draft diff, reordered lines", f"{small:,}", old, cpu(lambda: unified_diff(*old_pair, "v1", "v2")))
    for chars in (48_000, 150_000):
        pair = (cyclic(chars, 1), cyclic(chars, 7)) if chars != 48_000 else new_pair
        row("draft diff, reordered lines", f"{chars:,}", None, cpu(lambda pair=pair: unified_diff(*pair, "v1", "v2")))

    small = int(4_000 * scale)
    row("wrap one overlong word", f"{small:,}", cpu(lambda: old_wrap("m" * small)), cpu(lambda: new_wrap("m" * small)))
    row("wrap one overlong word", "4,000", None, cpu(lambda: new_wrap("m" * 4_000)))


if __name__ == "__main__":
    main()
