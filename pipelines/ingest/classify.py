"""Denial classification of CAS adjustments (group code + CARC + RARCs).

Every decision comes from the reference seeds (``pipelines.ingest.reference``):

1. The CARC row gives category, is_denial, hard/soft and preventable. A CARC
   not in the seeds becomes ``unclassified`` with basis ``unknown_carc`` and is
   not a denial (the group rule's ``unknown_carc_is_denial`` says so for every
   group): an unknown code is reported, never silently counted as lost money.
2. For "see the remark" CARCs (seed ``rarc_refinable_carcs``), the first RARC
   with a category hint refines the category. "First" is defined once, by
   ``ordered_rarcs``: the line's LQ codes in file order, then the claim's
   MOA/MIA codes in file order (the SQL model orders by the same file position).
3. The group rule has the last word: PR forces ``patient_responsibility``
   and not-a-denial; CR (4010 correction/reversal) is not a new denial.

The codes decide the category; whether an amount *counts* as denied money is
``counts_as_denial``: only a positive amount on an adjudication (not a CLP02=22
reversal, not a CLP02=25 predetermination). ``classify_adjustment`` and
``classify_frame`` implement the same rules; the frame version is a join, for
millions of rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

import polars as pl

from pipelines.ingest.reference import Reference, load_reference

BASIS_CARC = "carc_table"
BASIS_UNKNOWN_CARC = "unknown_carc"
BASIS_RARC_PREFIX = "rarc_hint:"
BASIS_GROUP_PREFIX = "group:"
#: The category of a CARC the seeds do not know (reported, never a denial).
UNCLASSIFIED = "unclassified"

#: CLP02 statuses whose adjustments are never denials: a reversal undoes an earlier decision and a
#: predetermination prices a service that has not been adjudicated yet.
REVERSAL_STATUS = "22"
PREDETERMINATION_STATUS = "25"
NON_ADJUDICATION_STATUSES = frozenset({REVERSAL_STATUS, PREDETERMINATION_STATUS})

#: Columns ``classify_frame`` adds.
CLASSIFICATION_COLUMNS = ("denial_category", "is_denial", "hard_or_soft", "preventable", "classification_basis")


class UnknownGroupCodeError(ValueError):
    """A CAS group code that is not in adjustment_group_rules.csv."""


@dataclass(frozen=True, slots=True)
class Classification:
    """Result of classifying one adjustment."""

    category: str
    is_denial: bool
    hard_or_soft: str | None
    preventable: str | None
    basis: str


def _normalise_code(value: str | None) -> str:
    return (value or "").strip().upper()


def ordered_rarcs(line_rarcs: Iterable[str], claim_rarcs: Iterable[str]) -> list[str]:
    """The RARCs that apply to an adjustment, in the order the first-RARC rule reads them: the
    line's LQ codes in file order, then the claim's MOA/MIA codes in file order (pass no line codes
    for a claim-level adjustment). The most specific remark speaks first."""
    return [*line_rarcs, *claim_rarcs]


def counts_as_denial(is_denial: bool, amount: Decimal | float | int | None, claim_status: str | None) -> bool:
    """Whether a classified adjustment's amount is denied money: a zero amount is a code reported
    for information (``CAS*CO*97*0``), a negative one gives money back (CO-94 of -30), and neither a
    reversal nor a predetermination is a new denial."""
    if not is_denial or amount is None or amount <= 0:
        return False
    return (claim_status or "") not in NON_ADJUDICATION_STATUSES


def classify_adjustment(
    group_code: str,
    carc: str | None,
    rarcs: Iterable[str] = (),
    *,
    reference: Reference | None = None,
) -> Classification:
    """Classify one CAS adjustment; raises ``UnknownGroupCodeError`` for a bad group."""
    ref = reference if reference is not None else load_reference()
    group = _normalise_code(group_code)
    rule = ref.group_rules.get(group)
    if rule is None:
        raise UnknownGroupCodeError(f"unknown CAS group code {group!r}; expected one of {sorted(ref.group_rules)}")
    code = _normalise_code(carc)
    carc_rule = ref.carcs.get(code)

    if carc_rule is None:
        category, is_denial, hard_or_soft, preventable, basis = (
            UNCLASSIFIED,
            rule.unknown_carc_is_denial,
            None,
            None,
            BASIS_UNKNOWN_CARC,
        )
    else:
        category, is_denial = carc_rule.category, carc_rule.is_denial
        hard_or_soft, preventable, basis = carc_rule.hard_or_soft, carc_rule.preventable, BASIS_CARC
        if code in ref.refinable_carcs:
            for rarc in rarcs:
                hint = ref.rarc_hints.get(_normalise_code(rarc))
                if hint is not None:
                    category, basis = hint, BASIS_RARC_PREFIX + _normalise_code(rarc)
                    break

    if rule.category_override is not None:
        category, basis = rule.category_override, BASIS_GROUP_PREFIX + group
    if rule.is_denial_override is not None:
        is_denial = rule.is_denial_override
        if rule.category_override is None:
            basis = BASIS_GROUP_PREFIX + group
    if not is_denial:
        hard_or_soft, preventable = None, None
    return Classification(category, is_denial, hard_or_soft, preventable, basis)


def classify_frame(
    df: pl.DataFrame,
    *,
    reference: Reference | None = None,
    group_column: str = "group_code",
    carc_column: str = "carc",
    rarcs_column: str = "rarcs",
) -> pl.DataFrame:
    """Add ``CLASSIFICATION_COLUMNS`` to a frame of adjustments (vectorised joins).

    ``rarcs_column`` is optional and may hold ``list[str]`` or a single string
    per row. Row order and all input columns are kept. Raises
    ``UnknownGroupCodeError`` listing every unknown group code found.
    """
    ref = reference if reference is not None else load_reference()
    for column in (group_column, carc_column):
        if column not in df.columns:
            raise ValueError(f"classify_frame: input lacks column {column!r}")
    clashes = [c for c in CLASSIFICATION_COLUMNS if c in df.columns]
    if clashes:
        raise ValueError(f"classify_frame: input already has column(s) {clashes}")

    row_id = "__classify_row"
    work = df.with_row_index(row_id).with_columns(
        pl.col(group_column).cast(pl.String).str.strip_chars().str.to_uppercase().fill_null("").alias("__group"),
        pl.col(carc_column).cast(pl.String).str.strip_chars().str.to_uppercase().fill_null("").alias("__carc"),
    )
    groups = ref.group_frame()
    unknown = work.select("__group").unique().join(groups, left_on="__group", right_on="group_key", how="anti")
    if unknown.height:
        bad = sorted(unknown["__group"].to_list())
        raise UnknownGroupCodeError(f"unknown CAS group code(s) {bad}; expected one of {sorted(ref.group_rules)}")

    work = work.join(ref.carc_frame(), left_on="__carc", right_on="carc", how="left", maintain_order="left")
    work = work.join(groups, left_on="__group", right_on="group_key", how="left", maintain_order="left")
    work = _attach_rarc_hint(work, row_id, rarcs_column if rarcs_column in df.columns else None, ref)

    known = pl.col("carc_category").is_not_null()
    refined = known & pl.col("carc_refinable") & pl.col("__hint").is_not_null()
    base_category = (
        pl.when(refined).then(pl.col("__hint")).otherwise(pl.col("carc_category").fill_null(pl.lit(UNCLASSIFIED)))
    )
    base_basis = (
        pl.when(refined)
        .then(pl.lit(BASIS_RARC_PREFIX) + pl.col("__hint_rarc"))
        .when(known)
        .then(pl.lit(BASIS_CARC))
        .otherwise(pl.lit(BASIS_UNKNOWN_CARC))
    )
    base_denial = pl.when(known).then(pl.col("carc_is_denial")).otherwise(pl.col("group_unknown_carc_is_denial"))
    group_basis = pl.lit(BASIS_GROUP_PREFIX) + pl.col("__group")
    overrides = pl.col("group_category_override").is_not_null() | pl.col("group_is_denial_override").is_not_null()
    is_denial = pl.coalesce(pl.col("group_is_denial_override"), base_denial)

    work = work.with_columns(
        pl.coalesce(pl.col("group_category_override"), base_category).alias("denial_category"),
        is_denial.alias("is_denial"),
        pl.when(is_denial).then(pl.col("carc_hard_or_soft")).alias("hard_or_soft"),
        pl.when(is_denial).then(pl.col("carc_preventable")).alias("preventable"),
        pl.when(overrides).then(group_basis).otherwise(base_basis).alias("classification_basis"),
    )
    return work.sort(row_id).select([*df.columns, *CLASSIFICATION_COLUMNS])


def _attach_rarc_hint(work: pl.DataFrame, row_id: str, rarcs_column: str | None, ref: Reference) -> pl.DataFrame:
    """Join the first hinted RARC of each row (by position) as ``__hint``/``__hint_rarc``."""
    if rarcs_column is None:
        return work.with_columns(pl.lit(None, pl.String).alias("__hint"), pl.lit(None, pl.String).alias("__hint_rarc"))
    rarcs = pl.col(rarcs_column)
    if work.schema[rarcs_column] == pl.String:
        rarcs = rarcs.str.split(",")
    exploded = (
        work.filter(pl.col("carc_refinable").fill_null(False))
        .select(pl.col(row_id), rarcs.alias("__rarc"))
        .explode("__rarc")
        .with_columns(
            pl.col("__rarc").str.strip_chars().str.to_uppercase(),
            pl.int_range(pl.len()).over(row_id).alias("__pos"),
        )
        .join(ref.rarc_hint_frame(), left_on="__rarc", right_on="rarc", how="inner")
        .sort(row_id, "__pos")
        .group_by(row_id)
        .agg(pl.col("rarc_category_hint").first().alias("__hint"), pl.col("__rarc").first().alias("__hint_rarc"))
    )
    return work.join(exploded, on=row_id, how="left", maintain_order="left")


def unknown_carcs(adjustments: pl.DataFrame, reference: Reference | None = None) -> list[dict[str, object]]:
    """The CARCs of a parsed 835's CAS table that the reference map does not know, for the upload's
    quality report: one entry per code with the group codes it came under, how many adjustments carry it
    and their total amount (text, two decimals). They are `unclassified` (never denials) until someone
    adds them to ``carc_denial_categories.csv``; this is how a person learns that they exist."""
    ref = reference or load_reference()
    if adjustments.is_empty():
        return []
    codes = adjustments.with_columns(pl.col("carc").str.strip_chars().str.to_uppercase().alias("carc"))
    unknown = codes.filter(pl.col("carc").is_not_null() & ~pl.col("carc").is_in(list(ref.carcs)))
    if unknown.is_empty():
        return []
    grouped = (
        unknown.group_by("carc")
        .agg(
            pl.col("group_code").unique().sort().alias("group_codes"),
            pl.len().alias("adjustments"),
            pl.col("amount").sum().alias("amount"),
        )
        .sort("carc")
    )
    return [
        {
            "carc": row["carc"],
            "groupCodes": row["group_codes"],
            "adjustments": row["adjustments"],
            "amount": f"{row['amount'] if row['amount'] is not None else Decimal(0):.2f}",
        }
        for row in grouped.iter_rows(named=True)
    ]
