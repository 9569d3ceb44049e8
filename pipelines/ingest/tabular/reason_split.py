"""The canonical frame's combined reason codes split into ``group_code`` and ``carc`` (``CO-27``), per
``pipelines.ingest.reason_codes``; a row whose code has an unknown group, or whose group column says
another group than its code, is invalid with the reason. Only entities with both fields (payments,
denials) are touched; the distinct codes are split once each (a file repeats a few dozen)."""

from __future__ import annotations

import polars as pl

from pipelines.ingest.reason_codes import GROUP_CODES, split_reason_code

_IN, _GROUP, _CARC, _UNKNOWN = "__code_in", "__code_group", "__code_carc", "__code_unknown"


def _splits(codes: list[str]) -> pl.DataFrame:
    found = [(code, split_reason_code(code)) for code in codes]
    return pl.DataFrame(
        {
            _IN: [code for code, _ in found],
            _GROUP: [s.group for _, s in found],
            _CARC: [s.carc for _, s in found],
            _UNKNOWN: [s.unknown_group for _, s in found],
        },
        schema={_IN: pl.String, _GROUP: pl.String, _CARC: pl.String, _UNKNOWN: pl.String},
    )


def split_reason_codes(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` (canonical columns + row_status, row_errors) with combined codes split."""
    if "carc" not in rows.columns or "group_code" not in rows.columns:
        return rows
    splits = _splits(rows.get_column("carc").drop_nulls().unique().to_list())
    if splits.filter(pl.col(_GROUP).is_not_null() | pl.col(_UNKNOWN).is_not_null()).is_empty():
        return rows
    joined = rows.join(splits, left_on="carc", right_on=_IN, how="left", maintain_order="left")
    group, split_group = pl.col("group_code"), pl.col(_GROUP)
    unknown = pl.col(_UNKNOWN).is_not_null()
    conflict = group.is_not_null() & split_group.is_not_null() & (group != split_group)
    expected = ", ".join(GROUP_CODES)
    unknown_reason = (
        pl.lit("carc: '")
        + pl.col("carc").str.slice(0, 40)
        + pl.lit("' starts with the unknown group code '")
        + pl.col(_UNKNOWN)
        + pl.lit(f"' (expected one of {expected})")
    )
    conflict_reason = (
        pl.lit("group_code: '") + group + pl.lit("' disagrees with the group of carc '") + pl.col("carc") + pl.lit("'")
    )
    new_errors = pl.concat_list(
        pl.when(unknown).then(unknown_reason), pl.when(conflict).then(conflict_reason)
    ).list.drop_nulls()
    errors = pl.col("row_errors").list.concat(new_errors)
    return joined.with_columns(
        pl.coalesce(group, split_group).alias("group_code"),
        pl.when(split_group.is_not_null()).then(pl.col(_CARC)).otherwise(pl.col("carc")).alias("carc"),
        errors.alias("row_errors"),
        pl.when(errors.list.len() > 0).then(pl.lit("invalid")).otherwise(pl.col("row_status")).alias("row_status"),
    ).select(rows.columns)
