"""The dbt unit tests (models/**/_*unit_tests.yml) on DuckDB.

The pipeline's `dbt build` leaves them out: their inputs are static, so they say the same thing on
every production run. They run here instead, against the warehouse of a real pipeline run (dbt
reads the column types of a unit test's inputs from the built relations; the intermediate ones, which
the build keeps in memory, are built again into a file first), and in the PostgreSQL
build (tests/integration/pipelines/test_pipeline_postgres.py), which runs `dbt build` whole.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from pipelines.defs.dbt.project import dbt_executable, dbt_project
from pipelines.warehouse.layout import BUILD_COMPLETE, WarehouseLayout


def _unit_tests_declared() -> set[str]:
    manifest = json.loads(dbt_project.manifest_path.read_text())
    return set(manifest.get("unit_tests", {}))


def test_every_dbt_unit_test_passes_on_duckdb(pipeline_world, tmp_path):
    layout = WarehouseLayout.at(pipeline_world.data_dir)
    builds = [p for p in layout.builds_dir.iterdir() if (p / BUILD_COMPLETE).exists()]
    assert builds, "the pipeline run left no complete build"
    build_db = tmp_path / "warehouse.duckdb"
    shutil.copyfile(builds[0] / "warehouse.duckdb", build_db)  # unit tests write temporary relations
    env = {
        **os.environ,
        "DBT_DUCKDB_PATH": str(build_db),
        # The build kept its intermediate models in memory (profiles.yml): built again here into a
        # file, so that the unit tests find the column types of the intermediate models they read.
        "DBT_DUCKDB_SCRATCH": str(tmp_path / "scratch.duckdb"),
        "DBT_WAREHOUSE_DIR": str(layout.warehouse_dir),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_TARGET": "duckdb",
    }
    target = tmp_path / "dbt_target"
    for command in (["run", "--select", "path:models/intermediate"], ["test", "--select", "test_type:unit"]):
        done = subprocess.run(
            [dbt_executable(), *command, "--target-path", str(target)],
            cwd=dbt_project.project_dir,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    results = json.loads((target / "run_results.json").read_text())["results"]
    ran = {r["unique_id"]: r["status"] for r in results}
    declared = _unit_tests_declared()
    assert declared, "the project declares no unit tests"
    # Every declared unit test ran and passed: none skipped or silently deselected.
    assert set(ran) == declared
    assert set(ran.values()) == {"pass"}
