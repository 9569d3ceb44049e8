"""The guard that keeps the denial cases and the money together (issue 24): an asset check on
``fct_case_ledger_differences``, after every build.

Green when the mart is empty; red (severity WARN) with the count, the count per kind and the first
differences in its metadata (case ids and claim x payer digests, never claim keys). It is a warning
that the work disagrees with the money, not a mart contract: it is a Python asset check, not a dbt
test, so ``pipelines.warehouse.quarantine`` (which reads only the dbt tests declared at severity
error in ``run_results.json``) never sees it, no tenant is quarantined and the publish goes on.
"""

import dagster as dg
import duckdb

from pipelines.defs.resources import WarehouseResource
from pipelines.warehouse.case_ledger import DIFFERENCES_MART, read_guard

DIFFERENCES_KEY = dg.AssetKey(["marts", DIFFERENCES_MART])


@dg.asset_check(
    asset=DIFFERENCES_KEY,
    name="case_ledger_agrees",
    description=(
        "Every denial case agrees with the payer's adjudication history in the marts, claim by claim and "
        "payer by payer (amount at stake = initial denied amount; ledger recovery = final paid - initial "
        "paid, capped at the amount at stake; no case missing, no remittance case without a denial). "
        "A warning: it never quarantines a tenant or stops the publish."
    ),
)
def case_ledger_agrees(context: dg.AssetCheckExecutionContext, warehouse: WarehouseResource) -> dg.AssetCheckResult:
    layout = warehouse.layout
    build_db = layout.build_db_for(context.run.run_id)
    if not build_db.is_file():
        build_db = layout.latest_complete_build() or build_db
    con = duckdb.connect(str(build_db), read_only=True)
    try:
        guard = read_guard(con, f"marts.{DIFFERENCES_MART}")
    finally:
        con.close()
    metadata: dict[str, dg.RawMetadataValue] = {
        "differences": dg.MetadataValue.int(guard.differences),
        "clients": dg.MetadataValue.int(guard.clients),
        "by_kind": dg.MetadataValue.json(guard.by_kind),
    }
    if guard.first:
        metadata["first_differences"] = dg.MetadataValue.json(guard.first)
    return dg.AssetCheckResult(
        passed=guard.agrees,
        severity=dg.AssetCheckSeverity.WARN,
        metadata=metadata,
        description=None
        if guard.agrees
        else f"{guard.differences} difference(s) between the denial cases and the marts' money",
    )


CASE_LEDGER_CHECKS = [case_ledger_agrees]
