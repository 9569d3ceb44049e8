"""Publishing snapshots and reading the published one."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.publish import KEEP, PublishError, publish_snapshot
from pipelines.warehouse.snapshot import NoPublishedSnapshot, open_published


@pytest.fixture
def build(tmp_path):
    layout = WarehouseLayout.at(tmp_path)
    layout.build_db_for("test-run").parent.mkdir(parents=True)
    con = duckdb.connect(str(layout.build_db_for("test-run")))
    con.execute("create schema marts")
    con.execute("create table marts.fct_a as select range as id, range * 1.5 as v from range(10)")
    con.execute("create table marts.dim_b as select 'x' as code")
    con.execute("create view marts.v_raw as select * from marts.fct_a")
    con.execute("create schema staging")
    con.execute("create view staging.stg as select 1 as x")
    con.execute("create schema intermediate")
    con.execute("create table intermediate.int_big as select range as id from range(1000)")
    con.execute("create table marts.fct_unlisted as select 1 as x")
    con.close()
    return layout


def test_publish_copies_tables_and_switches_the_pointer(build):
    result = publish_snapshot(
        build, build.build_db_for("test-run"), [("marts", "fct_a"), ("marts", "dim_b")], run_id="r1"
    )
    pointer = json.loads(build.published_pointer.read_text())
    assert pointer == {
        "snapshot": str(result.snapshot),
        "schema": "marts",
        "built_at": result.built_at,
        "run_id": "r1",
        "tables": {"fct_a": 10, "dim_b": 1},
    }
    with open_published(build.data_dir) as snap:
        assert snap.path == result.snapshot
        assert snap.run_id == "r1"
        assert snap.connection.execute("select sum(id) from fct_a").fetchone()[0] == 45
        with pytest.raises(duckdb.Error):
            snap.connection.execute("create table nope (x int)")  # read-only
    con = duckdb.connect(str(result.snapshot), read_only=True)
    objects = con.execute("select table_schema, table_name, table_type from information_schema.tables").fetchall()
    assert sorted(objects) == [("marts", "dim_b", "BASE TABLE"), ("marts", "fct_a", "BASE TABLE")]
    con.close()


def test_only_the_last_snapshots_are_kept(build):
    start = datetime(2026, 1, 1, tzinfo=UTC)
    results = [
        publish_snapshot(build, build.build_db_for("test-run"), [("marts", "fct_a")], now=start + timedelta(minutes=i))
        for i in range(KEEP + 2)
    ]
    left = sorted(p.name for p in build.snapshots_dir.glob("marts_*.duckdb"))
    assert left == sorted(r.snapshot.name for r in results[-KEEP:])
    assert json.loads(build.published_pointer.read_text())["snapshot"] == str(results[-1].snapshot)


def test_a_failed_publish_leaves_the_pointer_and_no_partial_file(build):
    good = publish_snapshot(build, build.build_db_for("test-run"), [("marts", "fct_a")])
    before = build.published_pointer.read_text()
    with pytest.raises(PublishError, match="missing from the build: missing_table"):
        publish_snapshot(
            build,
            build.build_db_for("test-run"),
            [("marts", "fct_a"), ("marts", "missing_table")],
            now=datetime(2030, 1, 1, tzinfo=UTC),
        )
    assert build.published_pointer.read_text() == before
    left = [p.name for p in build.snapshots_dir.iterdir() if p.name != ".publish.lock"]
    assert left == [good.snapshot.name]


def test_nothing_to_publish_is_an_error(build):
    with pytest.raises(PublishError, match="no mart tables"):
        publish_snapshot(build, build.build_db_for("test-run"), [])


def test_reading_before_anything_is_published(tmp_path):
    with pytest.raises(NoPublishedSnapshot, match="run the pipeline first"):
        open_published(tmp_path)


def test_a_pointer_to_a_missing_snapshot_is_reported(build):
    result = publish_snapshot(build, build.build_db_for("test-run"), [("marts", "fct_a")])
    result.snapshot.unlink()
    with pytest.raises(NoPublishedSnapshot, match=f"{result.snapshot.name} is missing"):
        open_published(build.data_dir)


def test_builds_are_per_run_and_pruned_to_the_newest_complete_ones(tmp_path):
    import os
    import time

    from pipelines.defs.dbt.assets import prune_builds
    from pipelines.warehouse.layout import BUILD_COMPLETE

    layout = WarehouseLayout.at(tmp_path)
    assert layout.build_db_for("a") != layout.build_db_for("b")
    complete = {"r1", "r2", "r3"}
    for i, run in enumerate(["r1", "r2", "r3", "running", "crashed"]):
        folder = layout.build_db_for(run).parent
        folder.mkdir(parents=True)
        layout.build_db_for(run).write_bytes(b"x")
        if run in complete:
            (folder / BUILD_COMPLETE).touch()
        stamp = time.time() - (100 - i) if run != "crashed" else time.time() - 2 * 86_400
        os.utime(folder, (stamp, stamp))
        if run in complete:
            os.utime(folder / BUILD_COMPLETE, (stamp, stamp))
    assert layout.latest_complete_build() == layout.build_db_for("r3")
    prune_builds(layout.builds_dir, keep=2)
    left = sorted(p.name for p in layout.builds_dir.iterdir())
    assert left == ["r2", "r3", "running"]  # oldest complete and the day-old crashed build are gone
