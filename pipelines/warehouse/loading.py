"""Parse source files into the raw zone: once per (content, client, parser version).

``sync_raw_kind`` makes the raw zone of one file kind match the current
sources: new files are parsed and written (every Parquet file temp + rename,
then a per-file state record, so a crash leaves no file half-counted),
files whose batch is no longer confirmed are removed, files already there
are left alone. Re-running gives the same files.

Rows a reviewer excluded from an import batch never reach the raw zone: they
are dropped from the batch's parsed tables (an excluded claim takes its
service lines, adjustments and remarks with it), and a file is parsed again
when its set of exclusions changes. Folder drops have no review: all rows load.

Rows a reviewer repaired (``ingestion.repairImportRow``) reach the raw zone repaired: the repaired
values are written over the parsed row (``apply_repairs``), so the marts read what was confirmed, and a
file is parsed again when its repairs change.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import polars as pl

from pipelines.ingest.money import quantize
from pipelines.ingest.tabular import TabularFileError, read_tabular
from pipelines.ingest.x12 import X12ParseError, parse_x12_file
from pipelines.warehouse.layout import EMPTY_FILE, WarehouseLayout, atomic_write_bytes, temp_path_for
from pipelines.warehouse.raw_tables import (
    CSV_TABLE_FOR_ENTITY,
    RAW_PARSER_VERSION,
    conform_raw,
    empty_raw,
    tables_of_kind,
)
from pipelines.warehouse.sources import RowExclusion, RowRepair, SourceFile

#: money columns summed into each table's materialisation metadata
MONEY_TOTALS: dict[str, tuple[str, ...]] = {
    "remittances": ("total_paid", "plb_total"),
    "remittance_claims": ("total_charge", "paid_amount", "patient_responsibility"),
    "remittance_adjustments": ("amount",),
    "remittance_service_lines": ("charge_amount", "paid_amount"),
    "provider_adjustments": ("amount",),
    "claims": ("total_charge",),
    "claim_lines": ("charge_amount",),
    "csv_claims": ("billed_amount",),
    "csv_payments": ("paid_amount", "adjustment_amount"),
    "csv_denials": ("denied_amount",),
    "csv_deposits": ("amount",),
}
# Below this many bytes of new input, a worker pool costs more than it saves.
_PARALLEL_MIN_BYTES = 32 * 1024 * 1024


class RawLoadError(ValueError):
    """A source file in a known format could not be parsed; names the file and the place, never its content."""


class NotLoadable(Exception):
    """The file is not in a format the raw layer loads (reported, not fatal, for drops)."""


@dataclass
class TableStats:
    rows: int = 0
    totals: dict[str, Decimal] = field(default_factory=dict)

    def add(self, rows: int, totals: dict[str, str]) -> None:
        self.rows += rows
        for name, value in totals.items():
            self.totals[name] = self.totals.get(name, Decimal("0.00")) + Decimal(value)


@dataclass
class SyncResult:
    """What one sync of a file kind did, and what the raw zone now holds for it."""

    kind: str
    parsed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # file name -> why (not a format we load)
    tables: dict[str, TableStats] = field(default_factory=dict)


def parse_source(src: SourceFile) -> dict[str, pl.DataFrame]:
    """The raw tables of one source file without its excluded rows, with lineage columns. Raises RawLoadError."""
    tables = apply_repairs(drop_excluded(_parse_by_kind(src), src.kind, src.exclusions), src.kind, src.repairs)
    lineage = {
        "organization_id": pl.lit(src.organization_id, pl.Int64),
        "client_id": pl.lit(src.client_id, pl.Int64),
        "batch_id": pl.lit(src.batch_id, pl.Int64),
        "source_file_sha256": pl.lit(src.sha256, pl.String),
    }
    return {name: conform_raw(frame.with_columns(**lineage), name) for name, frame in tables.items()}


def _parse_by_kind(src: SourceFile) -> dict[str, pl.DataFrame]:
    if src.kind in ("835", "837"):
        try:
            try:
                result = parse_x12_file(src.path)
            except X12ParseError:
                # Envelope counts/control numbers are often wrong in real files and do not change money.
                result = parse_x12_file(src.path, strict_envelopes=False)
        except X12ParseError as exc:
            raise RawLoadError(f"{src.name} (sha256 {src.sha256[:12]}...): {exc}") from None
        if result.kind != src.kind:
            raise RawLoadError(f"{src.name}: expected an X12 {src.kind} file, found {result.kind}")
        return result.tables
    if src.kind == "csv":
        try:
            tabular = read_tabular(src.path.read_bytes(), filename=src.name)
        except TabularFileError as exc:
            raise NotLoadable(str(exc)) from None
        # One export is one entity; the kind's other tables get nothing from this file.
        return {CSV_TABLE_FOR_ENTITY[tabular.entity]: tabular.rows.drop("row_errors", strict=False)}
    raise ValueError(f"unknown raw file kind {src.kind!r}")


def _keys(exclusions: Iterable[RowExclusion], entities: tuple[str, ...], *names: str) -> pl.DataFrame:
    rows = [tuple(getattr(x, n) for n in names) for x in exclusions if x.entity in entities]
    return pl.DataFrame(rows, schema=dict.fromkeys(names, pl.Int64), orient="row")


def _without(frame: pl.DataFrame, keys: pl.DataFrame, on: dict[str, str]) -> pl.DataFrame:
    """``frame`` minus the rows whose ``on`` columns (frame column -> key column) match a row of ``keys``."""
    if keys.height == 0 or frame.height == 0:
        return frame
    keys = keys.rename({k: f for f, k in on.items() if f != k}).select(list(on)).unique()
    return frame.join(keys, on=list(on), how="anti", nulls_equal=False, maintain_order="left")


def drop_excluded(
    tables: dict[str, pl.DataFrame], kind: str, exclusions: Iterable[RowExclusion]
) -> dict[str, pl.DataFrame]:
    """The parsed tables of a batch's file without the rows excluded from the batch.

    X12 rows are located by file-global keys: a claim by its claim index (its
    service lines, adjustments and remarks go with it), a service line or 837
    claim line by its segment number (its line-level remarks go with it), a CAS
    triplet by segment number and triplet, a PLB pair by segment number and pair.
    CSV rows are located by their row number.
    """
    exclusions = list(exclusions)
    if not exclusions:
        return tables
    out = dict(tables)

    def apply(table: str, keys: pl.DataFrame, on: dict[str, str]) -> None:
        if table in out:
            out[table] = _without(out[table], keys, on)

    if kind == "835":
        claims = _keys(exclusions, ("remittance_claim",), "claim_index")
        lines = _keys(exclusions, ("service_line",), "segment_number")
        line_keys = ["claim_index", "line_index"]
        gone_lines = (
            _without(out["remittance_service_lines"], claims, {"claim_index": "claim_index"})
            .join(lines, on="segment_number", how="semi")
            .select(line_keys)
        )
        for table in ("remittance_claims", "remittance_service_lines", "remittance_adjustments", "remittance_remarks"):
            apply(table, claims, {"claim_index": "claim_index"})
        apply("remittance_service_lines", lines, {"segment_number": "segment_number"})
        apply("remittance_remarks", gone_lines, {k: k for k in line_keys})
        apply(
            "remittance_adjustments",
            _keys(exclusions, ("adjustment",), "segment_number", "part_index"),
            {"segment_number": "segment_number", "triplet_index": "part_index"},
        )
        apply(
            "provider_adjustments",
            _keys(exclusions, ("provider_adjustment",), "segment_number", "part_index"),
            {"segment_number": "segment_number", "pair_index": "part_index"},
        )
    elif kind == "837":
        claims = _keys(exclusions, ("claim",), "claim_index")
        apply("claims", claims, {"claim_index": "claim_index"})
        apply("claim_lines", claims, {"claim_index": "claim_index"})
        apply("claim_lines", _keys(exclusions, ("claim_line",), "segment_number"), {"segment_number": "segment_number"})
    elif kind == "csv":
        rows = _keys(exclusions, tuple({x.entity for x in exclusions if x.entity.startswith("csv_")}), "row_number")
        for table in list(out):
            apply(table, rows, {"row_number": "row_number"})
    return out


#: X12 import row entity -> (raw table, the row's key columns in that table -> RowRepair attribute, the
#: columns a repair may set). The columns are those ``ingestion.repairImportRow`` lets a person patch that
#: exist in the raw table (claim_level_/line_adjustment_total of a claim are derived sums: the marts
#: recompute them from the adjustments, so they are not written back).
X12_REPAIRS: dict[str, tuple[str, dict[str, str], tuple[str, ...]]] = {
    "remittance_claim": (
        "remittance_claims",
        {"claim_index": "claim_index"},
        (
            "patient_control_number",
            "claim_status_code",
            "total_charge",
            "paid_amount",
            "patient_responsibility",
            "payer_claim_control_number",
            "payer_name",
            "statement_from",
            "statement_to",
            "payment_date",
        ),
    ),
    "adjustment": (
        "remittance_adjustments",
        {"segment_number": "segment_number", "triplet_index": "part_index"},
        ("group_code", "carc", "amount"),
    ),
    "service_line": (
        "remittance_service_lines",
        {"segment_number": "segment_number"},
        ("procedure_code", "charge_amount", "paid_amount"),
    ),
    "provider_adjustment": (
        "provider_adjustments",
        {"segment_number": "segment_number", "pair_index": "part_index"},
        ("reason_code", "amount", "reference_id"),
    ),
    "claim": (
        "claims",
        {"claim_index": "claim_index"},
        ("patient_control_number", "total_charge", "payer_name", "statement_from", "statement_to"),
    ),
    "claim_line": ("claim_lines", {"segment_number": "segment_number"}, ("procedure_code", "charge_amount")),
}


def _typed(value: Any, dtype: pl.DataType) -> Any:
    """A repaired row's canonical JSON value (money and dates as text) as the raw column's Python value."""
    if value is None or value == "":
        return None
    if dtype == pl.Date:
        return date.fromisoformat(str(value)[:10])
    if isinstance(dtype, pl.Decimal):
        return Decimal(str(value))
    if dtype.is_integer():
        return int(value)
    if dtype.is_float():
        return float(value)
    if dtype == pl.Boolean:
        return bool(value)
    return str(value)


def _set_row(frame: pl.DataFrame, match: pl.Expr, values: dict[str, Any]) -> pl.DataFrame:
    """``frame`` with ``values`` written into the rows ``match`` selects (list columns are left alone)."""
    updates = []
    for name, value in values.items():
        dtype = frame.schema.get(name)
        if dtype is None or isinstance(dtype, pl.List):
            continue
        typed = pl.lit(_typed(value, dtype), dtype=dtype)
        updates.append(pl.when(match).then(typed).otherwise(pl.col(name)).alias(name))
    return frame.with_columns(updates) if updates else frame


def apply_repairs(tables: dict[str, pl.DataFrame], kind: str, repairs: Iterable[RowRepair]) -> dict[str, pl.DataFrame]:
    """The parsed tables of a batch's file with its repaired rows' values written over the parsed ones.

    X12 rows are located as ``drop_excluded`` locates them; a CSV row by its row number, and a repaired
    CSV row passed the reader's validation again, so it is ``valid`` (an invalid row reaches the marts
    only repaired)."""
    out = dict(tables)
    for repair in repairs:
        values = json.loads(repair.values)
        if kind == "csv":
            values = {**values, "row_status": "valid"}
            for table, frame in out.items():
                out[table] = _set_row(frame, pl.col("row_number") == repair.row_number, values)
            continue
        spec = X12_REPAIRS.get(repair.entity)
        if spec is None or spec[0] not in out:
            continue
        table, keys, columns = spec
        match = pl.lit(True)
        for column, attribute in keys.items():
            match = match & (pl.col(column) == getattr(repair, attribute))
        out[table] = _set_row(out[table], match, {c: values.get(c) for c in columns})
    return out


def _totals(frame: pl.DataFrame, table: str) -> dict[str, str]:
    out = {}
    for column in MONEY_TOTALS.get(table, ()):
        value = frame[column].sum() if frame.height else None
        out[column] = str(quantize(value if value is not None else 0))
    return out


def _write_parquet_atomic(frame: pl.DataFrame, path: Path) -> None:
    tmp = temp_path_for(path)
    try:
        frame.write_parquet(tmp, compression="zstd", statistics=True)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load_one(src: SourceFile, data_dir: str) -> dict[str, Any]:
    """Parse one file and write its raw tables and state record; returns the state record.

    Top-level and picklable so a process pool can run it.
    """
    layout = WarehouseLayout.at(data_dir)
    try:
        tables = parse_source(src)
    except NotLoadable as exc:
        return {"key": src.key, "skipped": str(exc), "name": src.name}
    table_records: dict[str, dict[str, Any]] = {}
    record: dict[str, Any] = {
        "key": src.key,
        "name": src.name,
        "kind": src.kind,
        "sha256": src.sha256,
        "organization_id": src.organization_id,
        "client_id": src.client_id,
        "batch_id": src.batch_id,
        "parser_version": RAW_PARSER_VERSION,
        "exclusions_digest": src.exclusions_digest,
        "repairs_digest": src.repairs_digest,
        "tables": table_records,
    }
    for table in tables_of_kind(src.kind):
        frame = tables.get(table)
        target = layout.raw_file(table, src.key)
        if frame is None or frame.height == 0:
            target.unlink(missing_ok=True)
            table_records[table] = {"rows": 0, "totals": _totals(empty_raw(table), table)}
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_parquet_atomic(frame, target)
        table_records[table] = {"rows": frame.height, "totals": _totals(frame, table)}
    # The state record is written last: it is what says "this file is done".
    atomic_write_bytes(layout.raw_state_dir / f"{src.key}.json", json.dumps(record, sort_keys=True).encode())
    return record


def ensure_empty_files(layout: WarehouseLayout, tables: Iterable[str]) -> None:
    """Write each table's zero-row schema file once (keeps dbt's glob valid with no data)."""
    for table in tables:
        path = layout.raw_table_dir(table) / EMPTY_FILE
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_parquet_atomic(empty_raw(table), path)


def _read_state(layout: WarehouseLayout, kind: str) -> dict[str, dict[str, Any]]:
    states = {}
    if layout.raw_state_dir.is_dir():
        for path in layout.raw_state_dir.glob("*.json"):
            record = json.loads(path.read_text())
            if record.get("kind") == kind:
                states[record["key"]] = record
    return states


def _remove(layout: WarehouseLayout, record: dict[str, Any]) -> None:
    for table in tables_of_kind(record["kind"]):
        layout.raw_file(table, record["key"]).unlink(missing_ok=True)
    (layout.raw_state_dir / f"{record['key']}.json").unlink(missing_ok=True)


def _is_current(record: dict[str, Any], src: SourceFile) -> bool:
    return (
        record.get("parser_version") == RAW_PARSER_VERSION
        and record.get("batch_id") == src.batch_id
        and record.get("organization_id") == src.organization_id
        and record.get("exclusions_digest", "") == src.exclusions_digest
        and record.get("repairs_digest", "") == src.repairs_digest
    )


def sync_raw_kind(
    layout: WarehouseLayout,
    kind: str,
    sources: Iterable[SourceFile],
    *,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> SyncResult:
    """Make the raw zone of ``kind`` hold exactly the files of ``sources`` of that kind."""
    wanted = {s.key: s for s in sources if s.kind == kind}
    result = SyncResult(kind)
    ensure_empty_files(layout, tables_of_kind(kind))
    states = _read_state(layout, kind)
    for key, record in states.items():
        if key not in wanted:
            _remove(layout, record)
            result.removed.append(record.get("name", key))
    todo = [s for key, s in wanted.items() if key not in states or not _is_current(states[key], s)]
    records = [states[key] for key, s in wanted.items() if key in states and _is_current(states[key], s)]
    result.kept = [r["name"] for r in records]
    for record in _run_loads(todo, layout, workers, progress):
        if "skipped" in record:
            result.skipped[record["name"]] = record["skipped"]
            continue
        result.parsed.append(record["name"])
        records.append(record)
    result.tables = _table_stats(kind, records)
    return result


def _table_stats(kind: str, records: list[dict[str, Any]]) -> dict[str, TableStats]:
    """Rows and money totals per raw table of ``kind`` over the loaded files (zero totals when none)."""
    out: dict[str, TableStats] = {}
    for table in tables_of_kind(kind):
        stats = out.setdefault(table, TableStats())
        for record in records:
            info = record["tables"].get(table)
            if info:
                stats.add(info["rows"], info["totals"])
        if not stats.totals:
            stats.add(0, _totals(empty_raw(table), table))
    return out


class _SharedWorkers:
    """The parse workers of one run, started on first use and kept until the run ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None

    def pool(self, workers: int) -> ProcessPoolExecutor:
        # Sized by the first step that needs it: every step of a run has the run's parse_workers.
        with self._lock:
            if self._pool is None:
                self._pool = _new_pool(workers)
            return self._pool

    def close(self, *, broken: bool = False) -> None:
        """Stop the workers: at the end of the run, or at once when one died (the next step starts afresh)."""
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=not broken, cancel_futures=broken)
            self._pool = None


