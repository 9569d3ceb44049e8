"""Cases open from confirmed remittances, over the real wire (hand-written 835s, expected numbers by hand).

- tests/fixtures/x12/hand/cases_denial.835 (payer HAND CASES PAYER, REF*2U HCS01, trace CSTRACE01,
  BPR02 170.00 on 2026-03-02): CSD-1 billed 200 paid 120 with CO-50 80 (a partial denial),
  CSD-2 CLP02=4 billed 100 paid 0 with CO-197 100, CSD-3 paid 50 in full with CO-97 0 (no denial).
- cases_denial_redelivered.835: the same remittance in a new envelope (ISA13 000000602).
- commercial_march.835 / commercial_april.835: OVT-1 partially denied CO-50 80, then reversed and
  corrected to 160 (recovered 80, not 160); RCP-1 reversed and re-denied CO-50 100; RVO-1 reversed with
  no new decision (70 taken back).
"""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

from api.denials.cases.intake import open_cases_for_batch
from api.denials.cases.models import DenialCase
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.integration.api.denials.conftest import by_claim, cases, confirm, post, upload
from tests.integration.api.money.ingestion.conftest import upload_json


def test_a_remittance_with_denials_opens_one_case_per_denied_claim(member):
    post(member.rpc, "cases_denial.835")
    found = by_claim(member.rpc)
    assert sorted(found) == ["CSD-1", "CSD-2"], "CO-97 of 0.00 is not denied money"
    partial = found["CSD-1"]
    assert (partial["eventKind"], partial["origin"], partial["state"]) == ("denial", "remittance", "open")
    assert (partial["payer"], partial["payerId"], partial["remittanceDate"]) == (
        "HAND CASES PAYER",
        "HCS01",
        "2026-03-02",
    )
    assert (partial["denialCategory"], partial["groupCode"], partial["carc"]) == ("medical_necessity", "CO", "50")
    assert (partial["hardOrSoft"], partial["preventable"], partial["claimStatusCode"]) == ("hard", "partly", "1")
    assert (partial["amountAtStake"], partial["paidBefore"], partial["billedAmount"]) == ("80.00", "120.00", "200.00")
    assert (partial["recoveredAmount"], partial["writtenOffAmount"]) == ("0.00", "0.00")
    denied = found["CSD-2"]
    assert (denied["denialCategory"], denied["carc"], denied["claimStatusCode"]) == ("authorization", "197", "4")
    assert (denied["amountAtStake"], denied["paidBefore"]) == ("100.00", "0.00")
    detail = member.rpc.query("cases.get", {"id": denied["id"]}).data
    assert [(e["kind"], e["toState"], e["actorUserId"]) for e in detail["events"]] == [("opened", "open", None)]


def test_the_same_remittance_again_opens_no_second_case(member, services):
    first = upload(member.rpc, "cases_denial.835")
    confirm(member.rpc, first["id"]).data
    again = upload(member.rpc, "cases_denial_redelivered.835")
    assert again["status"] == "duplicate_remittance"
    assert confirm(member.rpc, again["id"]).code == "PRECONDITION_FAILED"
    # A re-run of the listener over the posted batch (e.g. a replayed confirm) opens nothing either.
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        open_cases_for_batch(db, first["id"])
    assert len(cases(member.rpc)) == 2


def test_a_later_corrected_payment_recovers_the_increment_and_wins_the_case(member):
    post(member.rpc, "commercial_march.835")
    march = by_claim(member.rpc)
    assert sorted(march) == ["OVT-1"]
    assert (march["OVT-1"]["amountAtStake"], march["OVT-1"]["paidBefore"]) == ("80.00", "80.00")

    post(member.rpc, "commercial_april.835")
    april = by_claim(member.rpc)
    assert sorted(april) == ["OVT-1", "RCP-1", "RVO-1"]
    overturned = april["OVT-1"]
    assert (overturned["recoveredAmount"], overturned["state"]) == ("80.00", "won"), "160 paid - 80 before = 80"
    assert overturned["lastUpdateReason"] == (
        "payer paid 80.00 more on remittance of 2026-04-06; the whole amount at stake is recovered"
    )
    events = member.rpc.query("cases.get", {"id": overturned["id"]}).data["events"]
    assert [(e["kind"], e["fromState"], e["toState"], e["details"].get("delta")) for e in events] == [
        ("opened", None, "open", None),
        ("ledger_update", "open", "won", "80.00"),
    ]
    redenied = april["RCP-1"]
    assert (redenied["eventKind"], redenied["carc"], redenied["amountAtStake"], redenied["paidBefore"]) == (
        "denial",
        "50",
        "100.00",
        "0.00",
    )
    taken_back = april["RVO-1"]
    assert (taken_back["eventKind"], taken_back["amountAtStake"], taken_back["paidBefore"]) == (
        "recoupment",
        "70.00",
        "0.00",
    )
    assert taken_back["carc"] is None and taken_back["claimStatusCode"] == "22"


