"""dbt models, seeds and tests as Dagster assets and asset checks."""

import os
import shutil
import threading
import time
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets

from pipelines.defs.dbt.project import dbt_executable, dbt_project, ensure_manifest
from pipelines.defs.dbt.translator import PlatformDbtTranslator
from pipelines.resources import WarehouseResource
from pipelines.warehouse.layout import BUILD_COMPLETE

dbt_project.prepare_if_dev()
ensure_manifest()

TRANSLATOR = PlatformDbtTranslator()
_ENVIRONMENT = threading.Lock()


@dbt_assets(
    manifest=dbt_project.manifest_path, project=dbt_project, dagster_dbt_translator=TRANSLATOR, name="dbt_models"
)
def dbt_models(context: dg.AssetExecutionContext, dbt: DbtCliResource, warehouse: WarehouseResource):
    """`dbt build` (seeds, models and tests) into the build database; tests report as asset checks."""
    build_dir = warehouse.layout.build_db_for(context.run_id).parent
    # The dbt subprocess reads its paths from the environment (profiles.yml, sources yml);
    # dagster-dbt copies os.environ when the invocation starts, so runs in parallel threads
    # take turns setting it and each subprocess keeps its own run's paths.
    with _ENVIRONMENT:
        os.environ.update(warehouse.dbt_env(context.run_id))
        invocation = dbt.cli(["build"], context=context, target_path=build_dir / "dbt_target")
    yield from invocation.stream()
    (build_dir / BUILD_COMPLETE).touch()
    prune_builds(warehouse.layout.builds_dir, keep=2)


def prune_builds(root: Path, *, keep: int, stale_after_seconds: float = 86_400) -> None:
    """Keep the ``keep`` newest complete builds; drop older complete ones and day-old failed ones.

    A build without the completion marker may belong to a run still in progress in another
    process, so it is only removed once it is a day old."""
    now = time.time()
    builds = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    complete = [p for p in builds if (p / BUILD_COMPLETE).exists()]
    stale = [p for p in builds if p not in complete and now - p.stat().st_mtime > stale_after_seconds]
    for old in complete[keep:] + stale:
        shutil.rmtree(old, ignore_errors=True)


def dbt_resource() -> DbtCliResource:
    """The dbt CLI of this virtualenv (found next to the interpreter, whatever PATH says)."""
    return DbtCliResource(
        project_dir=dbt_project,
        profiles_dir=str(dbt_project.profiles_dir),
        target="duckdb",
        dbt_executable=dbt_executable(),
    )


DBT_ASSETS = [dbt_models]
