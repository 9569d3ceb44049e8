"""Asset checks on the raw zone (the dbt tests cover the marts)."""

import dagster as dg
import duckdb

from pipelines.defs.resources import WarehouseResource


@dg.asset_check(
    asset=dg.AssetKey(["raw", "remittances"]),
    description="Every 835 check balances: BPR02 = sum of its CLP04 payments - sum of its PLB amounts.",
    additional_deps=[dg.AssetKey(["raw", "remittance_claims"]), dg.AssetKey(["raw", "provider_adjustments"])],
)
def remittances_balance(warehouse: WarehouseResource) -> dg.AssetCheckResult:
    layout = warehouse.layout
    con = duckdb.connect()
    try:
        row = con.execute(
            f"""
            with r as (select * from read_parquet('{layout.raw_glob("remittances")}', union_by_name = true)),
                 c as (select client_id, source_file_sha256, transaction_index, sum(paid_amount) as paid
                       from read_parquet('{layout.raw_glob("remittance_claims")}', union_by_name = true) group by all),
                 p as (select client_id, source_file_sha256, transaction_index, sum(amount) as plb
                       from read_parquet('{layout.raw_glob("provider_adjustments")}', union_by_name = true) group by all)
            -- BPR03 = D: a debit, BPR02 counts negative against the CLP04s (which are negative too)
            select count(*) filter (
                where case when r.credit_debit = 'D' then -r.total_paid else r.total_paid end
                      <> coalesce(c.paid, 0) - coalesce(p.plb, 0)
            ), count(*)
            from r
            left join c using (client_id, source_file_sha256, transaction_index)
            left join p using (client_id, source_file_sha256, transaction_index)
            """
        ).fetchone()
    finally:
        con.close()
    assert row is not None  # an aggregate without group by always returns one row
    unbalanced, checks = row
    return dg.AssetCheckResult(
        passed=unbalanced == 0,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"unbalanced_checks": unbalanced, "checks": checks},
        description=None if unbalanced == 0 else f"{unbalanced} of {checks} checks do not balance (payer file error)",
    )


RAW_CHECKS = [remittances_balance]
