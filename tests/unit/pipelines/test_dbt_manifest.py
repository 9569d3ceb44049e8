"""The dbt manifest is parsed on first use and reused while it is fresh (never at import)."""

from __future__ import annotations

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
