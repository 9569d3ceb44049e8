"""Cast a ``RawTable`` to the canonical schema with per-row reasons.

All casts and checks are Polars expressions over whole columns. A reason
names the field and, for non-PHI fields only, the offending text
(``billed_amount: '12x.00' is not a money amount``); PHI fields get a
value-free reason (``patient_birth_date: not a date``).
"""

from __future__ import annotations

import polars as pl

from pipelines.ingest.tabular.entities import EntitySpec, FieldSpec
from pipelines.ingest.tabular.reason_split import split_reason_codes
from pipelines.ingest.tabular.value_formats import (
    MoneyFormat,
    auto_date_format,
    clean_text,
    code_expr,
    code_list_expr,
    date_expr,
    money_expr,
)

_MAX_QUOTED = 40
META_COLUMNS = ("row_number", "row_status", "row_errors")


def _quoted(value: pl.Expr) -> pl.Expr:
    shortened = (
        pl.when(value.str.len_chars() > _MAX_QUOTED)
        .then(value.str.slice(0, _MAX_QUOTED) + pl.lit("..."))
        .otherwise(value)
    )
    return pl.lit("'") + shortened + pl.lit("'")


def _bad_value(spec: FieldSpec, raw: pl.Expr, what: str) -> pl.Expr:
    if spec.phi:
        return pl.lit(f"{spec.name}: not {what}")
    return pl.lit(f"{spec.name}: ") + _quoted(raw) + pl.lit(f" is not {what}")


_DATE_SAMPLE = 2000


def _raw_name(name: str) -> str:
    return f"__raw_{name}"


def _typed(spec: FieldSpec, date_format: str | None, money_format: MoneyFormat, comma_only: bool) -> pl.Expr:
    """Typed value from an already-cleaned string column."""
    source = pl.col(spec.name)
    if spec.kind == "money":
        return money_expr(source, money_format, cleaned=True)
    if spec.kind == "date":
        return date_expr(source, date_format, cleaned=True)
    if spec.kind == "code":
        return code_expr(source, cleaned=True)
    if spec.kind == "code_list":
        return code_list_expr(source, cleaned=True, comma_only=comma_only)
    return source


def _errors(spec: FieldSpec) -> list[tuple[pl.Expr, pl.Expr]]:
    """(failing condition, reason) pairs for one field."""
    raw, typed = pl.col(_raw_name(spec.name)), pl.col(spec.name)
    checks: list[tuple[pl.Expr, pl.Expr]] = []
    if spec.kind in ("money", "date"):
        what = "a money amount" if spec.kind == "money" else "a date"
        checks.append((raw.is_not_null() & typed.is_null(), _bad_value(spec, raw, what)))
    if spec.required:
        checks.append((raw.is_null(), pl.lit(f"{spec.name}: required value missing")))
    return checks


def _date_formats(frame: pl.DataFrame, spec: EntitySpec, date_format: str | None) -> dict[str, str | None]:
    """Per date column: the single layout a sample shows (fast path), or None for per-value detection."""
    if date_format is not None:
        return {f.name: date_format for f in spec.fields if f.kind == "date"}
    return {
        f.name: auto_date_format(frame.get_column(f.name).drop_nulls().head(_DATE_SAMPLE))
        for f in spec.fields
        if f.kind == "date" and f.name in frame.columns
    }


def _repair_dates(typed: pl.DataFrame, column: str) -> pl.DataFrame:
    """Re-parse, with every auto layout, only the values the sampled layout rejected."""
    raw = _raw_name(column)
    failed = typed.select((pl.col(raw).is_not_null() & pl.col(column).is_null()).arg_true()).to_series()
    if failed.len() == 0:
        return typed
    retried = typed.select(pl.col(raw).gather(failed)).select(date_expr(pl.col(raw))).to_series()
    return typed.with_columns(typed.get_column(column).scatter(failed, retried))


def canonicalise(
    frame: pl.DataFrame,
    spec: EntitySpec,
    *,
    date_format: str | None = None,
    money_format: MoneyFormat = "us",
) -> pl.DataFrame:
    """Canonical columns (schema order) + row_number, row_status, row_errors."""
    present = [f for f in spec.fields if f.name in frame.columns]
    identifiers = [n for n in spec.identifiers if n in frame.columns]
    cleaned = frame.select(
        *[clean_text(pl.col(f.name)).alias(f.name) for f in present], pl.col("row_number").cast(pl.Int64)
    )
    typed = _typed_frame(cleaned, spec, present, identifiers, date_format=date_format, money_format=money_format)
    typed = _with_row_errors(typed, _row_checks(spec, present, identifiers))
    # "CO-27" in a reason-code column: group code CO, CARC 27 (reason_split.py)
    return split_reason_codes(_canonical_columns(typed, spec, {f.name for f in present}))


