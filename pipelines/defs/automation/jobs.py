"""Jobs the sensors and schedules launch."""

from __future__ import annotations

import dagster as dg

#: Everything: raw files, the operational extract, dbt build and tests, publish.
full_pipeline_job = dg.define_asset_job(
    "full_pipeline",
    selection=dg.AssetSelection.all(),
    description="Parse new files, extract the operational tables, build and test the marts, publish a snapshot.",
)

JOBS = [full_pipeline_job]
