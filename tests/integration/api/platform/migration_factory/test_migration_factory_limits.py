"""migrationFactory.planMigration under attack, over the wire on SQLite and PostgreSQL (issue 23): the
60 KB header line that froze the platform in csv.Sniffer, and a line of a million delimiters, are
refused naming their cap before the write transaction; a wide export within the caps is planned."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import func, select

from api.platform.migration_factory.models import Migration

HEADER = "Claim Number,Payer,Denied Amount,Billed Amount"


def _wide_header(chars: int) -> str:
    filler = ",".join(f"legacy field {i:05d}" for i in range(chars // 19 + 1))
    return (HEADER + "," + filler)[:chars]


def _plan(member_rpc, content: str):
    body = {"kind": "denials", "sourceSystem": "Legacy PM 4.2", "filename": "denials.csv", "content": content}
    return member_rpc.mutation("migrationFactory.planMigration", body)


def _migrations(services, client_id: int) -> int:
    with services.database.transaction() as db:
        return int(db.scalar(select(func.count()).select_from(Migration).where(Migration.client_id == client_id)))


@pytest.fixture
def owner(make_member):
    return make_member()


def test_a_60_kb_header_line_is_refused_naming_the_cap_and_nothing_is_stored(services, owner):
    key = f"MIG-{uuid.uuid4().hex[:8]}"
    content = _wide_header(60 * 1024) + "\n" + f"{key},Acme,10.00,100.00\n"
    r = _plan(owner.rpc, content)
    assert r.code == "BAD_REQUEST"
    assert "header line" in r.error["message"] and "MIGRATION_MAX_HEADER_CHARS" in r.error["message"]
    assert key not in r.error["message"]
    assert _migrations(services, owner.client_id) == 0


def test_the_same_attack_as_a_multipart_file_is_refused_too(owner):
    content = (_wide_header(60 * 1024) + "\nX-1,Acme,10.00,100.00\n").encode()
    r = owner.rpc.http.post(
        "/api/rpc/migrationFactory.planMigration",
        headers=owner.rpc.headers(),
        files={"file": ("export.csv", content, "text/csv")},
        data={"kind": "denials", "sourceSystem": "Legacy PM"},
    )
    assert r.status_code == 400, r.text
    assert "MIGRATION_MAX_HEADER_CHARS" in r.json()["error"]["message"]


def test_a_line_of_a_million_delimiters_is_refused_by_its_line_number(services, owner):
    content = f"{HEADER}\nX-1,Acme,10.00,100.00\n" + "," * 1_000_000 + "\n"
    r = _plan(owner.rpc, content)
    assert r.code == "BAD_REQUEST"
    assert "line 3 of 'file'" in r.error["message"] and "MIGRATION_MAX_LINE_CHARS" in r.error["message"]
    assert _migrations(services, owner.client_id) == 0


def test_a_wide_export_within_the_caps_is_planned_with_its_columns(owner):
    keys = [f"MIG-{uuid.uuid4().hex[:8]}-{i}" for i in range(3)]
    header = _wide_header(8_000)
    filler = "," * (header.count(",") - 3)
    content = header + "\n" + "".join(f"{key},Acme Health,10.00,100.00{filler}\n" for key in keys)
    planned = _plan(owner.rpc, content).data
    assert planned["state"] == "planned" and planned["rowCount"] == 3 and planned["counts"]["refused"] == 0
    assert planned["columns"] == {
        "claimKey": "Claim Number",
        "payer": "Payer",
        "deniedAmount": "Denied Amount",
        "billedAmount": "Billed Amount",
    }
    assert len(planned["ignoredColumns"]) == header.count(",") - 3


@pytest.mark.parametrize("delimiter", [";", "|", "\t"])
def test_other_delimiters_are_still_found(owner, delimiter):
    key = f"MIG-{uuid.uuid4().hex[:8]}"
    content = HEADER.replace(",", delimiter) + "\n" + delimiter.join([key, "Acme, Inc", "10.00", "100.00"]) + "\n"
    planned = _plan(owner.rpc, content).data
    assert planned["rowCount"] == 1 and planned["counts"]["refused"] == 0


def test_the_export_is_read_before_the_write_transaction():
    """The parse is planMigration's prepare step, run in a read session: SQLite's write lock is not held
    while a file is read (the mechanism: tests/integration/api/rpc/test_prepare_phase.py)."""
    from api.platform.migration_factory import procedures
    from api.rpc.procedure import rpc

    declared = rpc.procedures["migrationFactory.planMigration"]
    assert declared.prepare is procedures._read_export
    assert declared.max_body_setting == "migration_max_export_bytes"
