"""Sensors: a folder drop and a confirmed import batch each start the full pipeline once."""

import dagster as dg
from sqlalchemy import text

from pipelines.defs.automation.cursors import batch_tick, drop_tick
from pipelines.defs.automation.jobs import full_pipeline_job
from pipelines.defs.resources import WarehouseResource
from pipelines.warehouse.sources import cached_drop_files, client_organizations


@dg.sensor(
    job=full_pipeline_job,
    minimum_interval_seconds=30,
    description="Watches DATA_DIR/drop/client_<id>/ and runs the pipeline once per new content (content-hash run keys).",
    default_status=dg.DefaultSensorStatus.RUNNING,
)
def drop_folder_sensor(context: dg.SensorEvaluationContext, warehouse: WarehouseResource):
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
def confirmed_batches_sensor(context: dg.SensorEvaluationContext, warehouse: WarehouseResource):
    last = int(context.cursor) if context.cursor else 0
    with warehouse.engine() as engine, engine.connect() as conn:
        rows = conn.execute(
            text("select id, content_sha256 from import_batches where status = 'confirmed' and id > :last order by id"),
            {"last": last},
        ).all()
    tick = batch_tick(context.cursor, [(int(r[0]), str(r[1])) for r in rows])
    context.update_cursor(tick.cursor)
    if tick.run_key is None:
        return dg.SkipReason("no newly confirmed batches")
    return dg.RunRequest(
        run_key=tick.run_key, tags={"trigger": "import_batch", "batches": ",".join(map(str, tick.batch_ids))}
    )


SENSORS = [drop_folder_sensor, confirmed_batches_sensor]
