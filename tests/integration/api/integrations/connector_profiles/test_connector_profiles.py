"""connectorProfiles.*: the built-in profiles, provisioning a client's own, and an upload read through it."""

from __future__ import annotations

import pytest


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def test_connector_profiles_list_provision_and_use_on_upload(member, make_member):
    builtin = member.rpc.query("connectorProfiles.list").data
    assert {"generic_payments", "epic_claims_export"} <= {p["name"] for p in builtin}
    profile = {
        "name": "acme_remits",
        "entity": "payment",
        "delimiter": "|",
        "column_map": {
            "Acct": "patient_account_number",
            "Paid": "paid_amount",
            "Paid On": "payment_date",
            "Chk": "check_number",
        },
    }
    made = member.rpc.mutation("connectorProfiles.provision", {"profile": profile}).data
    assert made["source"] == "client" and made["name"] == "acme_remits"
    dup = member.rpc.mutation("connectorProfiles.provision", {"profile": profile})
    assert dup.code == "CONFLICT"
    bad = member.rpc.mutation(
        "connectorProfiles.provision", {"profile": {"name": "X", "entity": "payment", "column_map": {}}}
    )
    assert bad.code == "BAD_REQUEST" and "name" in bad.error["message"] and "column_map" in bad.error["message"]
    listed = member.rpc.query("connectorProfiles.list").data
    assert "acme_remits" in {p["name"] for p in listed}
    other = make_member()
    assert "acme_remits" not in {p["name"] for p in other.rpc.query("connectorProfiles.list").data}

    text = "Acct|Paid|Paid On|Chk\nZ1|15.00|2024-02-01|T9\nZ2|5.25|2024-02-02|T9\n"
    batch = member.rpc.mutation(
        "ingestion.uploadCsv", {"filename": "acme.txt", "content": text, "profile": "acme_remits"}
    ).data["batch"]
    assert (
        batch["profileName"] == "acme_remits"
        and batch["status"] == "parsed"
        and batch["totals"]["total_paid"] == "20.25"
    )
    missing = member.rpc.mutation(
        "ingestion.uploadCsv", {"filename": "a.csv", "content": text + "\n", "profile": "nope"}
    )
    assert missing.code == "NOT_FOUND" and "acme_remits" in missing.error["message"]
    specialist = make_member(role="specialist")
    assert specialist.rpc.mutation("connectorProfiles.provision", {"profile": profile}).code == "FORBIDDEN"
