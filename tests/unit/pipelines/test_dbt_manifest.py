"""The dbt manifest is parsed on first use and reused while it is fresh (never at import); what it
says about where the models are built."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pipelines.defs.dbt.project import ensure_manifest

REPO_ROOT = Path(__file__).resolve().parents[3]


def run_python(code: str) -> None:
    # A fresh interpreter: this session has imported the definitions already. DAGSTER_IS_DEV_CLI
    # is what `dagster dev` sets, under which dagster-dbt's prepare_if_dev() would re-parse.
    env = {**os.environ, "DAGSTER_IS_DEV_CLI": "1", "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr[-4000:]


def test_importing_the_definitions_with_a_fresh_manifest_does_not_run_dbt():
    manifest = ensure_manifest()
    before = manifest.stat().st_mtime_ns
    run_python("import pipelines.definitions as d; assert d.defs.resolve_asset_graph().get_all_asset_keys()")
    # A dbt parse rewrites (and ensure_manifest touches) the manifest.
    assert manifest.stat().st_mtime_ns == before


def test_the_dbt_assets_are_built_on_first_access_only():
    ensure_manifest()
    run_python(
        "import pipelines.defs.dbt.assets as a\n"
        "assert a.build_dbt_models.cache_info().currsize == 0, 'built at import'\n"
        "assert a.dbt_models is a.DBT_ASSETS[0] is a.build_dbt_models()\n"
        "assert a.build_dbt_models.cache_info().currsize == 1\n"
    )


def test_the_models_a_data_test_reads_are_kept_in_the_build_file():
    # On DuckDB the intermediate models are built in `scratch`, an in-memory database that ends
    # with the build. After the build, the quarantine reads the failing rows of the contract tests
    # and looks offending values up in the tested models (pipelines/warehouse/quarantine.py): every
    # model a data test reads must therefore be in the build file, as the published marts are.
    nodes = json.loads(ensure_manifest().read_text())["nodes"]
    in_memory = {uid for uid, node in nodes.items() if node.get("database") == "scratch"}
    assert "model.denial_platform.int_remittance_claims_summarised" in in_memory
    read_by_tests = {
        parent: uid
        for uid, node in nodes.items()
        if node["resource_type"] == "test"
        for parent in node["depends_on"]["nodes"]
    }
    assert not {parent: read_by_tests[parent] for parent in in_memory if parent in read_by_tests}
    marts = {uid for uid, node in nodes.items() if node["resource_type"] == "model" and node["schema"] == "marts"}
    assert marts and not marts & in_memory
