"""dbt models, seeds and tests as Dagster assets and asset checks."""


import os
import shutil
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines.defs.dbt.project import dbt_executable, dbt_project, ensure_manifest
from pipelines.defs.dbt.translator import PlatformDbtTranslator
from pipelines.resources import WarehouseResource

dbt_project.prepare_if_dev()
ensure_manifest()

TRANSLATOR = PlatformDbtTranslator()


@dbt_assets(manifest=dbt_project.manifest_path, project=dbt_project, dagster_dbt_translator=TRANSLATOR,
            name="dbt_models")
def dbt_models(context: dg.AssetExecutionContext, dbt: DbtCliResource, warehouse: WarehouseResource):
    """`dbt build` (seeds, models and tests) into the build database; tests report as asset checks."""
    # The dbt subprocess reads its paths from the environment (profiles.yml, sources yml).
    os.environ.update(warehouse.dbt_env())
    target = warehouse.layout.build_db.parent / "dbt_target" / context.run_id
    yield from dbt.cli(["build"], context=context, target_path=target).stream()
    prune_target_dirs(target.parent, keep=3)


def prune_target_dirs(root: Path, *, keep: int) -> None:
    """Keep the dbt artefacts (run_results, logs) of the last ``keep`` runs only."""
    runs = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in runs[keep:]:
        shutil.rmtree(old, ignore_errors=True)


def dbt_resource() -> DbtCliResource:
    """The dbt CLI of this virtualenv (found next to the interpreter, whatever PATH says)."""
    return DbtCliResource(project_dir=dbt_project, profiles_dir=str(dbt_project.profiles_dir), target="duckdb",
                          dbt_executable=dbt_executable())


DBT_ASSETS = [dbt_models]
