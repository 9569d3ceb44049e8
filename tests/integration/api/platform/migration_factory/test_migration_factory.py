"""migrationFactory.* over the wire, on SQLite and PostgreSQL: plan -> dry run -> commit creates exactly
what the dry run said, once, only while the data still gives the same plan, all or nothing; tenancy,
roles and malformed files."""

from __future__ import annotations

import base64
import uuid

import pytest
from sqlalchemy import func, select

from api.core.errors import Conflict
from api.denials.cases.models import CaseEvent, DenialCase
from api.denials.claims.models import Claim
from api.platform.migration_factory.models import Migration

HEADER = "Claim Number,Payer,Patient Name,Denied Amount,Billed Amount,Denial Date,Service Date,CARC,Group Code,Status"


def _keys(n: int) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"MIG-{tag}-{i}" for i in range(n)]


def _csv(*lines: str, header: str = HEADER) -> str:
    return "\n".join([header, *lines]) + "\n"


def _plan(member_rpc, content: str, kind: str = "denials"):
    body = {"kind": kind, "sourceSystem": "Legacy PM 4.2", "filename": "denials.csv", "content": content}
    return member_rpc.mutation("migrationFactory.planMigration", body)


def _count(services, model, client_id: int, **where) -> int:
    with services.database.transaction() as db:
        stmt = select(func.count()).select_from(model).where(model.client_id == client_id)
        for name, value in where.items():
            stmt = stmt.where(getattr(model, name) == value)
        return int(db.scalar(stmt) or 0)


def _claim(member_rpc, key: str, payer: str = "Acme Health") -> dict:
    body = {
        "claimKey": key,
        "payer": payer,
        "statementFrom": "2026-01-05",
        "statementTo": "2026-01-05",
        "lines": [{"procedureCode": "99213", "charge": "300.00", "serviceDateFrom": "2026-01-05"}],
    }
    return member_rpc.mutation("claims.create", body).data


@pytest.fixture
def owner(make_member):
    return make_member()


