"""Balancing checks on parsed 835 tables, reported as data rather than raised.

- transaction_balance: BPR02 = sum(CLP04) - sum(PLB amounts) (minus BPR02 when BPR03=D, a debit)
- claim_balance: CLP03 - CLP04 = claim-level CAS + line-level CAS
- line_balance: SVC02 - SVC03 = line CAS
"""

from __future__ import annotations

import polars as pl

from pipelines.ingest.x12.schemas import QUALITY, conform, empty
from pipelines.ingest.x12.values import MONEY

_NULL_INT = pl.lit(None, dtype=pl.Int64)


def _finish(frame: pl.DataFrame, check: str) -> pl.DataFrame:
    return conform(
        frame.with_columns(
            pl.col("expected").cast(MONEY),
            pl.col("actual").cast(MONEY),
        )
        .with_columns(
            (pl.col("expected") - pl.col("actual")).cast(MONEY).alias("difference"),
            pl.lit(check).alias("check"),
        )
        .with_columns((pl.col("difference") == 0).alias("ok")),
        QUALITY,
    )


def balance_checks(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Return one quality row per transaction, claim and service line of an 835."""
    remits = tables["remittances"]
    claims = tables["remittance_claims"]
    lines = tables["remittance_service_lines"]
    zero = pl.lit(0).cast(MONEY)
    paid = claims.group_by("transaction_index").agg(pl.col("paid_amount").sum().cast(MONEY).alias("_paid"))
    txn = remits.join(paid, on="transaction_index", how="left", maintain_order="left").select(
        "transaction_index",
        _NULL_INT.alias("claim_index"),
        _NULL_INT.alias("line_index"),
        # BPR03=D: the payer takes money back, so the claims and PLBs net to minus BPR02.
        pl.when(pl.col("credit_debit") == "D")
        .then(-pl.col("total_paid"))
        .otherwise(pl.col("total_paid"))
        .alias("expected"),
        (pl.col("_paid").fill_null(zero) - pl.col("plb_total")).alias("actual"),
    )
    clm = claims.select(
        "transaction_index",
        "claim_index",
        _NULL_INT.alias("line_index"),
        (pl.col("total_charge") - pl.col("paid_amount")).alias("expected"),
        (pl.col("claim_level_adjustment_total") + pl.col("line_adjustment_total")).alias("actual"),
    )
    lin = lines.select(
        "transaction_index",
        "claim_index",
        "line_index",
        (pl.col("charge_amount") - pl.col("paid_amount")).alias("expected"),
        pl.col("adjustment_total").alias("actual"),
    )
    parts = [
        _finish(txn, "transaction_balance"),
        _finish(clm, "claim_balance"),
        _finish(lin, "line_balance"),
    ]
    return pl.concat(parts, how="vertical") if parts else empty(QUALITY)