_SHARED_WORKERS: ContextVar[_SharedWorkers | None] = ContextVar("raw_parse_workers", default=None)


@contextmanager
def shared_parse_workers() -> Iterator[None]:
    """Let every raw step run in this context (one in-process pipeline run) share its parse workers.

    A run parses its 835s, 837s and CSV exports in three steps; starting a worker process and
    importing the parser costs about half a second per step on a 2-core machine, paid while the
    cores wait. The pool starts when a step first needs it and stops when the context ends, so no
    idle worker outlives the run (the API runs pipelines inside its own process). Outside this
    context (Dagster's multiprocess runs) each step starts and stops its own pool, as before.
    """
    shared = _SharedWorkers()
    token = _SHARED_WORKERS.set(shared)
    try:
        yield
    finally:
        _SHARED_WORKERS.reset(token)
        shared.close()


def _new_pool(workers: int) -> ProcessPoolExecutor:
    # spawn, not fork: Polars' thread pool does not survive fork.
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))


def _run_loads(
    todo: list[SourceFile], layout: WarehouseLayout, workers: int | None, progress: Callable[[str], None] | None
) -> Iterable[dict[str, Any]]:
    data_dir = str(layout.data_dir)
    total_bytes = sum(s.path.stat().st_size for s in todo)
    workers = workers if workers is not None else min(os.cpu_count() or 1, 4)
    if workers <= 1 or len(todo) < 2 or total_bytes < _PARALLEL_MIN_BYTES:
        for src in todo:
            yield load_one(src, data_dir)
            if progress:
                progress(src.name)
        return
    # One Polars thread per worker: the workers already use every core, and nested thread pools
    # only contend (measured ~12 %). A worker reads the variable when it starts, which is during
    # the submits below (ProcessPoolExecutor starts spawned workers as tasks arrive).
    ordered = sorted(todo, key=lambda s: -s.path.stat().st_size)
    previous = os.environ.get("POLARS_MAX_THREADS")
    os.environ["POLARS_MAX_THREADS"] = "1"
    shared = _SHARED_WORKERS.get()
    try:
        if shared is None:
            with _new_pool(workers) as pool:
                yield from _loads_in(pool, ordered, data_dir, progress)
        else:
            try:
                yield from _loads_in(shared.pool(workers), ordered, data_dir, progress)
            except BrokenProcessPool:
                shared.close(broken=True)
                raise
    finally:
        if previous is None:
            os.environ.pop("POLARS_MAX_THREADS", None)
        else:
            os.environ["POLARS_MAX_THREADS"] = previous


def _loads_in(
    pool: ProcessPoolExecutor, ordered: list[SourceFile], data_dir: str, progress: Callable[[str], None] | None
) -> Iterator[dict[str, Any]]:
    futures = [pool.submit(load_one, src, data_dir) for src in ordered]
    for future, src in zip(futures, ordered, strict=True):
        yield future.result()
        if progress:
            progress(src.name)
