"""A publish killed with SIGKILL (no cleanup runs) at either of its two renames: readers keep the
snapshot published before, and the next publish removes what the killed one left and switches."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.publish import publish_snapshot
from pipelines.warehouse.snapshot import open_published
from tests.support.paths import REPO

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
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), str(layout.data_dir), str(build_db), pause_at, str(marker)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if worker.poll() is not None:
                pytest.fail(f"the worker exited early: {worker.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                pytest.fail(f"the worker never reached the {pause_at} rename")
            time.sleep(0.05)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == -signal.SIGKILL
    assert b"published" not in worker.stdout.read()  # type: ignore[union-attr]


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
