"""Confirming batches: entries tie to the file to the cent; denials, reversals, repairs, exclusions."""

from __future__ import annotations

from decimal import Decimal

from tests.integration.api.money.ingestion.conftest import all_pages, expect_ok, money_sum, upload_json, x12_bytes

BALANCED = [
    "stupidedi_5010_multi_claims_dental_single_check.835",
    "stupidedi_5010_secondary_multi_triplet_cas_modifiers.835",
    "oopfactory_4010_reversals_denials_cr_bom_indented.835",
    "pyx12_4010_reversal_correction_plb.835",
]
# Every claim balances but the published BPR02 does not equal the claims minus PLB: held, posted with
# an acknowledgement (see tests/unit/pipelines/ingest/x12/test_x12_fixtures.py TRANSACTION_BALANCES).
HELD = {"oopfactory_4010_reversals_denials_cr_bom_indented.835", "pyx12_4010_reversal_correction_plb.835"}
ACK = {"reason": "published sample: BPR02 known not to tie to the claims"}


def _confirm(rpc, batch_id, **extra):
    return rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch_id, **extra})


def _confirm_acknowledged(rpc, batch_id):
    return _confirm(rpc, batch_id, acknowledgeImbalance=ACK)


def test_confirm_posts_entries_whose_totals_equal_the_file_to_the_cent(member):
    for name in BALANCED:  # distinct claim keys, so no file's reversals link to another file's entries
        batch = upload_json(member.rpc, x12_bytes(name), name).data["batch"]
        assert batch["status"] == ("held" if name in HELD else "parsed"), name
        confirmed = _confirm_acknowledged(member.rpc, batch["id"]).data
        assert confirmed["batch"]["status"] == "confirmed" and confirmed["batch"]["confirmedBy"] == member.user_id
        entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
        assert len(entries) == confirmed["entriesPosted"] > 0, name
        totals = batch["totals"]
        assert money_sum(entries, component="paid") == Decimal(totals["total_paid"]), name
        assert money_sum(entries, component="cas") == Decimal(totals["cas_total"]), name
        assert money_sum(entries, component="plb") == Decimal(totals["plb_total"]), name
        posted = sum((Decimal(v) for v in confirmed["postedTotals"].values()), Decimal("0"))
        assert posted == money_sum(entries), name
        again = _confirm(member.rpc, batch["id"])
        assert again.code == "PRECONDITION_FAILED" and "already confirmed" in again.error["message"]
        assert len(all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})) == len(entries)


def test_denied_claim_posts_denial_entries_with_its_cas_and_no_payment(member):
    batch = upload_json(member.rpc, x12_bytes("pyx12_5010_denial_cas_lq.835"), "d.835").data["batch"]
    expect_ok(_confirm(member.rpc, batch["id"]))
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    assert {e["entryType"] for e in entries} == {"denial"}
    assert all(e["claimStatusCode"] == "4" and e["claimKey"] == "2005555A" for e in entries)
    assert {(e["groupCode"], e["carc"]) for e in entries} == {("CO", "16"), ("OA", "A7")}
    assert money_sum(entries) == Decimal("915.39")
    co16 = [e for e in entries if e["carc"] == "16"]
    assert co16 and all(e["denialCategory"] and e["isDenial"] for e in co16)
    assert all("N14" in e["rarcs"] for e in co16)
    only_denials = member.rpc.query("ingestion.listFinancialEntries", {"entryType": "payment"}).data["items"]
    assert only_denials == []


def _original_of_first_reversed_claim() -> bytes:
    """The pyx12 file's first claim as the payer first paid it (CLP02=1, positive amounts, CO-45)."""
    text = x12_bytes("pyx12_4010_reversal_correction_plb.835").decode()
    segments = [s.strip() for s in text.split("~") if s.strip()]
    header = segments[: segments.index("LX*1") + 1]
    first_claim = segments[len(header) : len(header) + 7]
    trailer = [s for s in segments if s.startswith(("GE*", "IEA*"))]
    replaced = [
        s.replace("*22*-310*-210*", "*1*310*210*")
        .replace("*-310*-210*", "*310*210*")
        .replace("CAS*CR*45*-100", "CAS*CO*45*100")
        for s in first_claim
    ]
    # The first payment came with its own check: another trace number, or it would be the same remittance.
    header = [h.replace("TRN*1*0004926*", "TRN*1*0004925*") for h in header]
    body = header[2:] + replaced
    st_to_se = [header[2], *body[1:], f"SE*{len(body) + 1}*40731"]
    return ("~".join(header[:2] + st_to_se + trailer) + "~").encode()


