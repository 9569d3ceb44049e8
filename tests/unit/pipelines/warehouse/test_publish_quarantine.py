"""Publishing with quarantined tenants: their rows of the previous snapshot are carried forward, every
other tenant gets the new build, and the pointer says who was held back, why and since when."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from pipelines.warehouse.layout import WarehouseLayout
from pipelines.warehouse.publish import publish_snapshot
from pipelines.warehouse.quarantine import Quarantine

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
Q = Quarantine(1, 10, "not_null_fct_a_month", "not_null", "fct_a", "month", 2)


def _build(layout: WarehouseLayout, run: str, rows: list[tuple[int, int, str | None]], *, extra: bool = False) -> None:
    """A build with one tenant mart (fct_a: organization, client, month) and one reference mart."""
    path = layout.build_db_for(run)
    path.parent.mkdir(parents=True)
    con = duckdb.connect(str(path))
    con.execute("create schema marts")
    extra_col = ", new_col integer" if extra else ""
    con.execute(f"create table marts.fct_a (organization_id integer, client_id integer, month varchar{extra_col})")
    for row in rows:
        con.execute("insert into marts.fct_a (organization_id, client_id, month) values (?, ?, ?)", list(row))
    con.execute("create table marts.dim_codes as select 'x' as code")
    con.close()


def _publish(layout, run, when, quarantines=()):
    return publish_snapshot(
        layout,
        layout.build_db_for(run),
        [("marts", "fct_a"), ("marts", "dim_codes")],
        run_id=run,
        now=when,
        quarantines=quarantines,
    )


def _rows(result):
    con = duckdb.connect(str(result.snapshot), read_only=True)
    try:
        return con.execute("select client_id, month from marts.fct_a order by client_id, month").fetchall()
    finally:
        con.close()


@pytest.fixture
def layout(tmp_path):
    layout = WarehouseLayout.at(tmp_path)
    _build(layout, "r1", [(1, 10, "2026-10"), (2, 20, "2026-10")])
    _publish(layout, "r1", T0)
    return layout


def test_a_quarantined_tenant_keeps_its_previous_rows_and_the_others_get_the_new_build(layout):
    # run 2: client 10 has a row without a month (its contract fails), client 20 has a new month
    _build(layout, "r2", [(1, 10, "2026-11"), (1, 10, None), (2, 20, "2026-10"), (2, 20, "2026-11")], extra=True)
    result = _publish(layout, "r2", T0 + timedelta(hours=1), [Q])
    assert _rows(result) == [(10, "2026-10"), (20, "2026-10"), (20, "2026-11")]
    assert result.tables == {"fct_a": 3, "dim_codes": 1}
    pointer = json.loads(layout.published_pointer.read_text())
    assert pointer["tenant_data"] == {"10": {"built_at": "2026-11-01T09:00:00Z", "run_id": "r1"}}
    (entry,) = pointer["quarantines"]
    assert entry["client_id"] == 10
    assert entry["failing_rows"] == 2
    assert entry["detected_at"] == entry["since"] == "2026-11-01T10:00:00Z"
    assert entry["reason"] == ("not_null test on fct_a.month failed for 2 row(s) of this client (not_null_fct_a_month)")


def test_a_tenant_quarantined_twice_keeps_its_oldest_rows_and_first_detection(layout):
    _build(layout, "r2", [(1, 10, None), (2, 20, "2026-11")])
    _publish(layout, "r2", T0 + timedelta(hours=1), [Q])
    _build(layout, "r3", [(1, 10, None), (2, 20, "2026-12")])
    result = _publish(layout, "r3", T0 + timedelta(hours=2), [Q])
    assert _rows(result) == [(10, "2026-10"), (20, "2026-12")]
    pointer = json.loads(layout.published_pointer.read_text())
    assert pointer["tenant_data"]["10"] == {"built_at": "2026-11-01T09:00:00Z", "run_id": "r1"}
    assert pointer["quarantines"][0]["since"] == "2026-11-01T10:00:00Z"
    assert pointer["quarantines"][0]["detected_at"] == "2026-11-01T11:00:00Z"


def test_once_the_contract_holds_again_the_tenant_is_published_and_listed_nowhere(layout):
    _build(layout, "r2", [(1, 10, None)])
    _publish(layout, "r2", T0 + timedelta(hours=1), [Q])
    _build(layout, "r3", [(1, 10, "2026-11")])
    result = _publish(layout, "r3", T0 + timedelta(hours=2))
    assert _rows(result) == [(10, "2026-11")]
    pointer = json.loads(layout.published_pointer.read_text())
    assert "quarantines" not in pointer and "tenant_data" not in pointer


def test_a_tenant_quarantined_on_the_first_publish_has_no_rows(tmp_path):
    layout = WarehouseLayout.at(tmp_path)
    _build(layout, "r1", [(1, 10, None), (2, 20, "2026-10")])
    result = _publish(layout, "r1", T0, [Q])
    assert _rows(result) == [(20, "2026-10")]
    assert json.loads(layout.published_pointer.read_text())["tenant_data"] == {"10": {"built_at": None, "run_id": None}}
