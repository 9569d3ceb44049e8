"""The Dagster code location of the denial platform (``dagster dev`` from the repository root).

Asset groups: raw (parsed files), extract (operational tables), staging (dbt staging and
seeds), marts (dbt intermediate models and marts), publish (the snapshot the API reads).
"""

from __future__ import annotations

import dagster as dg

from pipelines.defs.automation.jobs import JOBS
from pipelines.defs.automation.schedules import SCHEDULES
from pipelines.defs.automation.sensors import SENSORS
from pipelines.defs.checks.case_ledger_checks import CASE_LEDGER_CHECKS
from pipelines.defs.checks.raw_checks import RAW_CHECKS
from pipelines.defs.dbt.assets import DBT_ASSETS, dbt_resource
from pipelines.defs.extract.assets import EXTRACT_ASSETS
from pipelines.defs.publish.assets import PUBLISH_ASSETS
from pipelines.defs.raw.assets import RAW_ASSETS
from pipelines.defs.resources import WarehouseResource, default_warehouse


def build_definitions(warehouse: WarehouseResource | None = None) -> dg.Definitions:
    """All assets, checks, jobs, sensors and schedules, bound to ``warehouse`` (default: ``DATA_DIR`` / ``DATABASE_URL`` from the environment)."""
    return dg.Definitions(
        assets=[*RAW_ASSETS, *EXTRACT_ASSETS, *DBT_ASSETS, *PUBLISH_ASSETS],
        asset_checks=[*RAW_CHECKS, *CASE_LEDGER_CHECKS],
        jobs=JOBS,
        sensors=SENSORS,
        schedules=SCHEDULES,
        resources={"warehouse": warehouse or default_warehouse(), "dbt": dbt_resource()},
    )


defs = build_definitions()
