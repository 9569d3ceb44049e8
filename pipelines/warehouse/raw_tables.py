"""The raw tables: which file kind produces which table, and each table's schema.

A raw table is the parser's output table plus the tenant and lineage columns,
so every row can be traced to the file it came from and scoped to a tenant.
"""

from __future__ import annotations

import polars as pl

from pipelines.ingest.tabular.entities import entity_spec
from pipelines.ingest.x12.schemas import TABLES_835, TABLES_837

# Bump when the rows a file produces change: every file is re-parsed once.
RAW_PARSER_VERSION = "raw-2026.11.3"

LINEAGE_COLUMNS: dict[str, pl.DataType] = {
    "organization_id": pl.Int64(),
    "client_id": pl.Int64(),
    "batch_id": pl.Int64(),
    "source_file_sha256": pl.String(),
}

_CSV_ENTITIES = {
    "csv_claims": "claim",
    "csv_payments": "payment",
    "csv_denials": "denial",
    "csv_deposits": "deposit",
}
CSV_TABLE_FOR_ENTITY = {entity: table for table, entity in _CSV_ENTITIES.items()}


def _csv_schema(entity: str) -> dict[str, pl.DataType]:
    spec = entity_spec(entity)
    schema = {f.name: f.dtype for f in spec.fields}
    schema["row_number"] = pl.Int64()
    schema["row_status"] = pl.String()
    return schema


#: file kind -> {raw table -> parser schema (without lineage columns)}
KIND_TABLES: dict[str, dict[str, dict[str, pl.DataType]]] = {
    "835": dict(TABLES_835),
    "837": dict(TABLES_837),
    "csv": {table: _csv_schema(entity) for table, entity in _CSV_ENTITIES.items()},
}

#: raw table -> full schema (parser columns + lineage columns)
RAW_SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    table: {**schema, **LINEAGE_COLUMNS} for tables in KIND_TABLES.values() for table, schema in tables.items()
}


def tables_of_kind(kind: str) -> tuple[str, ...]:
    """The raw tables a file kind (``835``, ``837``, ``csv``) fills."""
    try:
        return tuple(KIND_TABLES[kind])
    except KeyError:
        raise ValueError(f"unknown raw file kind {kind!r}; expected one of {sorted(KIND_TABLES)}") from None


def conform_raw(frame: pl.DataFrame, table: str) -> pl.DataFrame:
    """Exactly the raw table's columns, in order and type (missing columns as null)."""
    schema = RAW_SCHEMAS[table]
    present = set(frame.columns)
    return frame.select([(pl.col(n) if n in present else pl.lit(None)).cast(t).alias(n) for n, t in schema.items()])


def empty_raw(table: str) -> pl.DataFrame:
    """A zero-row frame with the raw table's schema."""
    return pl.DataFrame(schema=RAW_SCHEMAS[table])
