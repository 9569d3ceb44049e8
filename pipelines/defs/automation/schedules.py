"""Nightly rebuild of the marts (also removes files of batches that are no longer confirmed)."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.automation.jobs import full_pipeline_job

nightly_rebuild = dg.ScheduleDefinition(
    name="nightly_rebuild",
    job=full_pipeline_job,
    cron_schedule="0 2 * * *",
    execution_timezone="UTC",
    description="Rebuild and publish the marts every night at 02:00 UTC.",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)

SCHEDULES = [nightly_rebuild]
