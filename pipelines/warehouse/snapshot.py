"""Reader side of the published marts: open the current snapshot read-only.

Usage (the API's read procedures)::

    snap = open_published(settings.data_dir)
    try:
        rows = snap.connection.execute(
            "select * from fct_kpis_monthly where organization_id = ? and client_id = ?", [org, client]
        ).fetchall()
    finally:
        snap.close()

A reader keeps reading the snapshot it opened even if a newer one is
published meanwhile (the file is immutable and kept for the next builds).
Every mart carries ``organization_id`` and ``client_id``: always filter on both. The
mart tables are in the snapshot's ``marts`` schema, which is the connection's default schema.
Mart names and columns are documented in ``dbt_project/models/marts/*.yml``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb

from pipelines.warehouse.layout import WarehouseLayout


class NoPublishedSnapshot(LookupError):
    """Nothing has been published yet (or the pointer names a missing file)."""


@dataclass
class PublishedSnapshot:
    """An open, read-only connection to one published snapshot."""

    built_at: datetime
    path: Path
    connection: duckdb.DuckDBPyConnection
    run_id: str | None
    tables: dict[str, int]

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> PublishedSnapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_pointer(data_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The published pointer document; NoPublishedSnapshot when there is none."""
    pointer = WarehouseLayout.at(data_dir).published_pointer
    try:
        doc: dict[str, Any] = json.loads(pointer.read_text())
        return doc
    except FileNotFoundError:
        raise NoPublishedSnapshot("no marts have been published yet: run the pipeline first") from None


def open_published(data_dir: str | os.PathLike[str]) -> PublishedSnapshot:
    """Open the currently published snapshot read-only."""
    for _attempt in range(2):
        doc = read_pointer(data_dir)
        path = Path(doc["snapshot"])
        try:
            connection = duckdb.connect(str(path), read_only=True)
            break
        except duckdb.IOException:
            # The pointer moved on and the file it named was pruned meanwhile: read the pointer again.
            continue
    else:
        raise NoPublishedSnapshot(f"the published snapshot {path.name} is missing")
    # Marts live in one schema of the snapshot; make it the default so plain names resolve.
    connection.execute(f"use {_quote(doc.get('schema', 'main'))}")
    built_at = datetime.fromisoformat(doc["built_at"].replace("Z", "+00:00"))
    return PublishedSnapshot(built_at, path, connection, doc.get("run_id"), dict(doc.get("tables", {})))


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
