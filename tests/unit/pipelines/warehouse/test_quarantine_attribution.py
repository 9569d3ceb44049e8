"""Which tenants a failed contract test quarantines, from the build's test results and stored failing rows.

A miniature of what `dbt build` leaves behind: a build database with a mart and the failing-row views
of the tests, `run_results.json` and the run's `manifest.json`, and the manifest parsed without the
pipeline's vars (which holds each test's declared severity)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipelines.warehouse.quarantine import ContractStop, Quarantine, find_quarantines

MART = "model.denial_platform.fct_claims"


def _test(name: str, kind: str | None, column: str | None, severity: str = "ERROR") -> dict:
    return {
        "resource_type": "test",
        "name": name,
        "attached_node": MART,
        "column_name": column,
        "test_metadata": {"name": kind} if kind else None,
        "config": {"severity": severity},
        "relation_name": f'"warehouse"."audit"."{name}"',
    }


TESTS = {
    "test.p.not_null_fct_claims_month": _test("not_null_fct_claims_month", "not_null", "month"),
    "test.p.unique_fct_claims_claim_key": _test("unique_fct_claims_claim_key", "unique", "claim_key"),
    "test.p.money_balances_fct_claims": _test("money_balances_fct_claims", "money_balances", None, "warn"),
    "test.p.assert_totals": _test("assert_totals", None, None),
}


@pytest.fixture
def build(tmp_path: Path) -> Path:
    db = tmp_path / "warehouse.duckdb"
    con = duckdb.connect(str(db))
    con.execute("create schema marts")
    con.execute("create schema audit")
    con.execute(
        "create table marts.fct_claims as select * from (values "
        "(1, 10, 'A', null), (1, 10, 'B', null), (2, 20, 'C', '2026-10'), (2, 20, 'C', '2026-10'), "
        "(3, 30, 'D', '2026-10')) t(organization_id, client_id, claim_key, month)"
    )
    con.execute("create view audit.not_null_fct_claims_month as select * from marts.fct_claims where month is null")
    con.execute(
        "create view audit.unique_fct_claims_claim_key as select claim_key as unique_field, count(*) as n_records "
        "from marts.fct_claims group by claim_key having count(*) > 1"
    )
    con.execute("create view audit.money_balances_fct_claims as select * from marts.fct_claims")
    con.execute("create view audit.assert_totals as select 42 as total")
    con.close()
    target = tmp_path / "dbt_target"
    target.mkdir()
    nodes = {**TESTS, MART: {"resource_type": "model", "relation_name": '"warehouse"."marts"."fct_claims"'}}
    run_manifest = {"nodes": {uid: {**n, "config": {"severity": "warn"}} for uid, n in nodes.items()}}
    (target / "manifest.json").write_text(json.dumps(run_manifest))
    (tmp_path / "declared.json").write_text(json.dumps({"nodes": nodes}))
    return tmp_path


def _results(build: Path, statuses: dict[str, str]) -> list[Quarantine]:
    doc = {"results": [{"unique_id": uid, "status": status} for uid, status in statuses.items()]}
    (build / "dbt_target" / "run_results.json").write_text(json.dumps(doc))
    return find_quarantines(build / "warehouse.duckdb", build / "dbt_target", build / "declared.json")


def test_failing_rows_with_a_tenant_name_it(build):
    got = _results(build, {"test.p.not_null_fct_claims_month": "warn"})
    assert got == [Quarantine(1, 10, "not_null_fct_claims_month", "not_null", "fct_claims", "month", 2)]


def test_a_duplicate_value_is_looked_up_in_the_tested_column(build):
    got = _results(build, {"test.p.unique_fct_claims_claim_key": "warn"})
    assert got == [Quarantine(2, 20, "unique_fct_claims_claim_key", "unique", "fct_claims", "claim_key", 2)]


def test_passing_tests_and_tests_declared_warn_quarantine_nobody(build):
    statuses = {"test.p.not_null_fct_claims_month": "pass", "test.p.money_balances_fct_claims": "warn"}
    assert _results(build, statuses) == []


def test_a_failure_without_a_tenant_stops_the_publish(build):
    with pytest.raises(ContractStop, match="assert_totals"):
        _results(build, {"test.p.assert_totals": "warn"})


def test_a_test_that_errored_stops_the_publish(build):
    with pytest.raises(ContractStop, match="ended error"):
        _results(build, {"test.p.not_null_fct_claims_month": "error"})
