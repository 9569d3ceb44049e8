"""The CSV rendering of clientRoiPortal.export."""

from __future__ import annotations

import csv
import io

from api.intelligence.client_roi_portal.schemas import ExportRow

COLUMNS = list(ExportRow.model_fields)


def export_csv(rows: list[ExportRow]) -> str:
    """The rows as CSV with a header of the snake_case columns; money with two decimals, null as empty."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        data = row.model_dump(mode="json")
        writer.writerow(["" if data[c] is None else data[c] for c in COLUMNS])
    return buffer.getvalue()
