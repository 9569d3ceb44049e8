"""One case per claim x payer x denial episode, whatever the upload order or source (issue 24), over the
real wire: upload -> confirm -> cases -> humanAttention.queue. Hand-written files, numbers by hand.

Payer HAND EPISODE PAYER, REF*2U HEP01, CLP06 12 (commercial); tests/fixtures/x12/hand/README.md lists them:
- episode_denial.835: EPI-1 billed 1,000 denied CLP02=4 CO-50 1,000 (2026-03-02); episode_denial_twice.835
  holds that same remittance twice (two envelopes, ISA13 702 and 703).
- episode_denial_and_overturn.835: EPO-1 denied CO-16 300 (2026-03-02), then reversed and paid 300 (2026-04-06).
- episode_late_denial.835 / episode_late_overturn.835: EPL-1 denied CO-50 500 (2026-03-02) / reversed and paid
  500 (2026-05-04); the overturn is uploaded first.
- episode_partial_denial.835 / episode_partial_repaid.835: EPP-1 billed 1,000 denied CO-50 1,000 (2026-03-02),
  then reversed and paid 700 with CO-50 300 (2026-04-09).
- episode_csv_claim.835 + tests/fixtures/csv/hand/episode_denials_worklist.csv: EPC-1 denied CO-16 250 in the
  835 and in the hospital's worklist ("Hand Episode Payer"); EPM-1 only in the CSV ("Federal Medicare Contractor", 90).
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from api.denials.cases.lifecycle import WORKING_STATES
from api.denials.cases.models import DenialCase
from api.denials.human_attention.service import rescore
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.integration.api.denials.conftest import by_claim, cases, confirm, post, upload
from tests.integration.api.money.ingestion.conftest import upload_json
from tests.support.paths import TESTS_DIR
from tests.support.rpc_client import collect_pages


def _queue(member, services) -> list[str]:
    """The worklist's claims. The hand files are dated 2026-03..05, so their appeal windows have passed
    by the time the suite runs and the queue (which leaves out cases past their deadline) would be
    empty: the working cases' deadlines are put 30 days ahead and rescored first. What is checked is
    which cases the queue holds (no paid claim), not their deadlines."""
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        ahead = datetime.now(UTC).date() + timedelta(days=30)
        for case in db.scalars(select(DenialCase).where(DenialCase.state.in_(sorted(WORKING_STATES)))):
            case.appeal_due_on = ahead
        db.flush()
        rescore(db)
    claim_of = {c["id"]: c["claimKey"] for c in cases(member.rpc)}
    return [claim_of[c["caseId"]] for c in collect_pages(member.rpc, "humanAttention.queue", {})]


def _post_csv(member, name: str) -> None:
    data = (TESTS_DIR / "fixtures" / "csv" / "hand" / name).read_bytes()
    batch = upload_json(member.rpc, data, name, "ingestion.uploadCsv").data["batch"]
    assert batch["kind"] == "csv_denials"
    confirm(member.rpc, batch["id"]).data


def _money(case) -> tuple[str, str, str, str]:
    return (case["amountAtStake"], case["paidBefore"], case["recoveredAmount"], case["state"])


def test_the_same_remittance_twice_in_one_file_and_across_uploads_opens_one_case(member, services):
    post(member.rpc, "episode_denial_twice.835")
    assert _money(by_claim(member.rpc)["EPI-1"]) == ("1000.00", "0.00", "0.00", "open")
    again = upload(member.rpc, "episode_denial.835")
    assert again["status"] == "duplicate_remittance"
    assert [c["claimKey"] for c in cases(member.rpc)] == ["EPI-1"]
    assert _queue(member, services) == ["EPI-1"]


def test_a_denial_and_its_overturn_in_one_file_is_one_won_case_out_of_the_queue(member, services):
    post(member.rpc, "episode_denial_and_overturn.835")
    found = by_claim(member.rpc)
    assert sorted(found) == ["EPO-1"]
    assert _money(found["EPO-1"]) == ("300.00", "0.00", "300.00", "won")
    assert (found["EPO-1"]["carc"], found["EPO-1"]["remittanceDate"]) == ("16", "2026-03-02")
    assert _queue(member, services) == []


def test_a_later_overturn_uploaded_before_the_denial_still_wins_the_case(member, services):
    post(member.rpc, "episode_late_overturn.835")
    assert cases(member.rpc) == [], "a reversal and its paid correction deny nothing"
    post(member.rpc, "episode_late_denial.835")
    found = by_claim(member.rpc)
    assert _money(found["EPL-1"]) == ("500.00", "0.00", "500.00", "won"), "the payer's order, not the upload's"
    assert _queue(member, services) == []


def test_a_partial_win_updates_the_same_case_and_keeps_it_working(member, services):
    post(member.rpc, "episode_partial_denial.835")
    post(member.rpc, "episode_partial_repaid.835")
    found = by_claim(member.rpc)
    assert sorted(found) == ["EPP-1"], "the CO-50 300 of the repayment is the same episode"
    assert _money(found["EPP-1"]) == ("1000.00", "0.00", "700.00", "open")
    assert found["EPP-1"]["lastUpdateReason"] == (
        "payer paid 700.00 more on remittance of 2026-04-09; 700.00 of 1000.00 recovered, the case stays open"
    )
    assert _queue(member, services) == ["EPP-1"]


def test_the_hospitals_csv_after_its_835_joins_the_835s_case(member, services):
    post(member.rpc, "episode_csv_claim.835")
    _post_csv(member, "episode_denials_worklist.csv")
    found = by_claim(member.rpc)
    assert sorted(found) == ["EPC-1", "EPM-1"]
    joined = found["EPC-1"]
    assert _money(joined) == ("250.00", "0.00", "0.00", "open")
    assert (joined["payer"], joined["payerId"], joined["payerClass"]) == ("HAND EPISODE PAYER", "HEP01", "commercial")
    only_csv = found["EPM-1"]
    assert (only_csv["amountAtStake"], only_csv["payerClass"]) == ("90.00", "medicare"), "class from the payer's name"
    assert sorted(_queue(member, services)) == ["EPC-1", "EPM-1"]


def test_the_hospitals_csv_before_its_835_is_adopted_by_the_835(member, services):
    _post_csv(member, "episode_denials_worklist.csv")
    first = by_claim(member.rpc)["EPC-1"]
    assert (first["amountAtStake"], first["payer"], first["payerClass"]) == ("250.00", "Hand Episode Payer", None)
    post(member.rpc, "episode_csv_claim.835")
    found = by_claim(member.rpc)
    assert sorted(found) == ["EPC-1", "EPM-1"]
    adopted = found["EPC-1"]
    assert adopted["id"] == first["id"], "the CSV's case is the 835's case"
    assert _money(adopted) == ("250.00", "0.00", "0.00", "open")
    assert (adopted["payer"], adopted["payerId"], adopted["payerClass"]) == (
        "HAND EPISODE PAYER",
        "HEP01",
        "commercial",
    )
    assert (adopted["claimStatusCode"], adopted["payerClaimNumber"]) == ("4", "PCN-EPC-1"), "the 835's decision"


def test_the_csv_and_its_835_confirmed_at_once_open_one_case(member, services, database_url):
    """The CSV names the payer "Hand Episode Payer", the 835 "HEP01": their keys differ until the 835's
    history is read, so only the per-client intake lock keeps two racing confirms to one case."""
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writers; the race needs PostgreSQL")
    era = upload(member.rpc, "episode_csv_claim.835")
    data = (TESTS_DIR / "fixtures" / "csv" / "hand" / "episode_denials_worklist.csv").read_bytes()
    csv = upload_json(member.rpc, data, "episode_denials_worklist.csv", "ingestion.uploadCsv").data["batch"]
    start = threading.Barrier(2)

    def run(batch_id: int) -> None:
        start.wait()
        confirm(member.rpc, batch_id).data

    threads = [threading.Thread(target=run, args=(b["id"],)) for b in (era, csv)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    found = by_claim(member.rpc)
    assert sorted(found) == ["EPC-1", "EPM-1"]
    assert (found["EPC-1"]["payerId"], found["EPC-1"]["amountAtStake"]) == ("HEP01", "250.00")


def test_a_csv_denial_the_835_contradicts_leaves_the_working_states_with_a_reason(member, services):
    """contradicted_denials_worklist.csv: EPX-1 denied CO-16 180.00 by "Hand Episode Payer" (2026-03-02), a case
    from the hospital's worklist. episode_contradicted.835: the payer's own remittance (HEP01, 2026-03-09)
    paid EPX-1 150.00 with CO-45 30.00 (contractual, not a denial): the payer denied nothing, so the
    worklist's case is no denial and leaves the working states (closed, with no decision: neither won nor
    lost, nothing recovered, nothing written off), named by the 835's payer; the worklist is empty."""
    _post_csv(member, "contradicted_denials_worklist.csv")
    first = by_claim(member.rpc)["EPX-1"]
    assert _money(first) == ("180.00", "0.00", "0.00", "open")
    post(member.rpc, "episode_contradicted.835")
    found = by_claim(member.rpc)
    assert sorted(found) == ["EPX-1"], "a paid claim opens nothing"
    contradicted = found["EPX-1"]
    assert contradicted["id"] == first["id"]
    assert _money(contradicted) == ("180.00", "0.00", "0.00", "closed")
    assert contradicted["writtenOffAmount"] == "0.00"
    assert (contradicted["payer"], contradicted["payerId"]) == ("HAND EPISODE PAYER", "HEP01")
    assert contradicted["lastUpdateReason"] == (
        "the payer's remittance of 2026-03-09 denies nothing on this claim (paid 150.00): "
        "the worklist's denial of 180.00 is not the payer's"
    )
    assert _queue(member, services) == []


