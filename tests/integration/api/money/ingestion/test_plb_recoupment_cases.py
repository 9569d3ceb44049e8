"""A claim-linked PLB recoupment (835 PLB WO / FB naming a claim in PLB03-2, X12 835 TR3) is money taken
back for that claim: it posts as a `recoupment` with the claim key and the case intake opens the claim's
recoupment case; interest (L6) opens nothing. Hand files (tests/fixtures/x12/hand/README.md), SQLite and
PostgreSQL; the expected numbers are written by hand."""

from __future__ import annotations

from tests.integration.api.denials.conftest import by_claim, post


def test_a_plb_wo_and_fb_open_the_claims_recoupment_cases(member):
    post(member.rpc, "plb_original.835")
    assert by_claim(member.rpc) == {}
    post(member.rpc, "plb_recoupment_wo_fb_l6.835")
    found = by_claim(member.rpc)
    # WO:PLB-1 250 (paid 250 before); FB:FBICNPLB2 30 names PLB-2 (paid 180 before) by its CLP07.
    assert sorted(found) == ["PLB-1", "PLB-2"]
    got = {k: (c["eventKind"], c["amountAtStake"], c["paidBefore"], c["payer"]) for k, c in found.items()}
    assert got == {
        "PLB-1": ("recoupment", "250.00", "250.00", "HAND PLB PAYER"),
        "PLB-2": ("recoupment", "30.00", "180.00", "HAND PLB PAYER"),
    }
    entries = member.rpc.query("ingestion.listFinancialEntries", {"entryType": "provider_adjustment"}).data["items"]
    assert [(e["claimKey"], e["carc"], e["amount"]) for e in entries] == [(None, "L6", "-12.50")]
