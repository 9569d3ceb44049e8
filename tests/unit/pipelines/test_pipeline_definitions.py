"""The code location loads, with the groups, checks, jobs, sensors and schedule it promises."""

from __future__ import annotations

import dagster as dg
import pytest

from pipelines.definitions import build_definitions, defs
from pipelines.defs.automation.sensors import confirmed_batches_sensor, drop_folder_sensor
from pipelines.defs.dbt.project import ensure_manifest, manifest_is_current
from pipelines.defs.publish.assets import MART_KEYS
from pipelines.defs.resources import WarehouseResource
from pipelines.runner import ensure_dagster_home


def test_manifest_is_current_after_ensure():
    path = ensure_manifest()
    assert path.is_file()
    assert manifest_is_current()


def test_asset_groups_and_publish_dependencies():
    graph = defs.resolve_asset_graph()
    groups = {graph.get(k).group_name for k in graph.get_all_asset_keys()}
    assert groups == {"raw", "extract", "staging", "marts", "publish"}
    publish = graph.get(dg.AssetKey("published_snapshot"))
    mart_names = {k.path[-1] for k in MART_KEYS}
    assert {"fct_kpis_monthly", "fct_claim_adjustments", "dim_payers", "fct_roi_monthly"} <= mart_names
    assert set(publish.parent_keys) == set(MART_KEYS)
    # dbt sources hang off the raw and extract assets
    staging = graph.get(dg.AssetKey(["staging", "stg_era__claims"]))
    assert dg.AssetKey(["raw", "remittance_claims"]) in staging.parent_keys
    ops = graph.get(dg.AssetKey(["staging", "stg_ops__financial_entries"]))
    assert dg.AssetKey(["extract", "financial_entries"]) in ops.parent_keys


def test_dbt_tests_are_asset_checks_and_automation_is_declared():
    graph = defs.resolve_asset_graph()
    assert len(list(graph.asset_check_keys)) >= 90
    assert {s.name for s in defs.sensors} == {"drop_folder_sensor", "confirmed_batches_sensor"}
    (schedule,) = defs.schedules
    assert schedule.cron_schedule == "0 2 * * *"
    assert defs.resolve_job_def("full_pipeline") is not None


@pytest.fixture
def warehouse(tmp_path):
    from tests.integration.pipelines.conftest import make_operational_db

    url = make_operational_db(tmp_path)
    return WarehouseResource(data_dir=str(tmp_path), database_url=url)


def test_drop_sensor_requests_one_run_per_new_content(warehouse, tmp_path):
    from tests.integration.pipelines.conftest import CLIENT_ID

    drop = tmp_path / "drop" / f"client_{CLIENT_ID}"
    drop.mkdir(parents=True)
    (drop / "remit.835").write_bytes(
        b"ISA*00*          *00*          *ZZ*A              *ZZ*B              *260101*1200*^*00501*000000001*0*P*:~ST*835*0001~"
    )
    context = dg.build_sensor_context(cursor=None, resources={"warehouse": warehouse})
    first = drop_folder_sensor(context)
    assert isinstance(first, dg.RunRequest)
    assert first.run_key.startswith("drop-")
    again = drop_folder_sensor(dg.build_sensor_context(cursor=context.cursor, resources={"warehouse": warehouse}))
    assert isinstance(again, dg.SkipReason)


def test_batch_sensor_skips_without_confirmed_batches(warehouse):
    result = confirmed_batches_sensor(dg.build_sensor_context(cursor=None, resources={"warehouse": warehouse}))
    assert isinstance(result, dg.SkipReason)


def test_definitions_bind_the_given_warehouse(tmp_path):
    resource = WarehouseResource(data_dir=str(tmp_path), database_url="sqlite://")
    built = build_definitions(resource)
    assert built.resources["warehouse"].data_dir == str(tmp_path)


def test_dagster_home_switches_telemetry_off(tmp_path):
    home = ensure_dagster_home(tmp_path)
    assert (home / "dagster.yaml").read_text() == "telemetry:\n  enabled: false\n"