def _typed_frame(
    cleaned: pl.DataFrame,
    spec: EntitySpec,
    present: list[FieldSpec],
    identifiers: list[str],
    *,
    date_format: str | None,
    money_format: MoneyFormat,
) -> pl.DataFrame:
    """Typed values of the present fields, the raw text the checks need, and identifier-missing flags."""
    formats = _date_formats(cleaned, spec, date_format)
    comma_only = {
        f.name: not cleaned.select(pl.col(f.name).str.contains(r"[;|\s]").any()).item()
        for f in present
        if f.kind == "code_list"
    }
    typed = cleaned.select(
        *[
            _typed(f, formats.get(f.name, date_format), money_format, comma_only.get(f.name, False)).alias(f.name)
            for f in present
        ],
        *[pl.col(f.name).alias(_raw_name(f.name)) for f in present if f.kind in ("money", "date") or f.required],
        *[pl.col(n).is_null().alias(_raw_name(n) + "_missing") for n in identifiers],
        pl.col("row_number"),
    )
    if date_format is None:
        for f in present:
            if f.kind == "date" and formats.get(f.name) is not None:
                typed = _repair_dates(typed, f.name)
    return typed


def _row_checks(spec: EntitySpec, present: list[FieldSpec], identifiers: list[str]) -> list[tuple[pl.Expr, pl.Expr]]:
    """(failing condition, reason) pairs for the whole row: per field, then "no identifier at all"."""
    checks = [check for f in present for check in _errors(f)]
    identifier_flags = [pl.col(_raw_name(n) + "_missing") for n in identifiers]
    if identifier_flags:
        checks.append(
            (pl.all_horizontal(identifier_flags), pl.lit(f"{'/'.join(spec.identifiers)}: required value missing"))
        )
    return checks


def _with_row_errors(typed: pl.DataFrame, checks: list[tuple[pl.Expr, pl.Expr]]) -> pl.DataFrame:
    """Add ``row_errors``: the failing checks' reasons, null for a valid row."""
    typed = typed.with_row_index("__row")
    # Reasons are only built for the (usually few) failing rows; valid rows get an empty list.
    failing = typed.filter(pl.any_horizontal([cond for cond, _ in checks])) if checks else typed.clear()
    reasons = failing.select(
        pl.col("__row"),
        pl.concat_list([pl.when(cond).then(message) for cond, message in checks]).list.drop_nulls().alias("row_errors")
        if checks
        else pl.lit([], dtype=pl.List(pl.String)).alias("row_errors"),
    )
    if reasons.height:
        return typed.join(reasons, on="__row", how="left", maintain_order="left")
    return typed.with_columns(pl.lit(None, dtype=pl.List(pl.String)).alias("row_errors"))


def _canonical_columns(typed: pl.DataFrame, spec: EntitySpec, present_names: set[str]) -> pl.DataFrame:
    """Every field of the schema in order (absent ones as typed nulls), then the row metadata."""
    return typed.select(
        *[
            pl.col(f.name) if f.name in present_names else pl.lit(None, dtype=f.dtype).alias(f.name)
            for f in spec.fields
        ],
        pl.col("row_number"),
        pl.when(pl.col("row_errors").is_null()).then(pl.lit("valid")).otherwise(pl.lit("invalid")).alias("row_status"),
        pl.col("row_errors").fill_null(pl.lit([], dtype=pl.List(pl.String))),
    )


def summarise_errors(rows: pl.DataFrame) -> dict[str, int]:
    """Number of rows with an error per field (the text before the first ':')."""
    invalid = rows.filter(pl.col("row_status") == "invalid")
    if invalid.height == 0:
        return {}
    counts = (
        invalid.select(pl.col("row_number"), pl.col("row_errors").explode())
        .with_columns(pl.col("row_errors").str.split(":").list.first().alias("field"))
        .unique(["row_number", "field"])
        .group_by("field")
        .len()
        .sort("field")
    )
    return dict(zip(counts["field"].to_list(), counts["len"].to_list(), strict=True))
