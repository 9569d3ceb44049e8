"""The extract declares the operational columns it reads by hand (the pipelines never import the API);
every one of them must exist in the ORM models with a compatible type, so renaming or retyping a model
column fails here instead of in a pipeline run."""

from __future__ import annotations

import pytest
from sqlalchemy import types as sqltypes
from sqlalchemy.sql.type_api import TypeEngine

from api.infra.db.registry import load_all_models
from pipelines.ingest.money import MONEY_PRECISION, MONEY_SCALE
from pipelines.warehouse.extract import _TYPES, EXTRACT_TABLES


def _base_type(type_: TypeEngine) -> TypeEngine:
    """The storage type behind a ``TypeDecorator`` (e.g. the UTC datetime wrapper)."""
    while isinstance(type_, sqltypes.TypeDecorator):
        type_ = type_.impl_instance
    return type_


def _compatible(kind: str, type_: TypeEngine) -> bool:
    """Whether a model column of ``type_`` can be read as the extract's ``kind``."""
    base = _base_type(type_)
    if kind in ("id", "int"):
        return isinstance(base, sqltypes.Integer)
    if kind == "text":
        return isinstance(base, sqltypes.String)
    if kind == "money":
        return (
            isinstance(base, sqltypes.Numeric)
            and not isinstance(base, sqltypes.Float)
            and (base.precision, base.scale) == (MONEY_PRECISION, MONEY_SCALE)
        )
    if kind == "date":
        return isinstance(base, sqltypes.Date)
    if kind == "ts":
        return isinstance(base, sqltypes.DateTime) and bool(base.timezone)
    if kind == "bool":
        return isinstance(base, sqltypes.Boolean)
    if kind == "json":
        return isinstance(base, sqltypes.JSON)
    raise AssertionError(f"the extract declares a type name this test does not know: {kind!r}")


READS = sorted(
    (extract.name, table, column, kind)
    for extract in EXTRACT_TABLES.values()
    for table, columns in extract.operational_columns().items()
    for column, kind in columns.items()
)


def test_every_type_name_is_covered():
    assert {kind for *_, kind in READS} <= set(_TYPES)
    assert len(READS) > 50  # every extract, plain or derived, declares what it reads


@pytest.mark.parametrize(("extract", "table", "column", "kind"), READS, ids=[f"{r[1]}.{r[2]}" for r in READS])
def test_extract_column_exists_in_models_with_compatible_type(extract, table, column, kind):
    metadata = load_all_models().metadata
    assert table in metadata.tables, f"extract {extract!r} reads table {table!r}, which no model declares"
    model_table = metadata.tables[table]
    assert column in model_table.c, f"extract {extract!r} reads {table}.{column}, which the model does not declare"
    model_type = model_table.c[column].type
    assert _compatible(kind, model_type), f"{table}.{column} is {model_type!r} in the model; the extract reads {kind!r}"
