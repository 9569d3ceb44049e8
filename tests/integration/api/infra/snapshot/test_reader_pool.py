"""The mart reader reuses a tenant's connection (with its views) between requests: reuse must never
widen what a request sees — not another tenant's rows, not marts it did not name, not an old snapshot."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

from api.infra.snapshot.reader import MartReader


def publish(warehouse: Path, name: str, rows: list[tuple[int, int, int]], run_id: str) -> None:
    """A snapshot file with fct_x (tenant rows) and fct_y, and the pointer naming it (as the pipeline does)."""
    db = warehouse / f"marts_{name}.duckdb"
    con = duckdb.connect(str(db))
    values = ", ".join(f"({o}, {c}, {v})" for o, c, v in rows)
    con.execute(f"create table fct_x as select * from (values {values}) t(organization_id, client_id, v)")
    con.execute("create table fct_y as select * from (values (1, 2, 7)) t(organization_id, client_id, w)")
    con.close()
    pointer = warehouse / "published.json"
    pointer.write_text(
        json.dumps(
            {
                "snapshot": str(db),
                "built_at": "2026-01-01T00:00:00Z",
                "run_id": run_id,
                "tables": {"fct_x": len(rows), "fct_y": 1},
            }
        )
    )
    # The reader notices a new pointer by its modification time; make it differ even on coarse clocks.
    stamp = pointer.stat().st_mtime_ns + int(run_id[1:]) * 1_000_000_000
    os.utime(pointer, ns=(stamp, stamp))


def values(reader: MartReader, org: int, client: int | None, tables: list[str] | None = None) -> list[int]:
    with reader.scoped(org, client, tables) as m:
        return sorted(r["v"] for r in m.rows("select v from fct_x"))


def test_alternating_tenants_never_see_each_others_rows(tmp_path: Path) -> None:
    publish(tmp_path, "a", [(1, 1, 10), (1, 2, 20), (2, 3, 30)], "r1")
    reader = MartReader(tmp_path)
    for _ in range(5):  # every pass after the first reuses pooled connections
        assert values(reader, 1, 2) == [20]
        assert values(reader, 2, 3) == [30]
        assert values(reader, 1, None) == [10, 20]
        assert values(reader, 2, 1) == []  # a client id of another organization sees nothing


def test_an_organization_wide_view_of_a_client_scoped_member_holds_only_its_clients(tmp_path: Path) -> None:
    """Issue 23: portfolio views across the organization's clients, for a member reaching only some."""
    publish(tmp_path, "a", [(1, 1, 10), (1, 2, 20), (1, 4, 40), (2, 3, 30)], "r1")
    reader = MartReader(tmp_path)

    def reachable(clients: frozenset[int]) -> list[int]:
        with reader.scoped(1, None, clients=clients) as m:
            assert m.clients == clients
            return sorted(r["v"] for r in m.rows("select v from fct_x"))

    for _ in range(3):  # pooled connections are keyed by the client set too
        assert reachable(frozenset({2})) == [20]
        assert reachable(frozenset({1, 4})) == [10, 40]
        assert reachable(frozenset({3})) == []  # another organization's client
        assert reachable(frozenset()) == []
        assert values(reader, 1, None) == [10, 20, 40]


def test_a_reused_connection_holds_only_the_marts_the_request_named(tmp_path: Path) -> None:
    publish(tmp_path, "a", [(1, 2, 20)], "r1")
    reader = MartReader(tmp_path)
    assert values(reader, 1, 2) == [20]  # all marts
    for _ in range(2):
        with reader.scoped(1, 2, ["fct_y"]) as m:
            assert m.rows("select w from fct_y") == [{"w": 7}]
            with pytest.raises(duckdb.Error):
                m.rows("select v from fct_x")


def test_a_new_snapshot_is_seen_by_the_next_request(tmp_path: Path) -> None:
    publish(tmp_path, "a", [(1, 2, 20)], "r1")
    reader = MartReader(tmp_path)
    assert values(reader, 1, 2) == [20]
    assert values(reader, 1, 2) == [20]
    publish(tmp_path, "b", [(1, 2, 21), (1, 2, 22)], "r2")
    assert values(reader, 1, 2) == [21, 22]


def test_a_failed_request_does_not_poison_the_next(tmp_path: Path) -> None:
    publish(tmp_path, "a", [(1, 2, 20)], "r1")
    reader = MartReader(tmp_path)
    with pytest.raises(duckdb.Error), reader.scoped(1, 2) as m:
        m.rows("select no_such_column from fct_x")
    assert values(reader, 1, 2) == [20]


def test_a_pointer_replaced_within_the_same_clock_tick_is_seen(tmp_path: Path) -> None:
    """The publisher replaces the pointer file (os.replace); on a coarse clock the new file can carry the
    old modification time, and the reader must still follow it."""
    publish(tmp_path, "a", [(1, 2, 20)], "r1")
    reader = MartReader(tmp_path)
    assert values(reader, 1, 2) == [20]
    pointer = tmp_path / "published.json"
    before = pointer.stat()
    publish(tmp_path, "b", [(1, 2, 21)], "r1")  # rewritten in place, as `publish` does
    staged = tmp_path / "published.json.tmp"
    staged.write_text(pointer.read_text())
    os.replace(staged, pointer)  # as the pipeline's atomic write does
    os.utime(pointer, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same tick as the first pointer
    assert pointer.stat().st_mtime_ns == before.st_mtime_ns
    assert values(reader, 1, 2) == [21]
