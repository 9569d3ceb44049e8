"""Sensors: a folder drop and a confirmed import batch each start the full pipeline once."""

from datetime import UTC, datetime

import dagster as dg
from sqlalchemy import text

from pipelines.defs.automation.cursors import ConfirmedBatch, batch_tick, drop_tick
from pipelines.defs.automation.jobs import full_pipeline_job
from pipelines.defs.resources import WarehouseResource
from pipelines.warehouse.sources import cached_drop_files, client_organizations


@dg.sensor(
    job=full_pipeline_job,
    minimum_interval_seconds=30,
    description="Watches DATA_DIR/drop/client_<id>/ and runs the pipeline once per new content (content-hash run keys).",
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def drop_folder_sensor(
    context: dg.SensorEvaluationContext, warehouse: WarehouseResource
) -> dg.SkipReason | dg.RunRequest:
    layout = warehouse.layout
    if not layout.drop_client_dirs():
        return dg.SkipReason("no drop folders")
    with warehouse.engine() as engine:
        files = cached_drop_files(layout, client_organizations(engine))
    tick = drop_tick(context.cursor, {f.key: f.name for f in files})
    context.update_cursor(tick.cursor)
    if tick.run_key is None:
        return dg.SkipReason("no new files")
    return dg.RunRequest(run_key=tick.run_key, tags={"trigger": "drop", "new_files": str(len(tick.new_files))})


@dg.sensor(
    job=full_pipeline_job,
    minimum_interval_seconds=30,
    description="Polls the operational database for newly confirmed import batches (cursor: highest batch id).",
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def confirmed_batches_sensor(
    context: dg.SensorEvaluationContext, warehouse: WarehouseResource
) -> dg.SkipReason | dg.RunRequest:
    last = int(context.cursor) if context.cursor else 0
    with warehouse.engine() as engine, engine.connect() as conn:
        rows = conn.execute(_CONFIRMED_SINCE, {"last": last}).all()
    batches = [ConfirmedBatch(int(r[0]), str(r[1]), _utc(r[2]), bool(r[3])) for r in rows]
    tick = batch_tick(context.cursor, batches, datetime.now(UTC))
    context.update_cursor(tick.cursor)
    if tick.run_key is None:
        return dg.SkipReason(tick.reason)
    return dg.RunRequest(
        run_key=tick.run_key, tags={"trigger": "import_batch", "batches": ",".join(map(str, tick.batch_ids))}
    )


# Confirmed batches above the cursor, each with whether a full run requested after its confirmation
# (operations.runPipeline: pipeline_runs with no asset selection, not failed) already builds it. A run
# without a selection stores JSON null, not SQL NULL (SQLAlchemy's JSON type): both are read as "all".
_CONFIRMED_SINCE = text(
    """
    select b.id, b.content_sha256, b.confirmed_at,
           exists (
               select 1 from pipeline_runs r
               where r.client_id = b.client_id
                 and (r.selection is null or cast(r.selection as varchar(20)) = 'null')
                 and r.status in ('queued', 'running', 'succeeded') and r.created_at >= b.confirmed_at
           ) as covered
    from import_batches b
    where b.status = 'confirmed' and b.id > :last
    order by b.id
    """
)


def _utc(value: datetime | str) -> datetime:
    # SQLite hands the column back as text, PostgreSQL as an aware datetime; both are UTC.
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


SENSORS = [drop_folder_sensor, confirmed_batches_sensor]
