"""Extract of the operational tables the marts need, declared per table.

Adding a table (``cases``, ``appeals``, ``outcomes``, ``deadlines``) is one
entry in ``EXTRACT_TABLES``. A table that does not exist yet in the
operational database yields an empty, typed extract (and says so), so the
marts build before the domain that owns it ships. dbt never reads the live
database: it reads these Parquet files.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import polars as pl
from sqlalchemy import Column as SAColumn
from sqlalchemy import Engine, MetaData, Result, Table, inspect, select, text
from sqlalchemy.types import JSON, BigInteger, Boolean, Date, DateTime, String, TypeEngine

from pipelines.ingest.money import POLARS_MONEY, SQLALCHEMY_MONEY, quantize
from pipelines.warehouse.layout import WarehouseLayout, temp_path_for

# Column type name -> (SQLAlchemy type used to read it, Polars type written)
_TYPES: dict[str, tuple[TypeEngine[Any], pl.DataType]] = {
    "id": (BigInteger(), pl.Int64()),
    "int": (BigInteger(), pl.Int64()),
    "text": (String(), pl.String()),
    "money": (SQLALCHEMY_MONEY, POLARS_MONEY),
    "date": (Date(), pl.Date()),
    "ts": (DateTime(timezone=True), pl.Datetime("us", "UTC")),
    "bool": (Boolean(), pl.Boolean()),
    "json": (JSON(), pl.String()),  # kept as JSON text; dbt models parse what they need
}


@dataclass(frozen=True)
class ExtractTable:
    """One operational table: its name and the columns the warehouse takes (name -> type name).

    ``reader`` makes a derived extract: it returns the rows (tuples in column
    order) from the database, or None when the tables it reads do not exist yet;
    ``reads`` then declares the operational columns it reads (table -> column ->
    type name), so they can be checked against the operational models like the
    columns of a plain table.
    """

    name: str
    columns: dict[str, str]
    reader: Callable[[Engine], list[tuple[Any, ...]] | None] | None = None
    reads: dict[str, dict[str, str]] | None = None

    def operational_columns(self) -> dict[str, dict[str, str]]:
        """The operational tables and columns this extract reads (table -> column -> type name)."""
        if self.reader is None:
            return {self.name: self.columns}
        return self.reads or {}

    def polars_schema(self) -> dict[str, pl.DataType]:
        return {c: _TYPES[t][1] for c, t in self.columns.items()}

    def sa_table(self) -> Table:
        return Table(self.name, MetaData(), *[SAColumn(c, _TYPES[t][0]) for c, t in self.columns.items()])


_TENANT = {"id": "id", "organization_id": "int", "client_id": "int"}

#: Row keys that locate an excluded import row in its file's parsed tables (from ImportRow.data).
EXCLUSION_KEYS = ("transaction_index", "claim_index", "line_index", "segment_number", "part_index")


#: The operational columns ``read_row_exclusions`` reads.
EXCLUSION_READS: dict[str, dict[str, str]] = {
    "import_rows": {
        **_TENANT,
        "batch_id": "int",
        "row_number": "int",
        "entity": "text",
        "parent_row_number": "int",
        "data": "json",
        "decision": "text",
    },
    "import_batches": {"id": "id", "status": "text"},
}


def read_row_exclusions(engine: Engine) -> list[tuple[Any, ...]] | None:
    """Rows excluded (decision = exclude) from confirmed import batches, with the keys that locate them.

    ``row_number`` is the import row number (for CSV rows, the file's row number);
    ``part_index`` is the CAS triplet or PLB pair. Only keys leave ``data``:
    it holds PHI, the keys do not.
    """
    found = inspect(engine)
    if not (found.has_table("import_rows") and found.has_table("import_batches")):
        return None
    query = text(
        "select r.id, r.organization_id, r.client_id, r.batch_id, r.row_number, r.entity, r.parent_row_number, r.data "
        "from import_rows r join import_batches b on b.id = r.batch_id "
        "where b.status = 'confirmed' and r.decision = 'exclude' order by r.id"
    )
    out = []
    with engine.connect() as conn:
        for row_id, org, client, batch_id, number, entity, parent, raw in plain_rows(conn.execute(query)):
            data: dict[str, Any] = json.loads(raw) if isinstance(raw, str) else (raw or {})
            part = data.get("triplet_index") if entity == "adjustment" else data.get("pair_index")
            keys = {**{k: data.get(k) for k in EXCLUSION_KEYS[:-1]}, "part_index": part}
            out.append(
                (
                    row_id,
                    org,
                    client,
                    batch_id,
                    number,
                    entity,
                    parent,
                    *[None if (key := keys[k]) is None else int(key) for k in EXCLUSION_KEYS],
                )
            )
    return out


EXTRACT_TABLES: dict[str, ExtractTable] = {
    t.name: t
    for t in (
        ExtractTable(
            "import_batches",
            {
                **_TENANT,
                "kind": "text",
                "status": "text",
                "content_sha256": "text",
                "source_format": "text",
                "parser_version": "text",
                "row_count": "int",
                "valid_count": "int",
                "invalid_count": "int",
                "excluded_count": "int",
                "entries_posted": "int",
                "totals": "json",
                "created_at": "ts",
                "confirmed_at": "ts",
            },
        ),
        ExtractTable(
            "financial_entries",
            {
                **_TENANT,
                "batch_id": "int",
                "entry_type": "text",
                "component": "text",
                "amount": "money",
                "claim_key": "text",
                "payer_claim_number": "text",
                "claim_status_code": "text",
                "billed_amount": "money",
                "payer": "text",
                "group_code": "text",
                "carc": "text",
                "rarcs": "json",
                "denial_category": "text",
                "is_denial": "bool",
                "service_date": "date",
                "payment_date": "date",
                "reference": "text",
                "reverses_entry_id": "int",
                "review_status": "text",
                "created_at": "ts",
            },
        ),
        # revenue-cycle costs recorded by a manager (analytics.recordCollectionCost): HFMA's cost to collect
        ExtractTable(
            "collection_costs",
            {**_TENANT, "month": "date", "amount": "money", "category": "text"},
        ),
        ExtractTable(
            "payer_aliases",
            {
                **_TENANT,
                "alias_kind": "text",
                "alias": "text",
                "canonical_payer_key": "text",
                "canonical_payer_id": "text",
                "payer_class": "text",
            },
        ),
        ExtractTable(
            "reconciliation_runs",
            {
                **_TENANT,
                "status": "text",
                "finished_at": "ts",
                "claims_considered": "int",
                "remittances_considered": "int",
                "matched": "int",
                "exception_counts": "json",
                "created_at": "ts",
            },
        ),
        ExtractTable(
            "reconciliation_exceptions",
            {
                **_TENANT,
                "run_id": "int",
                "exception_type": "text",
                "claim_key": "text",
                "payer": "text",
                "expected_amount": "money",
                "actual_amount": "money",
                "status": "text",
                "resolution": "text",
                "created_at": "ts",
                "resolved_at": "ts",
            },
        ),
        # A client's uploaded contract terms (ingestion, contract_terms CSV); int_contract_terms prices with them.
        ExtractTable(
            "contract_terms",
            {
                **_TENANT,
                "batch_id": "int",
                "payer_name": "text",
                "payer_key": "text",
                "payer_id": "text",
                "plan_code": "text",
                "method": "text",
                "procedure_code": "text",
                "modifier": "text",
                "drg_code": "text",
                "rate": "money",
                "percent_of_charges": "money",
                "lesser_of": "bool",
                "effective_from": "date",
                "effective_to": "date",
            },
        ),
        # Denial cases (api/denials/cases): state, owner, money and classification; no free text (hold
        # reason, update reason, recovery plan) leaves the operational database.
        ExtractTable(
            "denial_cases",
            {
                **_TENANT,
                "origin": "text",
                "event_kind": "text",
                "claim_key": "text",
                "payer": "text",
                "payer_id": "text",
                "payer_class": "text",
                "remittance_date": "date",
                "service_date": "date",
                "denial_category": "text",
                "group_code": "text",
                "carc": "text",
                "hard_or_soft": "text",
                "billed_amount": "money",
                "amount_at_stake": "money",
                "paid_before": "money",
                "recovered_amount": "money",
                "recovered_by_hand": "money",
                "written_off_amount": "money",
                "state": "text",
                "state_changed_at": "ts",
                "owner_user_id": "int",
                "escalated": "bool",
                "on_hold": "bool",
                "appeal_due_on": "date",
                "closed_at": "ts",
                "created_at": "ts",
            },
        ),
        # A case's moves (the decision of a case closed since is only in its history); reasons and
        # details stay behind (free text).
        ExtractTable(
            "denial_case_events",
            {
                **_TENANT,
                "case_id": "int",
                "kind": "text",
                "from_state": "text",
                "to_state": "text",
                "created_at": "ts",
                # who did it (a user id, never a name): None is the platform; ROI credits a person's work
                "actor_user_id": "int",
            },
        ),
        # Not a table: the rows reviewers excluded from confirmed batches. The raw layer drops them
        # from the batch's parsed file; here they are, for lineage and for what the marts left out.
        ExtractTable(
            "import_row_exclusions",
            {
                **_TENANT,
                "batch_id": "int",
                "row_number": "int",
                "entity": "text",
                "parent_row_number": "int",
                **dict.fromkeys(EXCLUSION_KEYS, "int"),
            },
            reader=read_row_exclusions,
            reads=EXCLUSION_READS,
        ),
    )
}


@dataclass(frozen=True)
class ExtractResult:
    table: str
    rows: int
    exists: bool
    path: str


def _cell(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "json":
        return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    if kind == "money":
        return quantize(value)
    if kind == "ts" and isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    if kind == "date" and isinstance(value, datetime):
        return value.date()
    return value


def read_table(engine: Engine, spec: ExtractTable) -> tuple[pl.DataFrame, bool]:
    """The table's declared columns as a typed frame; ``(empty frame, False)`` when the table does not exist."""
    schema = spec.polars_schema()
    kinds = list(spec.columns.values())
    rows: Sequence[Sequence[Any]] | None
    if spec.reader is not None:
        rows = spec.reader(engine)
        if rows is None:
            return pl.DataFrame(schema=schema), False
    elif not inspect(engine).has_table(spec.name):
        return pl.DataFrame(schema=schema), False
    else:
        table = spec.sa_table()
        with engine.connect() as conn:
            rows = conn.execute(select(table).order_by(table.c.id)).all()
    columns = {name: [_cell(row[i], kinds[i]) for row in rows] for i, name in enumerate(spec.columns)}
    return pl.DataFrame(columns, schema=schema), True


def extract_table(engine: Engine, layout: WarehouseLayout, spec: ExtractTable) -> ExtractResult:
    """Write one table's extract to ``extract/<table>.parquet`` atomically."""
    frame, exists = read_table(engine, spec)
    path = layout.extract_dir / f"{spec.name}.parquet"
    tmp = temp_path_for(path)
    try:
        frame.write_parquet(tmp, compression="zstd")
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return ExtractResult(spec.name, frame.height, exists, str(path))


def plain_rows(result: Result[Any]) -> list[tuple[Any, ...]]:
    """The rows of a textual query as plain tuples of untyped values (the SQL decides their types)."""
    return [tuple(row) for row in result]
