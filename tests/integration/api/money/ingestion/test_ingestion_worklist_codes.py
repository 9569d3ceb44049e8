"""The hospital's own denial worklist over the real wire, on SQLite and PostgreSQL: upload, confirm and
the financial entries, numbers written by hand (tests/fixtures/csv/hand/denials_worklist_hand.csv).

Expected, row by row (group and CARC split from the Denial Code column; classification by the
reference seeds: CO-27 eligibility, PR-1 patient responsibility, CO-16 missing information, CO-197
authorization, CO-45 contractual, B7 credentialing under the default CO group):

    HW-1 CO 27  500.00  denial                  is_denial  eligibility
    HW-2 PR 1   120.00  patient_responsibility  -          patient_responsibility
    HW-3 CO 16   75.50  denial                  is_denial  missing_information  (RARC MA130)
    HW-4 CO 197 1000.00 denial                  is_denial  authorization
    HW-5 CO 45   40.00  adjustment              -          contractual
    HW-6 CO B7   60.00  denial                  is_denial  credentialing
    HW-7 XX-27  200.00  invalid (unknown group), excluded, not posted
"""

from __future__ import annotations

from decimal import Decimal

from tests.integration.api.money.ingestion.conftest import all_pages, expect_ok
from tests.support.paths import CSV_FIXTURES

NAME = "denials_worklist_hand.csv"


def test_the_worklist_posts_split_codes_and_never_a_patient_share_as_a_denial(member):
    content = (CSV_FIXTURES / "hand" / NAME).read_text()
    batch = member.rpc.mutation("ingestion.uploadCsv", {"filename": NAME, "content": content}).data["batch"]
    assert batch["kind"] == "csv_denials"
    assert (batch["rowCount"], batch["validCount"], batch["invalidCount"]) == (7, 6, 1)
    invalid = member.rpc.query("ingestion.listImportRows", {"batchId": batch["id"], "status": "invalid"}).data["items"]
    assert [(r["data"]["patient_account_number"], r["data"]["carc"], r["data"]["group_code"]) for r in invalid] == [
        ("HW-7", "XX-27", None)
    ]
    assert invalid[0]["errors"] == [
        "carc: 'XX-27' starts with the unknown group code 'XX' (expected one of CO, PR, OA, PI, CR)"
    ]
    valid = all_pages(member.rpc, "ingestion.listImportRows", {"batchId": batch["id"], "status": "valid"})
    deadlines = {r["data"]["patient_account_number"]: r["data"]["appeal_deadline"] for r in valid}
    assert deadlines == {
        "HW-1": "2026-08-29",
        "HW-2": "2026-08-29",
        "HW-3": "2026-08-30",
        "HW-4": None,
        "HW-5": "2026-09-01",
        "HW-6": "2026-09-01",
    }
    expect_ok(member.rpc.mutation("ingestion.setImportRowDecision", {"rowId": invalid[0]["id"], "decision": "exclude"}))
    expect_ok(member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}))

    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    got = {
        e["claimKey"]: (e["groupCode"], e["carc"], e["amount"], e["entryType"], e["isDenial"], e["denialCategory"])
        for e in entries
    }
    assert got == {
        "HW-1": ("CO", "27", "500.00", "denial", True, "eligibility"),
        "HW-2": ("PR", "1", "120.00", "patient_responsibility", False, "patient_responsibility"),
        "HW-3": ("CO", "16", "75.50", "denial", True, "missing_information"),
        "HW-4": ("CO", "197", "1000.00", "denial", True, "authorization"),
        "HW-5": ("CO", "45", "40.00", "adjustment", False, "contractual"),
        "HW-6": ("CO", "B7", "60.00", "denial", True, "credentialing"),
    }
    assert all(e["payer"] == "Hand Worklist Payer" and e["component"] == "denied" for e in entries)
    denied = sum((Decimal(e["amount"]) for e in entries if e["isDenial"]), Decimal("0"))
    assert denied == Decimal("1635.50"), "500 + 75.50 + 1000 + 60: neither the PR-1 120 nor the CO-45 40"
