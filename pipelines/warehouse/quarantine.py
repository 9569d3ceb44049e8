"""Quarantine, not a stop: a tenant whose rows break a mart contract is held back, the others publish.

The marts' contract is their dbt data tests. Tests declared at severity ``error`` (the default) are
contract tests; the few declared ``warn`` in the yml report a property of the payer's file (a
source-file imbalance a reviewer acknowledged) and never quarantine. The pipeline's ``dbt build``
runs the contract tests at ``warn`` (``--vars {contract_test_severity: warn}``) so one tenant's
failing row neither skips the models downstream nor fails the build, and stores every test's failing
rows as a view (``store_failures_as: view``: nothing is written when a test passes).

After the build, ``find_quarantines`` reads the run's ``run_results.json``: every contract test that
failed is attributed to the tenants whose rows fail it, from its stored failing rows:

- rows carrying ``client_id`` (``not_null``, ``has_tenant``, ``money_balances``, ``expression_is_true``
  and the singular tests do) name their tenants directly;
- ``unique`` / ``accepted_values`` / ``relationships`` keep only the offending value, which is
  looked up in the tested model's column to find the tenants holding it.

A failure that cannot be attributed (no tenant column, a test that errored, a row without a tenant)
raises ``ContractStop``: the publish stops for everybody, as every failure did before, because
nobody can tell whose numbers are wrong.

Publishing (``pipelines.warehouse.publish``) then removes the quarantined tenants' rows from every
mart of the new snapshot and carries their rows of the previous snapshot forward, so a quarantined
tenant keeps its last good numbers (and is told their age) while every other tenant gets this run's.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import duckdb

#: the dbt var the pipeline's build sets so contract tests warn instead of failing the build
SEVERITY_VAR = "contract_test_severity"
#: failing-row columns that hold the offending value of a generic test without a tenant column
_VALUE_COLUMNS = ("unique_field", "value_field", "from_field")


class ContractStop(RuntimeError):
    """A contract test failed in a way no tenant can be held responsible for; nothing is published."""


@dataclass(frozen=True)
class Quarantine:
    """One tenant held back by one failing contract test. Names tests, models and counts, never values."""

    organization_id: int
    client_id: int
    test: str  # the dbt test's name, e.g. not_null_fct_remittance_claims_claim_status_code
    kind: str  # the generic test (not_null, unique, ...) or "singular"
    model: str | None  # the tested model
    column: str | None  # the tested column, when the test has one
    failing_rows: int  # the tenant's failing rows

    @property
    def reason(self) -> str:
        where = f"{self.model}.{self.column}" if self.column else (self.model or "the marts")
        return f"{self.kind} test on {where} failed for {self.failing_rows} row(s) of this client ({self.test})"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "reason": self.reason}


def build_vars() -> str:
    """The ``--vars`` document of the pipeline's ``dbt build``."""
    return json.dumps({SEVERITY_VAR: "warn"})


def _contract_tests(declared_manifest: Path) -> dict[str, dict[str, Any]]:
    """Tests declared at severity error (the manifest parsed without the pipeline's vars), by unique id."""
    nodes = json.loads(declared_manifest.read_text())["nodes"]
    return {
        uid: node
        for uid, node in nodes.items()
        if node["resource_type"] == "test" and str(node["config"].get("severity", "error")).lower() == "error"
    }


def failed_contract_tests(target_dir: Path, declared_manifest: Path) -> list[dict[str, Any]]:
    """The run's contract tests that did not pass, each its run manifest node plus ``status``."""
    results_path = target_dir / "run_results.json"
    if not results_path.is_file():
        raise ContractStop(f"the build in {target_dir.parent.name} has no test results: its tests cannot be judged")
    results = json.loads(results_path.read_text())["results"]
    run_nodes = json.loads((target_dir / "manifest.json").read_text())["nodes"]
    contract = _contract_tests(declared_manifest)
    failed = []
    for result in results:
        uid = result["unique_id"]
        if uid in contract and result["status"] not in ("pass", "success", "skipped"):
            node = run_nodes.get(uid, contract[uid])
            tested = run_nodes.get(node.get("attached_node") or "", {})
            failed.append({**node, "status": result["status"], "model_relation": tested.get("relation_name")})
    return failed


def _columns(con: duckdb.DuckDBPyConnection, relation: str) -> list[str]:
    return [row[0] for row in con.execute(f"describe select * from {relation}").fetchall()]


def _tested_model(node: dict[str, Any]) -> str | None:
    attached = node.get("attached_node") or ""
    if attached:
        return attached.rsplit(".", 1)[-1]
    ref = (node.get("meta") or {}).get("dagster", {}).get("ref", {}).get("name")
    return ref or None


def _attribute(con: duckdb.DuckDBPyConnection, node: dict[str, Any], relation: str) -> list[tuple[Any, Any, int]]:
    """``(organization_id, client_id, failing rows)`` of the tenants failing the test."""
    columns = _columns(con, relation)
    if "client_id" in columns and "organization_id" in columns:
        return con.execute(
            f"select organization_id, client_id, count(*) from {relation} group by all order by all"
        ).fetchall()
    value = next((c for c in _VALUE_COLUMNS if c in columns), None)
    column = node.get("column_name")
    target = node.get("model_relation")
    if value is None or not column or not target:
        raise ContractStop(f"test {node['name']} failed and its failing rows name no tenant")
    return con.execute(
        f'select m.organization_id, m.client_id, count(*) from {target} m where m."{column}" in '
        f"(select {value} from {relation}) group by all order by all"
    ).fetchall()


def find_quarantines(
    build_db: Path, target_dir: Path, declared_manifest: Path, *, catalog: str | None = None
) -> list[Quarantine]:
    """Tenants to quarantine for the contract tests that failed in this build; ContractStop when a
    failure cannot be attributed to tenants.

    dbt names relations ``"<database>"."<schema>"."<name>"``: the build file is attached under the
    name its relations carry, ``catalog`` (the warehouse database's name when the build ran on
    PostgreSQL and was exported to ``build_db``, ``pipelines.warehouse.pg_export``) or its file stem."""
    failed = failed_contract_tests(target_dir, declared_manifest)
    if not failed:
        return []
    out: list[Quarantine] = []
    con = duckdb.connect()
    try:
        alias = '"' + (catalog or build_db.stem).replace('"', '""') + '"'
        con.execute(f"attach '{str(build_db).replace(chr(39), chr(39) * 2)}' as {alias} (read_only)")
        con.execute(f"use {alias}")
        for node in failed:
            relation = node.get("relation_name")
            if node["status"] not in ("warn", "fail") or not relation:
                raise ContractStop(f"test {node['name']} ended {node['status']}: the build cannot be trusted")
            kind = (node.get("test_metadata") or {}).get("name") or "singular"
            for org, client, rows in _attribute(con, node, relation):
                if org is None or client is None:
                    raise ContractStop(f"test {node['name']} failed on rows without a tenant")
                out.append(
                    Quarantine(
                        int(org),
                        int(client),
                        node["name"],
                        kind,
                        _tested_model(node),
                        node.get("column_name"),
                        int(rows),
                    )
                )
    finally:
        con.close()
    return out
