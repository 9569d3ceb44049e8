"""Benchmark: rendering a 40-page appeal packet (appealAssembly.render's pure renderer) vs fpdf2 alone.

The packet (built in memory, deterministic): the generated cover, contents, a two-page letter and the
evidence index, then evidence totalling 40 pages with them: two text-layer PDFs made by fpdf2 (appended
with pypdf and footer-stamped), three scanned-page images (grayscale 1275x1650, 150 dpi letter, one
per page, scaled to fit) and a typeset text document. The number of pages of the first PDF is chosen
so the whole packet is exactly `--pages` pages.

Baselines, measured in the same run and interleaved run by run: fpdf2 rendering `--pages` plain pages
of the same letter text in the same font (no images, no merge, no footers) to bytes, once with
`multi_cell` (fpdf2's own paragraph wrapping) and once with one `cell` per pre-wrapped line (the
primitive the renderer uses: it wraps text itself so it knows page counts before drawing). The ratio says
what assembling (layout, images, pypdf merge, overlays, the final write) costs over typesetting the
same number of pages. The issue's goal: the packet renders in under 2 s.

    .venv/bin/python bench/appeal_packet.py                 # 40 pages, 7 runs
    .venv/bin/python bench/appeal_packet.py --pages 120 --runs 5
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fpdf import FPDF  # noqa: E402
from PIL import Image  # noqa: E402

from api.denials.appeal_assembly.contents import EvidenceItem, items_hash, sha256_hex  # noqa: E402
from api.denials.appeal_assembly.render import Cover, PacketInput, render  # noqa: E402

CREATED = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
SENTENCE = (
    "The services were reasonable and medically necessary for the condition documented on the date of "
    "service, and the enclosed records show each criterion of the coverage policy in turn. "
)
LETTER = "Re: First-level appeal (redetermination): Medical necessity\n\n" + SENTENCE * 55


def text_pdf(pages: int, label: str) -> bytes:
    doc = FPDF(format="Letter")
    doc.set_creation_date(CREATED)
    for n in range(1, pages + 1):
        doc.add_page()
        doc.set_font("Helvetica", size=10)
        doc.multi_cell(0, 5, f"{label}, page {n}\n" + SENTENCE * 12)
    return bytes(doc.output())


def scan(seed: int) -> bytes:
    rng = random.Random(seed)
    image = Image.new("L", (1275, 1650), 255)
    pixels = image.load()
    assert pixels is not None
    for row in range(120, 1500, 28):  # "lines of text": short dark runs
        x = 100
        while x < 1150:
            run = rng.randint(8, 60)
            for dx in range(run):
                for dy in range(12):
                    pixels[min(x + dx, 1274), row + dy] = rng.randint(0, 90)
            x += run + rng.randint(6, 20)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False)
    return out.getvalue()


def item(n: int, title: str, media_type: str, content: bytes) -> EvidenceItem:
    return EvidenceItem(n, title, "clinical_notes", media_type, sha256_hex(content), content, None)


def packet(first_pdf_pages: int, scans: list[bytes]) -> PacketInput:
    evidence = (
        item(1, "Progress notes of the admission", "application/pdf", text_pdf(first_pdf_pages, "Progress notes")),
        item(2, "Operative report", "application/pdf", text_pdf(4, "Operative report")),
        *(item(3 + i, f"Scanned authorization page {i + 1}", "image/png", data) for i, data in enumerate(scans)),
        item(6, "Physician letter of medical necessity", "text/plain", (SENTENCE * 60).encode()),
    )
    return PacketInput(
        cover=Cover(
            title="Appeal packet (benchmark)",
            facts=(("Payer", "NORTHWIND HEALTH PLAN"), ("Payer claim number", "ICN-20240301-77")),
            form_title="Northwind Health Plan Provider Appeal Request",
            form_fields=(("Claim number", "ICN-20240301-77"), ("Member name", "")),
        ),
        letter_text=LETTER,
        evidence=evidence,
        content_hash=items_hash(LETTER, "medical_necessity.first_level/1", evidence),
        created_at=CREATED,
    )


def baseline(pages: int) -> bytes:
    """fpdf2 alone: `pages` plain pages of the letter's text, same font, to bytes."""
    doc = FPDF(format="Letter")
    doc.set_creation_date(CREATED)
    doc.set_auto_page_break(False)
    for _ in range(pages):
        doc.add_page()
        doc.set_font("Helvetica", size=10.5)
        doc.set_xy(20, 20)
        doc.multi_cell(175.9, 5, SENTENCE * 13)
    return bytes(doc.output())


def baseline_lines(pages: int) -> bytes:
    """fpdf2 alone, the renderer's own primitive: `pages` pages of 47 pre-wrapped lines, one cell each."""
    doc = FPDF(format="Letter")
    doc.set_creation_date(CREATED)
    doc.set_auto_page_break(False)
    line = SENTENCE[:95]
    for _ in range(pages):
        doc.add_page()
        doc.set_font("Helvetica", size=10.5)
        for n in range(47):
            doc.set_xy(20, 20 + 5 * n)
            doc.cell(175.9, 5, line)
    return bytes(doc.output())


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=40, help="total pages of the packet (default 40)")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    scans = [scan(seed) for seed in range(3)]
    probe = render(packet(1, scans))
    first_pages = args.pages - (probe.page_count - 1)
    if first_pages < 1:
        raise SystemExit(f"--pages must be at least {probe.page_count}")
    subject = packet(first_pages, scans)
    out = render(subject)
    assert out.page_count == args.pages, out.page_count
    assert render(subject).pdf == out.pdf  # deterministic
    print(
        f"packet: {out.page_count} pages, {len(out.pdf) / 1e6:.2f} MB; sections: "
        + ", ".join(f"{s.name.split(':')[0]} {s.page_count}p" for s in out.sections)
    )

    ours, plain, lines = [], [], []
    for _ in range(args.runs):  # interleaved: all see the same machine load
        ours.append(timed(lambda: render(subject)))
        plain.append(timed(lambda: baseline(args.pages)))
        lines.append(timed(lambda: baseline_lines(args.pages)))
    ours_wall, ours_cpu = (statistics.median(t[i] for t in ours) for i in (0, 1))
    print(
        f"render packet            median of {args.runs}: {ours_wall * 1000:8.1f} ms wall {ours_cpu * 1000:8.1f} ms CPU"
    )
    for name, runs in ((f"fpdf2 {args.pages}p multi_cell", plain), (f"fpdf2 {args.pages}p cell/line", lines)):
        wall, cpu = (statistics.median(t[i] for t in runs) for i in (0, 1))
        print(f"{name:<24} median of {args.runs}: {wall * 1000:8.1f} ms wall {cpu * 1000:8.1f} ms CPU")
        print(f"  ratio packet / {name}: {ours_wall / wall:.2f}x wall, {ours_cpu / cpu:.2f}x CPU")
    print(f"goal < 2 s: {'met' if ours_wall < 2 else 'NOT met'} ({ours_wall:.3f} s)")


if __name__ == "__main__":
    main()
