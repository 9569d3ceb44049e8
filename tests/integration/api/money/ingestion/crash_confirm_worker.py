"""Test worker (run as a subprocess): confirm one batch, pausing inside the first entry INSERT.

It uses the product's own `service.confirm` in a real write transaction; the only
test instrumentation is a SQLAlchemy `after_cursor_execute` listener that, once an
INSERT into financial_entries has executed (uncommitted), writes a marker file and
sleeps so the parent can SIGKILL the process mid-posting.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sqlalchemy import event

from api.infra.db.registry import load_all_models
from api.infra.db.session import Database
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.money.ingestion import service


def main(url: str, org_id: int, client_id: int, user_id: int, batch_id: int, marker: str) -> None:
    load_all_models()
    database = Database(url)

    @event.listens_for(database.engine, "after_cursor_execute")
    def _pause(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("INSERT INTO FINANCIAL_ENTRIES"):
            Path(marker).write_text("inserting")
            time.sleep(120)

    with database.transaction() as db:
        set_scope(db, TenantScope(org_id, client_id))
        service.confirm(db, batch_id, user_id)
    print("committed")  # never reached when the parent kills us


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:6]), sys.argv[6])