def test_concurrent_confirms_of_one_remittance_open_each_case_once(member, services, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writers; the race needs PostgreSQL")
    batches = [upload(member.rpc, n) for n in ("cases_denial.835", "cases_denial_redelivered.835")]
    assert [b["status"] for b in batches] == ["parsed", "parsed"]
    start = threading.Barrier(2)
    answers: dict[int, dict] = {}

    def run(batch_id: int) -> None:
        start.wait()
        answers[batch_id] = confirm(member.rpc, batch_id).data

    threads = [threading.Thread(target=run, args=(b["id"],)) for b in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a["batch"]["status"] for a in answers.values()) == ["confirmed", "duplicate_remittance"]
    assert sorted(c["claimKey"] for c in cases(member.rpc)) == ["CSD-1", "CSD-2"]
    # The same denial keys inserted by two racing transactions: the unique key keeps one row each.
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        keys = list(db.scalars(select(DenialCase.denial_key)))
    assert len(keys) == len(set(keys)) == 2


def test_concurrent_listener_runs_over_one_batch_open_each_case_once(member, services, database_url):
    """Two transactions running the intake over the same posted batch at once (a replay racing the
    confirm): INSERT ... ON CONFLICT DO NOTHING waits for the first and inserts nothing."""
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writers; the race needs PostgreSQL")
    batch = upload(member.rpc, "cases_denial.835")
    confirm(member.rpc, batch["id"]).data
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        for case in db.scalars(select(DenialCase)):
            db.delete(case)
    start = threading.Barrier(2)

    def run() -> None:
        with services.database.transaction() as db:
            set_scope(db, TenantScope(member.organization_id, member.client_id))
            start.wait()
            open_cases_for_batch(db, batch["id"])

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(c["claimKey"] for c in cases(member.rpc)) == ["CSD-1", "CSD-2"]


def test_a_member_of_another_client_cannot_see_or_move_the_case(member, make_member):
    post(member.rpc, "cases_denial.835")
    case_id = cases(member.rpc)[0]["id"]
    other = make_member(role="admin")
    assert other.rpc.query("cases.get", {"id": case_id}).code == "NOT_FOUND"
    assert cases(other.rpc) == []
    moved = other.rpc.mutation("cases.transition", {"id": case_id, "to": "triaged"})
    assert moved.code == "NOT_FOUND"
    # Naming this client with the other member's token is refused before any case is looked at.
    foreign = other.rpc.as_(other.token, member.client_id)
    assert foreign.query("cases.get", {"id": case_id}).code == "FORBIDDEN"
    assert member.rpc.query("cases.get", {"id": case_id}).data["case"]["state"] == "open"


def test_a_denials_export_opens_cases_and_the_same_denial_exported_again_opens_none(member):
    header = "patient_account_number,claim_id,payer_name,denial_date,group_code,carc,denied_amount\n"
    first = header + "CSV-1,PCN-CSV-1,Hand Csv Payer,2026-02-03,CO,16,45.00\n"
    second = first + "CSV-2,PCN-CSV-2,Hand Csv Payer,2026-02-04,CO,50,60.00\n"
    for n, text in enumerate((first, second)):
        batch = upload_json(member.rpc, text.encode(), f"denials-{n}.csv", "ingestion.uploadCsv").data["batch"]
        assert batch["kind"] == "csv_denials"
        confirm(member.rpc, batch["id"]).data
    found = by_claim(member.rpc)
    assert sorted(found) == ["CSV-1", "CSV-2"], "CSV-1's denial (same payer, date, payer claim number) once"
    assert (found["CSV-1"]["amountAtStake"], found["CSV-1"]["denialCategory"]) == ("45.00", "missing_information")
    assert (found["CSV-2"]["remittanceDate"], found["CSV-2"]["payerClaimNumber"]) == ("2026-02-04", "PCN-CSV-2")