def test_reversal_reverses_the_original_entries_and_the_correction_posts_normally(member):
    original = _original_of_first_reversed_claim()
    first = upload_json(member.rpc, original, "original.835").data["batch"]
    # The fragment keeps the file's BPR02 (5950.21) with one claim of it: held, acknowledged.
    assert first["status"] == "held", first
    expect_ok(_confirm_acknowledged(member.rpc, first["id"]))
    paid = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": first["id"]})
    by_component = {e["component"]: e for e in paid}
    assert Decimal(by_component["paid"]["amount"]) == Decimal("210.00")

    batch = upload_json(member.rpc, x12_bytes("pyx12_4010_reversal_correction_plb.835"), "rev.835").data["batch"]
    expect_ok(_confirm_acknowledged(member.rpc, batch["id"]))
    entries = all_pages(
        member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"], "claimKey": "123839-24635"}
    )
    reversals = [e for e in entries if e["entryType"] == "reversal"]
    assert {(e["component"], e["amount"]) for e in reversals} == {("paid", "-210.00"), ("cas", "-100.00")}
    assert {e["reversesEntryId"] for e in reversals} == {by_component["paid"]["id"], by_component["cas"]["id"]}
    correction = [e for e in entries if e["entryType"] != "reversal"]
    assert {(e["entryType"], e["amount"]) for e in correction} == {("payment", "200.00"), ("adjustment", "100.00")}
    # The second reversed claim was never posted here: it still posts (from the file's amounts), unlinked.
    other = member.rpc.query("ingestion.listFinancialEntries", {"claimKey": "134158-27488"}).data["items"]
    assert [(e["entryType"], e["amount"], e["reversesEntryId"]) for e in other] == [("reversal", "-500.25", None)]


PAYMENTS = (
    "Account Number,Payer,Check Number,Payment Date,Paid Amount,Adjustment Amount,Group Code,Reason Code\n"
    "A100,Aetna,CHK1,2024-01-05,120.00,30.00,CO,45\n"
    "A101,Aetna,CHK1,2024-01-05,12x.00,,,\n"
    "A102,Cigna,CHK2,,80.50,19.50,PR,1\n"
    'A103,Cigna,CHK2,01/09/2024,"1,000.25",,,\n'
)


def test_invalid_rows_block_confirm_until_repaired(member):
    batch = member.rpc.mutation("ingestion.uploadCsv", {"filename": "payments.csv", "content": PAYMENTS}).data["batch"]
    assert batch["kind"] == "csv_payments" and batch["status"] == "needs_review"
    assert (batch["rowCount"], batch["validCount"], batch["invalidCount"]) == (4, 2, 2)
    refused = _confirm(member.rpc, batch["id"])
    assert refused.code == "PRECONDITION_FAILED" and "2 invalid row(s)" in refused.error["message"]

    invalid = member.rpc.query("ingestion.listImportRows", {"batchId": batch["id"], "status": "invalid"}).data["items"]
    by_account = {r["data"]["patient_account_number"]: r for r in invalid}
    still_bad = member.rpc.mutation(
        "ingestion.repairImportRow", {"rowId": by_account["A101"]["id"], "fields": {"paid_amount": "12.3.4"}}
    ).data
    assert still_bad["status"] == "invalid" and any("paid_amount" in e for e in still_bad["errors"])
    fixed = member.rpc.mutation(
        "ingestion.repairImportRow", {"rowId": by_account["A101"]["id"], "fields": {"paid_amount": "$12.00"}}
    ).data
    assert fixed["status"] == "repaired" and fixed["data"]["paid_amount"] == "12.00" and fixed["errors"] == []
    unknown = member.rpc.mutation(
        "ingestion.repairImportRow", {"rowId": by_account["A102"]["id"], "fields": {"nope": "1"}}
    )
    assert unknown.code == "BAD_REQUEST" and "nope" in unknown.error["message"]
    expect_ok(
        member.rpc.mutation(
            "ingestion.repairImportRow", {"rowId": by_account["A102"]["id"], "fields": {"payment_date": "01/06/2024"}}
        )
    )
    assert member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data["status"] == "parsed"

    confirmed = _confirm(member.rpc, batch["id"]).data
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    assert money_sum(entries, entryType="payment") == Decimal("120.00") + Decimal("12.00") + Decimal("80.50") + Decimal(
        "1000.25"
    )
    assert {(e["entryType"], e["amount"]) for e in entries if e["component"] == "adjustment"} == {
        ("adjustment", "30.00"),
        ("patient_responsibility", "19.50"),
    }
    assert confirmed["entriesPosted"] == len(entries) == 6
    a102 = next(e for e in entries if e["claimKey"] == "A102" and e["entryType"] == "payment")
    assert a102["paymentDate"] == "2024-01-06"