def test_plan_dry_run_commit_creates_exactly_what_the_dry_run_said(services, owner):
    new, known_claim, known_case, bad = _keys(4)
    _claim(owner.rpc, known_claim)
    _claim(owner.rpc, known_case)
    case = owner.rpc.mutation(
        "cases.open", {"claimKey": known_case, "payer": "Acme Health", "amountAtStake": "40.00"}
    ).data["case"]
    content = _csv(
        f"{new},Acme Health,Jane Roe,120.00,300.00,2026-02-10,2026-01-05,CO-50,,appealed",
        f"{known_claim},Acme Health,John Roe,80.00,300.00,02/11/2026,,16,CO,",
        f"{known_case},ACME HEALTH,Jim Roe,40.00,300.00,,2026-01-07,,,open",
        f"{bad},Acme Health,Jo Roe,-1.00,300.00,,,,,",
        f"{new},Acme Health,Jane Roe,120.00,300.00,,,,,",
    )
    planned = _plan(owner.rpc, content).data
    assert planned["state"] == "planned"
    assert planned["counts"]["refused"] == 2
    assert planned["ignoredColumns"] == ["Patient Name"]
    mid = planned["id"]

    run = owner.rpc.mutation("migrationFactory.runDryRun", {"id": mid}).data
    assert run["state"] == "dry_run" and run["planDigest"]
    assert {k: run["counts"][k] for k in ("created", "matched", "refused", "claimsCreated", "casesCreated")} == {
        "created": 2,
        "matched": 1,
        "refused": 2,
        "claimsCreated": 1,  # the new line's; the other two claims exist
        "casesCreated": 2,  # the new line's and the known claim's
    }
    detail = owner.rpc.query("migrationFactory.getMigration", {"id": mid}).data
    by_row = {r["rowNumber"]: r for r in detail["rows"]}
    assert by_row[3]["plan"]["claim"]["action"] == "match"
    assert by_row[4]["plan"]["case"] == {
        "action": "match",
        "id": case["id"],
        "state": "open",
        "updates": {"billedAmount": "300.00", "serviceDate": "2026-01-07"},
    }
    assert by_row[5]["refusals"] == [{"field": "deniedAmount", "reason": "is negative; amounts are 0.00 or more"}]
    assert by_row[6]["refusals"][0]["reason"] == "repeats the claim of row 2; one line per claim"
    assert "Jane Roe" not in str(detail)
    # the dry run wrote no claim and no case
    assert _count(services, Claim, owner.client_id, origin="migration") == 0
    assert _count(services, DenialCase, owner.client_id, origin="migration") == 0

    done = owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid}).data
    assert done["state"] == "committed" and done["committedByUserId"] == owner.user_id
    assert _count(services, Claim, owner.client_id, origin="migration") == run["counts"]["claimsCreated"]
    assert _count(services, DenialCase, owner.client_id, origin="migration") == run["counts"]["casesCreated"]

    rows = {r["rowNumber"]: r for r in owner.rpc.query("migrationFactory.getMigration", {"id": mid}).data["rows"]}
    detail = owner.rpc.query("cases.get", {"id": rows[2]["caseId"]}).data
    made = detail["case"]
    assert made["state"] == "in_appeal" and made["origin"] == "migration"
    assert made["carc"] == "50" and made["groupCode"] == "CO"
    opened = next(e for e in detail["events"] if e["kind"] == "opened")
    assert opened["details"]["migrationId"] == mid and opened["details"]["rowNumber"] == 2
    assert made["appealDueOn"] is not None  # the case_opened listeners scheduled its deadlines
    claim = owner.rpc.query("claims.get", {"id": rows[2]["claimId"]}).data
    assert claim["origin"] == "migration" and claim["state"] == "adjudicated_denied"
    assert f"migration {mid}" in claim["transitions"][0]["reason"]
    assert [link["targetId"] for link in claim["links"]] == [rows[2]["caseId"]]
    filled = owner.rpc.query("cases.get", {"id": case["id"]}).data["case"]
    assert filled["billedAmount"] == "300.00" and filled["serviceDate"] == "2026-01-07"
    assert rows[5]["claimId"] is None and rows[5]["caseId"] is None

    again = owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid})
    assert again.code == "PRECONDITION_FAILED" and "committed already" in again.error["message"]
    assert _count(services, Claim, owner.client_id, origin="migration") == 1


def _migrate(member_rpc, content: str) -> int:
    mid = _plan(member_rpc, content).data["id"]
    member_rpc.mutation("migrationFactory.runDryRun", {"id": mid})
    member_rpc.mutation("migrationFactory.commitMigration", {"id": mid})
    return mid


def test_a_claim_without_statement_dates_gets_them_from_a_later_line_and_nothing_else_changes(owner):
    (key,) = _keys(1)
    # A first migration's line without a service date makes a claim without statement dates ...
    first = _migrate(owner.rpc, _csv(f"{key},Acme Health,Jane Roe,80.00,300.00,2026-02-10,,CO-50,,"))
    claim_id = owner.rpc.query("migrationFactory.getMigration", {"id": first}).data["rows"][0]["claimId"]
    assert owner.rpc.query("claims.get", {"id": claim_id}).data["statementFrom"] is None
    # ... a later one fills the blanks only: the claim's payer stays (claims.service.fill_migrated sets them).
    second = _migrate(owner.rpc, _csv(f"{key},Other Payer,Jane Roe,80.00,300.00,2026-02-10,2026-01-09,CO-50,,"))
    rows = owner.rpc.query("migrationFactory.getMigration", {"id": second}).data["rows"]
    assert rows[0]["plan"]["claim"]["updates"] == {"statementFrom": "2026-01-09", "statementTo": "2026-01-09"}
    claim = owner.rpc.query("claims.get", {"id": claim_id}).data
    assert (claim["statementFrom"], claim["statementTo"], claim["payer"]) == ("2026-01-09", "2026-01-09", "Acme Health")


