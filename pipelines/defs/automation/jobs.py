"""Jobs the sensors and schedules launch."""

from __future__ import annotations

import os

import dagster as dg

#: Steps of one run executing at once when the daemon launches it (the multiprocess executor; a run the
#: API's job worker executes in its own process ignores it). DAGSTER_MAX_CONCURRENT_STEPS, default 4.
MAX_CONCURRENT_STEPS = int(os.environ.get("DAGSTER_MAX_CONCURRENT_STEPS") or 4)

#: Everything: raw files, the operational extract, dbt build and tests, publish.
full_pipeline_job = dg.define_asset_job(
    "full_pipeline",
    selection=dg.AssetSelection.all(),
    description="Parse new files, extract the operational tables, build and test the marts, publish a snapshot.",
    executor_def=dg.multiprocess_executor.configured({"max_concurrent": MAX_CONCURRENT_STEPS}),
)

JOBS = [full_pipeline_job]