def _migrate(member, name: str) -> dict:
    """Plan, dry-run and commit a legacy system's denial list (migrationFactory.*) over the wire."""
    content = (TESTS_DIR / "fixtures" / "csv" / "hand" / name).read_text()
    body = {"kind": "denials", "sourceSystem": "Legacy PM 4.2", "filename": name, "content": content}
    planned = member.rpc.mutation("migrationFactory.planMigration", body).data
    member.rpc.mutation("migrationFactory.runDryRun", {"id": planned["id"]}).data
    done = member.rpc.mutation("migrationFactory.commitMigration", {"id": planned["id"]}).data
    assert done["state"] == "committed"
    return done


def test_a_migrated_case_is_adopted_by_the_835_and_won_by_its_overturn(member, services):
    """episode_migration_denials.csv: the legacy system's EPL-1, "Hand Episode Payer", denied CO-50 500.00 of
    500.00 (2026-03-02), already appealed: a migration-origin case in_appeal. episode_late_denial.835 (HEP01,
    2026-03-02) is that denial, CO-50 500.00: the intake adopts the migrated case (same id, origin kept,
    still in_appeal, named by the 835's payer and decision) and opens no second one.
    episode_late_overturn.835 (2026-05-04): reversed and paid 500.00: recovered 500.00 of 500.00, won."""
    _migrate(member, "episode_migration_denials.csv")
    migrated = by_claim(member.rpc)["EPL-1"]
    assert (migrated["origin"], migrated["payer"], migrated["payerId"]) == ("migration", "Hand Episode Payer", None)
    assert _money(migrated) == ("500.00", "0.00", "0.00", "in_appeal")
    post(member.rpc, "episode_late_denial.835")
    found = by_claim(member.rpc)
    assert sorted(found) == ["EPL-1"], "the 835's denial is the migrated case"
    adopted = found["EPL-1"]
    assert (adopted["id"], adopted["origin"]) == (migrated["id"], "migration")
    assert _money(adopted) == ("500.00", "0.00", "0.00", "in_appeal")
    assert (adopted["payer"], adopted["payerId"], adopted["payerClass"]) == (
        "HAND EPISODE PAYER",
        "HEP01",
        "commercial",
    )
    assert (adopted["claimStatusCode"], adopted["carc"], adopted["remittanceDate"]) == ("4", "50", "2026-03-02")
    post(member.rpc, "episode_late_overturn.835")
    won = by_claim(member.rpc)["EPL-1"]
    assert won["id"] == migrated["id"]
    assert _money(won) == ("500.00", "0.00", "500.00", "won")
    assert _queue(member, services) == []