def test_commit_needs_a_dry_run(owner):
    (key,) = _keys(1)
    mid = _plan(owner.rpc, _csv(f"{key},Acme,,10.00,100.00,,,,,")).data["id"]
    r = owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid})
    assert r.code == "PRECONDITION_FAILED" and "runDryRun" in r.error["message"]


def test_commit_after_the_data_changed_is_refused_until_the_dry_run_is_run_again(services, owner):
    first, second = _keys(2)
    mid = _plan(owner.rpc, _csv(f"{first},Acme,,10.00,100.00,,,,,", f"{second},Acme,,10.00,100.00,,,,,")).data["id"]
    run = owner.rpc.mutation("migrationFactory.runDryRun", {"id": mid}).data
    assert run["counts"]["claimsCreated"] == 2
    _claim(owner.rpc, first)  # someone records the claim meanwhile

    r = owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid})
    assert r.code == "PRECONDITION_FAILED" and "run the dry run again" in r.error["message"]
    assert _count(services, Claim, owner.client_id, origin="migration") == 0

    rerun = owner.rpc.mutation("migrationFactory.runDryRun", {"id": mid}).data
    assert rerun["counts"]["claimsCreated"] == 1 and rerun["counts"]["claimsMatched"] == 1
    assert rerun["planDigest"] != run["planDigest"]
    owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid}).data
    assert _count(services, Claim, owner.client_id, origin="migration") == 1


def test_a_failure_while_committing_rolls_every_row_back(services, owner):
    ok_key, failing_key = _keys(2)
    mid = _plan(owner.rpc, _csv(f"{ok_key},Acme,,10.00,100.00,,,,,", f"{failing_key},Acme,,20.00,100.00,,,,,")).data[
        "id"
    ]
    owner.rpc.mutation("migrationFactory.runDryRun", {"id": mid}).data

    def fail_on_one_row(db, case_ids, /):
        keys = set(db.scalars(select(DenialCase.claim_key).where(DenialCase.id.in_(list(case_ids)))))
        if failing_key in keys:
            raise Conflict("planted failure on one row")

    services.case_opened.subscribe(fail_on_one_row)
    try:
        r = owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid})
    finally:
        services.case_opened.unsubscribe(fail_on_one_row)
    assert r.code == "CONFLICT"
    assert _count(services, Claim, owner.client_id, origin="migration") == 0
    assert _count(services, DenialCase, owner.client_id, origin="migration") == 0
    assert _count(services, CaseEvent, owner.client_id, kind="opened") == 0
    after = owner.rpc.query("migrationFactory.getMigration", {"id": mid}).data
    assert after["state"] == "dry_run" and all(row["claimId"] is None for row in after["rows"])

    owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid}).data  # nothing half-done blocks it
    assert _count(services, DenialCase, owner.client_id, origin="migration") == 2


def test_open_ar_creates_claims_with_their_open_balance(services, owner):
    key, paid = _keys(2)
    content = _csv(
        f"{key},Acme,500.00,2026-01-03,125.00,pending",
        f"{paid},Acme,500.00,2026-01-03,,paid",
        header="Account Number,Insurance,Total Charges,DOS,Balance Due,AR Status",
    )
    mid = _plan(owner.rpc, content, kind="open_ar").data["id"]
    run = owner.rpc.mutation("migrationFactory.runDryRun", {"id": mid}).data
    assert (run["counts"]["created"], run["counts"]["refused"]) == (1, 1)
    owner.rpc.mutation("migrationFactory.commitMigration", {"id": mid}).data
    (row,) = owner.rpc.query("migrationFactory.getMigration", {"id": mid, "outcome": "create"}).data["rows"]
    claim = owner.rpc.query("claims.get", {"id": row["claimId"]}).data
    assert claim["state"] == "submitted" and claim["totalCharge"] == "500.00"
    assert [(a["kind"], a["amount"], a["source"]) for a in claim["amounts"]] == [("expected", "125.00", "migration")]
    assert _count(services, DenialCase, owner.client_id) == 0


