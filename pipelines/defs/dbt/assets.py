"""dbt models, seeds and tests as Dagster assets and asset checks.

``dbt_models`` (and ``DBT_ASSETS``) are built on first access, not when this module is imported:
building them needs the dbt manifest. ``ensure_manifest()`` runs ``dbt parse`` only when the
manifest is missing or older than a project file, and otherwise reads the one on disk, so
importing ``pipelines.definitions`` with a fresh manifest never starts dbt. dagster-dbt's
``DbtProject.prepare_if_dev()`` (what dagster-open-platform calls at import) is not used: under
``dagster dev`` it re-parses on every code-location load even when nothing changed, and outside
it it never parses; the freshness check covers both cases, and the file lock in
``ensure_manifest`` keeps parallel loaders (webserver, daemon, run workers, test sessions) from
parsing twice. The result is cached per process, so every caller shares one assets definition.
"""

import contextlib
import functools
import os
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import DbtCliResource, dbt_assets
from packaging.version import Version

from pipelines.defs.dbt.project import dbt_executable, dbt_project, ensure_manifest
from pipelines.defs.dbt.translator import PlatformDbtTranslator
from pipelines.defs.resources import WarehouseResource
from pipelines.warehouse.layout import BUILD_COMPLETE, make_private_tree
from pipelines.warehouse.pg_export import build_lock, export_build, plain_url, split_relation
from pipelines.warehouse.pg_load import load_into_postgres
from pipelines.warehouse.quarantine import build_vars, failed_contract_tests

TRANSLATOR = PlatformDbtTranslator()
#: What `dbt build`'s event stream yields (dagster-dbt's `DbtCliInvocation.stream`).
DbtEvent = (
    dg.Output[Any] | dg.AssetMaterialization | dg.AssetObservation | dg.AssetCheckResult | dg.AssetCheckEvaluation
)
_ENVIRONMENT = threading.Lock()


@functools.cache
def build_dbt_models() -> dg.AssetsDefinition:
    """The dbt multi-asset, from the manifest (parsed first if it is missing or stale)."""
    manifest = ensure_manifest()

    @dbt_assets(manifest=manifest, project=dbt_project, dagster_dbt_translator=TRANSLATOR, name="dbt_models")
    def dbt_models(
        context: dg.AssetExecutionContext, dbt: DbtCliResource, warehouse: WarehouseResource
    ) -> Iterator[DbtEvent]:
        """`dbt build` (seeds, models and tests) into the build database; tests report as asset checks."""
        build_db = warehouse.layout.build_db_for(context.run_id)
        build_dir = build_db.parent
        pg = warehouse.warehouse_url
        with contextlib.ExitStack() as stack:
            if pg:
                # The PostgreSQL warehouse (pipelines.warehouse.pg_export): builds take turns on it; the
                # raw zone and the extract are loaded into it first.
                stack.enter_context(build_lock(pg))
                load_into_postgres(warehouse.layout, plain_url(pg))
            yield from _dbt_build(context, dbt, warehouse, build_dir / "dbt_target")
            if pg:
                # The publish step reads the marts (and the failing rows of failed contract tests) from
                # the run's DuckDB build file, whichever engine built them.
                failing = failed_contract_tests(build_dir / "dbt_target", dbt_project.manifest_path)
                extra = [split_relation(n[key]) for n in failing for key in _RELATIONS if n.get(key)]
                export_build(pg, build_db, extra)
        make_private_tree(build_dir / "dbt_target")
        (build_dir / BUILD_COMPLETE).touch()
        prune_builds(warehouse.layout.builds_dir, keep=2)

    return dbt_models


#: the relations of a failed test the quarantine reads: its stored failing rows and the model it tests
_RELATIONS = ("relation_name", "model_relation")


def _dbt_build(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, warehouse: WarehouseResource, target_dir: Path
) -> Iterator[DbtEvent]:
    """`dbt build` of this run, its target (duckdb or postgres) and paths set by ``warehouse.dbt_env``."""
    # The dbt subprocess reads its paths from the environment (profiles.yml, sources yml);
    # dagster-dbt copies os.environ when the invocation starts, so runs in parallel threads
    # take turns setting it and each subprocess keeps its own run's paths. The variables are
    # put back afterwards: a PostgreSQL warehouse's password stays out of this process's environment.
    with _ENVIRONMENT:
        variables = warehouse.dbt_env(context.run_id)
        before = {key: os.environ.get(key) for key in variables}
        os.environ.update(variables)
        try:
            # Contract tests warn here; the publish step quarantines the tenants whose rows fail them.
            # Unit tests check the models' logic on static inputs, the same on every run: dbt advises
            # leaving them out of production builds; the test suite runs them
            # (tests/integration/pipelines/test_dbt_unit_tests.py, and the PostgreSQL build).
            invocation = dbt.cli(
                ["build", "--exclude-resource-type", "unit_test", "--vars", build_vars()],
                context=context,
                target_path=target_dir,
            )
        finally:
            for key, value in before.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    yield from invocation.stream()


def __getattr__(name: str) -> Any:
    # PEP 562: `from pipelines.defs.dbt.assets import dbt_models` keeps working, but the
    # manifest is only read (or parsed) when one of these names is first asked for.
    if name == "dbt_models":
        return build_dbt_models()
    if name == "DBT_ASSETS":
        return [build_dbt_models()]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


#: `dbt --version` of each dbt executable, asked once per process (see `PlatformDbtCli`).
_CLI_VERSIONS: dict[str, Version] = {}


class PlatformDbtCli(DbtCliResource):
    """dagster-dbt's CLI resource, without two costs it pays on every run that this pipeline never uses.

    The runner builds its definitions, and so this resource, once per run (``pipelines.runner``), and
    dagster-dbt (0.29) pays these per resource instance, before ``dbt build`` starts:

    - ``_cli_version`` runs ``dbt --version`` in a subprocess (3-4 s: dbt's imports). The executable
      does not change while a process lives, so its answer is kept per executable for the process.
    - ``_initialize_dbt_core_adapter`` opens a dbt Core adapter in this process (the profile, the
      adapter plugin and the project's macros, 2-7 s). dagster-dbt uses that adapter only to fetch
      row counts and column metadata after a model builds (``fetch_row_counts``,
      ``fetch_column_metadata``); ``dbt_models`` asks for neither (the published snapshot records the
      row counts), so no adapter is opened. dagster-dbt handles a missing adapter: it is what it
      uses when opening one fails. ``tests/unit/pipelines/defs/dbt/test_platform_dbt_cli.py`` holds
      both to dagster-dbt's own behaviour, so an upgrade that renames them fails there.
    """

    @cached_property
    def _cli_version(self) -> Version:
        known = _CLI_VERSIONS.get(self.dbt_executable)
        if known is None:
            known = _CLI_VERSIONS[self.dbt_executable] = DbtCliResource._cli_version.func(self)  # type: ignore[attr-defined]
        return known

    def _initialize_dbt_core_adapter(self, args: Sequence[str]) -> None:  # type: ignore[override]
        return None


def dbt_resource() -> DbtCliResource:
    """The dbt CLI of this virtualenv (found next to the interpreter, whatever PATH says)."""
    return PlatformDbtCli(
        project_dir=str(dbt_project.project_dir),
        profiles_dir=str(dbt_project.profiles_dir),
        # No --target: profiles.yml's target is DBT_TARGET, which each run's `WarehouseResource.dbt_env`
        # sets (duckdb, or postgres with WAREHOUSE_URL).
        target=None,
        dbt_executable=dbt_executable(),
    )
