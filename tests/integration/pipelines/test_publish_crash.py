"""A publish killed with SIGKILL (no cleanup runs) at either of its two renames: readers keep the
snapshot published before, and the next publish removes what the killed one left and switches."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.publish import publish_snapshot
from pipelines.warehouse.snapshot import open_published
from tests.support.killed import kill_at_marker

WORKER = Path(__file__).with_name("crash_publish_worker.py")


def _build_db(layout: WarehouseLayout, run: str, rows: int) -> Path:
    path = layout.build_db_for(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    con.execute(f"create table marts.fct_a as select range as id from range({rows})")
    con.close()
    return path


def _kill_publish_at(layout: WarehouseLayout, build_db: Path, pause_at: str, marker: Path) -> None:
    args = (str(layout.data_dir), str(build_db), pause_at, str(marker))
    printed = kill_at_marker(WORKER, *args, marker=marker, what=f"the {pause_at} rename")
    assert b"published" not in printed


def _served_count(layout: WarehouseLayout) -> int:
    with open_published(layout.data_dir) as snap:
        row = snap.connection.execute("select count(*) from fct_a").fetchone()
        assert row is not None
        return int(row[0])


def _hidden(layout: WarehouseLayout) -> list[str]:
    folders = (layout.snapshots_dir, layout.published_pointer.parent)
    return sorted(
        p.name for folder in folders for p in folder.iterdir() if p.name.startswith(".") and "lock" not in p.name
    )


@pytest.mark.parametrize("pause_at", ["snapshot", "pointer"])
def test_a_publish_killed_at_a_rename_leaves_the_old_snapshot_served_and_the_next_publish_cleans_up(
    tmp_path: Path, pause_at: str
) -> None:
    layout = WarehouseLayout.at(tmp_path)
    first = publish_snapshot(layout, _build_db(layout, "first", 3), [("marts", "fct_a")], run_id="first")
    before = layout.published_pointer.read_bytes()

    _kill_publish_at(layout, _build_db(layout, "killed", 5), pause_at, tmp_path / "marker")

    # Readers: the pointer is byte for byte what it was, and the snapshot it names still serves 3 rows.
    assert layout.published_pointer.read_bytes() == before
    assert _served_count(layout) == 3
    left = _hidden(layout)
    if pause_at == "snapshot":
        # The finished copy under its hidden name: as big as the marts, and nobody would ever remove it.
        assert [name for name in left if name.endswith(".building")], left
    else:
        # The copy was renamed into place, the new pointer written but not switched: its temporary file.
        assert [name for name in left if name.startswith(".published.json.")], left

    third = publish_snapshot(layout, _build_db(layout, "third", 7), [("marts", "fct_a")], run_id="third")
    assert json.loads(layout.published_pointer.read_text())["run_id"] == "third"
    assert _served_count(layout) == 7
    assert _hidden(layout) == []
    assert first.snapshot.exists()  # kept: one of the last three, as before
    assert third.snapshot.exists()