def test_list_and_row_pages(owner):
    keys = _keys(3)
    mid = _plan(owner.rpc, _csv(*(f"{k},Acme,,10.00,100.00,,,,," for k in keys))).data["id"]
    page = owner.rpc.query("migrationFactory.getMigration", {"id": mid, "rowsLimit": 2}).data
    assert [r["rowNumber"] for r in page["rows"]] == [2, 3] and page["nextRowsAfter"] == 3
    rest = owner.rpc.query("migrationFactory.getMigration", {"id": mid, "rowsAfter": 3}).data
    assert [r["rowNumber"] for r in rest["rows"]] == [4] and rest["nextRowsAfter"] is None
    listed = owner.rpc.query("migrationFactory.listMigrations", {"state": "planned"}).data
    assert [m["id"] for m in listed["items"]] == [mid] and listed["nextCursor"] is None
    assert owner.rpc.query("migrationFactory.listMigrations", {"kind": "open_ar"}).data["items"] == []


def test_another_clients_migration_is_not_found(make_member, owner):
    (key,) = _keys(1)
    mid = _plan(owner.rpc, _csv(f"{key},Acme,,10.00,100.00,,,,,")).data["id"]
    stranger = make_member()
    for kind, path in (
        ("query", "migrationFactory.getMigration"),
        ("mutation", "migrationFactory.runDryRun"),
        ("mutation", "migrationFactory.commitMigration"),
    ):
        assert stranger.rpc.call(kind, path, {"id": mid}).code == "NOT_FOUND"
    assert stranger.rpc.query("migrationFactory.listMigrations", {}).data["items"] == []


@pytest.mark.parametrize("role", ["analyst", "auditor", "specialist"])
def test_only_administrators_plan_run_and_commit(make_member, role):
    member = make_member(role=role)
    (key,) = _keys(1)
    assert _plan(member.rpc, _csv(f"{key},Acme,,10.00,100.00,,,,,")).code == "FORBIDDEN"
    assert member.rpc.mutation("migrationFactory.runDryRun", {"id": 1}).code == "FORBIDDEN"
    assert member.rpc.mutation("migrationFactory.commitMigration", {"id": 1}).code == "FORBIDDEN"


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"content": "Claim Number,Payer,Billed Amount\nX-1,Acme,10.00\n"}, "'deniedAmount'"),
        ({}, "exactly one of"),
        ({"content": HEADER + "\n"}, "no data line"),
        ({"contentBase64": base64.b64encode(b"\xff\xfe\x00\x01binary").decode()}, "UTF-8"),
        ({"contentBase64": "not base64!"}, "base64"),
    ],
)
def test_a_malformed_file_is_bad_request_and_stores_nothing(services, owner, given, says):
    body = {"kind": "denials", "sourceSystem": "Legacy PM", "filename": "x.csv", **given}
    r = owner.rpc.mutation("migrationFactory.planMigration", body)
    assert r.code == "BAD_REQUEST" and says in r.error["message"]
    assert _count(services, Migration, owner.client_id) == 0


def test_a_multipart_upload_is_read_too(owner):
    (key,) = _keys(1)
    content = _csv(f"{key},Acme,,10.00,100.00,,,,,").encode()
    r = owner.rpc.http.post(
        "/api/rpc/migrationFactory.planMigration",
        headers=owner.rpc.headers(),
        files={"file": ("export.csv", content, "text/csv")},
        data={"kind": "denials", "sourceSystem": "Legacy PM"},
    )
    assert r.status_code == 200, r.text
    got = r.json()["result"]["data"]
    assert got["filename"] == "export.csv" and got["rowCount"] == 1 and got["state"] == "planned"