def test_excluded_rows_are_not_posted(member):
    batch = member.rpc.mutation("ingestion.uploadCsv", {"filename": "p2.csv", "content": PAYMENTS}).data["batch"]
    invalid = member.rpc.query("ingestion.listImportRows", {"batchId": batch["id"], "status": "invalid"}).data["items"]
    for row in invalid:
        out = member.rpc.mutation("ingestion.setImportRowDecision", {"rowId": row["id"], "decision": "exclude"}).data
        assert out["decision"] == "exclude"
    current = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert current["status"] == "parsed" and current["excludedCount"] == 2
    expect_ok(_confirm(member.rpc, batch["id"]))
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    assert {e["claimKey"] for e in entries} == {"A100", "A103"}
    after = member.rpc.mutation("ingestion.setImportRowDecision", {"rowId": invalid[0]["id"], "decision": "include"})
    assert after.code == "PRECONDITION_FAILED"


def test_excluding_an_unbalanced_remittance_claim_excludes_its_adjustments(member):
    batch = upload_json(member.rpc, x12_bytes("oopfactory_5010_three_interchanges_masked.835"), "m.835").data["batch"]
    # Unbalanced claims (invalid rows too) and BPR02s that do not tie hold the batch; excluding the claims
    # leaves the transaction imbalance, so the confirm still acknowledges it.
    assert batch["status"] == "held" and batch["imbalance"]["claims"] and batch["imbalance"]["transactions"]
    invalid = all_pages(member.rpc, "ingestion.listImportRows", {"batchId": batch["id"], "status": "invalid"})
    assert invalid and all(r["entity"] == "remittance_claim" and "claim_balance" in r["errors"][0] for r in invalid)
    for row in invalid:
        expect_ok(member.rpc.mutation("ingestion.setImportRowDecision", {"rowId": row["id"], "decision": "exclude"}))
    assert member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data["status"] == "held"
    expect_ok(_confirm_acknowledged(member.rpc, batch["id"]))
    rows = all_pages(member.rpc, "ingestion.listImportRows", {"batchId": batch["id"], "decision": "include"})
    included_claims = {r["rowNumber"] for r in rows if r["entity"] == "remittance_claim"}
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    expected_paid = sum(
        (
            Decimal(r["data"]["paid_amount"])
            for r in rows
            if r["entity"] == "remittance_claim"
            and not (r["data"]["claim_status_code"] == "4" and Decimal(r["data"]["paid_amount"]) == 0)
        ),
        Decimal("0"),
    )
    expected_cas = sum(
        (
            Decimal(r["data"]["amount"])
            for r in rows
            if r["entity"] == "adjustment" and r["parentRowNumber"] in included_claims
        ),
        Decimal("0"),
    )
    assert money_sum(entries, component="paid") == expected_paid
    assert money_sum(entries, component="cas") == expected_cas


def test_review_entry_accept_and_flag_with_note(member):
    batch = upload_json(member.rpc, x12_bytes("pyx12_5010_denial_cas_lq.835"), "d.835").data["batch"]
    expect_ok(_confirm(member.rpc, batch["id"]))
    entry = member.rpc.query("ingestion.listFinancialEntries", {}).data["items"][0]
    flagged = member.rpc.mutation(
        "ingestion.reviewFinancialEntry", {"entryId": entry["id"], "reviewStatus": "flagged", "note": "check the CARC"}
    ).data
    assert flagged["reviewStatus"] == "flagged" and flagged["reviewNote"] == "check the CARC"
    listed = member.rpc.query("ingestion.listFinancialEntries", {"reviewStatus": "flagged"}).data["items"]
    assert [e["id"] for e in listed] == [entry["id"]]
    expect_ok(
        member.rpc.mutation("ingestion.reviewFinancialEntry", {"entryId": entry["id"], "reviewStatus": "accepted"})
    )
    analyst = member.rpc.query("ingestion.listFinancialEntries", {"dateFrom": "2099-01-01"}).data["items"]
    assert analyst == []
