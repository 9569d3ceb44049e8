"""The CSV rendering of clientRoiPortal.export."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def export_csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """The rows (JSON values by column: money already two-decimal text) as CSV with a header of the
    snake_case columns; null as empty."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for data in rows:
        writer.writerow(["" if data[c] is None else data[c] for c in columns])
    return buffer.getvalue()
