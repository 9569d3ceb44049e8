"""The confirmed-batch sensor on a real operational database (SQLite and PostgreSQL): batches uploaded
and confirmed over the wire, a full run requested through `operations.runPipeline`.

A run requested after a batch was confirmed builds it: the sensor moves past it without a second run
(the demo of `make up` builds once). A batch no requested run covers is built once it has settled."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import dagster as dg
from sqlalchemy import text

from pipelines.defs.automation.sensors import confirmed_batches_sensor
from pipelines.defs.resources import WarehouseResource
from tests.integration.api.money.ingestion.conftest import upload_json, x12_bytes


def _confirmed_batch(rpc, name: str) -> int:
    batch = upload_json(rpc, x12_bytes(f"hand/{name}"), name).data["batch"]
    rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]})
    return int(batch["id"])


def _backdate_confirmations(services, batch_ids: list[int], seconds: int) -> None:
    # The settle window is a minute of wall time; the test moves the confirmations back instead of waiting.
    with services.database.engine.begin() as conn:
        for batch_id in batch_ids:
            confirmed = conn.execute(
                text("select confirmed_at from import_batches where id = :id"), {"id": batch_id}
            ).scalar_one()
            moment = datetime.fromisoformat(confirmed) if isinstance(confirmed, str) else confirmed
            earlier = (moment.replace(tzinfo=moment.tzinfo or UTC) - timedelta(seconds=seconds)).astimezone(UTC)
            conn.execute(
                text("update import_batches set confirmed_at = :at where id = :id"), {"at": earlier, "id": batch_id}
            )


def _tick(settings, cursor: str | None):
    warehouse = WarehouseResource(data_dir=str(settings.data_dir), database_url=settings.database_url)
    context = dg.build_sensor_context(cursor=cursor, resources={"warehouse": warehouse})
    return confirmed_batches_sensor(context), context.cursor


def test_a_run_requested_after_the_confirmations_covers_them(services, settings, make_member):
    member = make_member()
    first = _confirmed_batch(member.rpc, "balanced_230.835")
    second = _confirmed_batch(member.rpc, "cases_denial.835")
    cursor = str(min(first, second) - 1)

    # Just confirmed, no run requested: the sensor waits for the confirmations to settle.
    result, after = _tick(settings, cursor)
    assert isinstance(result, dg.SkipReason)
    assert "settling" in (result.skip_message or "")
    assert after == cursor

    # The user (or the demo) asks for a full run: it builds both batches, the sensor builds nothing more.
    member.rpc.mutation("operations.runPipeline", {})
    result, after = _tick(settings, cursor)
    assert isinstance(result, dg.SkipReason)
    assert "covered" in (result.skip_message or "")
    assert after == str(max(first, second))


def test_a_settled_batch_no_run_covers_is_built_once(services, settings, make_member):
    member = make_member()
    batch = _confirmed_batch(member.rpc, "cob_denial_primary.835")
    _backdate_confirmations(services, [batch], seconds=120)
    cursor = str(batch - 1)

    result, after = _tick(settings, cursor)
    assert isinstance(result, dg.RunRequest)
    assert result.tags["batches"] == str(batch)
    assert after == str(batch)
    again, _ = _tick(settings, after)
    assert isinstance(again, dg.SkipReason)

    # A run requested for some assets only does not cover a batch: it does not rebuild the marts.
    member.rpc.mutation("operations.runPipeline", {"selection": ["extract"]})
    result, _ = _tick(settings, cursor)
    assert isinstance(result, dg.RunRequest)
