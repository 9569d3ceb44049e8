"""The queue's statements use the index meant for them on SQLite whatever the order of the indexes in the
schema and without planner statistics (issue 24).

SQLite without `sqlite_stat1` breaks ties between equally good-looking indexes by their order in the
schema, and migration 0022 (batch mode recreates `denial_cases`) leaves that order to Python's hash
seed: the probe for cases not scored yet once read every working case through
ix_denial_cases_client_state or ix_denial_cases_organization_id on some databases and not on others.
Here the statements the service really issues (captured while it runs on a migrated SQLite file) are
explained under every rotation of the index order, forwards and backwards, so each index comes first
and last at least once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session

from api.denials.human_attention import service
from api.infra.db import migrate
from api.infra.db.session import normalise_url
from api.infra.db.tenant_filter import TenantScope, set_scope

PAGE_INDEX = {
    "client": "ix_denial_cases_client_priority",
    "owner": "ix_denial_cases_client_owner_priority",
    "category": "ix_denial_cases_client_category_priority",
}
FILTERS = {
    "client": service.QueueFilters(),
    "owner": service.QueueFilters(owners=(7,)),
    "category": service.QueueFilters(category="coding"),
}
# the probe for cases not scored yet: one seek in this index, no table row read
PROBE_PLAN = (
    "SEARCH denial_cases USING COVERING INDEX ix_denial_cases_client_priority (client_id=? AND priority_score=?)"
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path_factory.mktemp('plan') / 'plan.db'}"
    migrate.upgrade(url)
    eng = create_engine(normalise_url(url))
    yield eng
    eng.dispose()


def _statements(engine: Engine, filters: service.QueueFilters) -> list[tuple[str, Any]]:
    """The SELECTs one queue call issues (an empty client: the page and the probe)."""
    seen: list[tuple[str, Any]] = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", capture)
    try:
        with Session(engine) as db:
            set_scope(db, TenantScope(1, 1))
            service.queue(db, filters, limit=50, cursor=None)
    finally:
        event.remove(engine, "before_cursor_execute", capture)
    return seen


def _index_orders(engine: Engine) -> list[list[str]]:
    with engine.connect() as conn:
        ddl = [
            row[0]
            for row in conn.execute(
                text(
                    "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'denial_cases' AND sql IS NOT NULL"
                )
            )
        ]
    forwards = [ddl[i:] + ddl[:i] for i in range(len(ddl))]
    return forwards + [list(reversed(order)) for order in forwards]


def _recreate(engine: Engine, order: list[str]) -> None:
    with engine.begin() as conn:
        for statement in order:
            name = statement.split()[2]
            conn.execute(text(f"DROP INDEX {name}"))
        for statement in order:
            conn.execute(text(statement))


def _plan(engine: Engine, statement: str, parameters: Any) -> str:
    with engine.connect() as conn:
        return " | ".join(row[3] for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters))


def test_every_index_order_gives_the_same_plans(engine):
    statements = {shape: _statements(engine, filters) for shape, filters in FILTERS.items()}
    orders = _index_orders(engine)
    assert len(orders) >= 16  # the model's indexes and the tenant columns' ones, forwards and backwards
    for order in orders:
        _recreate(engine, order)
        for shape, issued in statements.items():
            probes = [(s, p) for s, p in issued if "priority_score IS NULL" in s]
            pages = [(s, p) for s, p in issued if "ORDER BY" in s]
            assert len(probes) == 1 and len(pages) == 1, issued
            assert _plan(engine, *probes[0]) == PROBE_PLAN, (shape, order)
            page = _plan(engine, *pages[0])
            assert page.startswith(f"SEARCH denial_cases USING INDEX {PAGE_INDEX[shape]} "), (shape, page, order)
            assert "TEMP B-TREE" not in page, (shape, page)  # the index gives the order: no sort
