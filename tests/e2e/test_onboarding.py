"""A hospital onboarded from its request to live automation, on a running server (issue: onboarding).

Over HTTP to a uvicorn process of its own: the platform administrator creates the organization (its
founder) and invites an admin, who submits an onboarding request; they cannot decide it, and neither can
a second account they invited themselves (issue 23: a person invited by the requester is not independent);
the founder reviews, approves and provisions it. The provisioned user reads the invitation in the mail the
server sent (never in an answer), accepts it, signs in to the new client, cannot reach the organization's
other client (issue 23: the membership reaches the new hospital only), uploads the hospital's claims
export through the connector profile provisioning gave the client and sees the import batch. Automation
stays off (an automatic autonomy policy and resuming automation are refused, naming the gates) until every
activation gate has passed, then it turns on.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.live_member import Member, founder_of_new_organization, invited, join_by_invite

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GATES = ("data_validated", "payer_rules_reviewed", "users_trained", "integrations_tested", "pipeline_dry_run_clean")
AUTO_POLICY = {
    "task": "classify_denial",
    "mode": "auto_below_threshold",
    "minConfidence": 0.8,
    "maxAmountAtStake": "2500.00",
    "minEvaluationAccuracy": 0.0,
    "minEvaluatedSamples": 0,
    "reason": "go-live of automatic classification",
}
# The hospital's own export, in Epic's column names (the built-in profile the onboarding copies).
EPIC_EXPORT = (
    b"HAR,Payor,Service From,Total Charges,Principal Dx\n"
    b'H-1001,Medicare,01/31/2026,"$2,000.00",I10\n'
    b"H-1002,Aetna,02/02/2026,$450.00,E11.9\n"
)


@pytest.fixture(scope="module")
def team(private_live_server) -> Any:
    """An admin the founder invited (who submits), the founder (who reviews), and the submitter's own
    second account (an admin the submitter invited)."""
    server = private_live_server
    with httpx.Client(base_url=server.base_url, timeout=120.0) as http:
        reviewer = founder_of_new_organization(http, server, f"Onboarding Health {server.backend}", "Head Office")
        submitter = invited(reviewer, server, "submitter@example.test", "admin")
        puppet = invited(submitter, server, "submitter-again@example.test", "admin")
        yield http, server, submitter, reviewer, puppet


def test_a_hospital_goes_from_request_to_live_automation(team):
    http, server, submitter, reviewer, puppet = team
    request = submitter.mutation(
        "hospitalOnboarding.submitRequest",
        {
            "hospitalName": "Riverside Community Hospital",
            "legal": {"legalName": "Riverside Community Hospital Inc.", "taxId": "12-3456789", "address": "1 River Rd"},
            "contactEmail": "cfo@riverside.example",
            "expectedVolumes": {"monthlyClaims": 4000, "monthlyRemittanceFiles": 40, "monthlyDenials": 400},
            "payers": ["Medicare", "Aetna"],
            "requestedUsers": [{"email": "specialist@riverside.example", "role": "specialist"}],
            "connectorKinds": ["era_835", "claims_export"],
            "retentionYears": 10,
        },
    )
    assert request["state"] == "submitted"
    reviewer.mutation("hospitalOnboarding.openReview", {"id": request["id"]})
    submitter.refused(
        "hospitalOnboarding.decide", {"id": request["id"], "decision": "approved", "reason": "mine"}, "FORBIDDEN"
    )
    refusal = puppet.refused(
        "hospitalOnboarding.decide", {"id": request["id"], "decision": "approved", "reason": "looks fine"}, "FORBIDDEN"
    )
    assert "invited by this request's submitter" in refusal and "someone independent" in refusal
    decided = reviewer.mutation(
        "hospitalOnboarding.decide", {"id": request["id"], "decision": "approved", "reason": "contract signed"}
    )
    assert decided["state"] == "approved"
    provisioned = reviewer.mutation("hospitalOnboarding.provision", {"id": request["id"]})
    client_id = provisioned["clientId"]
    assert provisioned["request"]["state"] == "provisioned"
    assert provisioned["automationEnabled"] is False
    invite = next(i for i in provisioned["invitations"] if i["email"] == "specialist@riverside.example")
    assert invite["clientIds"] == [client_id] and "inviteToken" not in invite

    # the hospital's user reads the mail, signs in to the new client (and only that one) and uploads its
    # export through its own profile
    specialist = join_by_invite(http, server.invite_token(invite["email"]), invite["email"], client_id)
    assert [c["id"] for c in specialist.query("organizations.listClients")] == [client_id]
    head_office = Member(http, specialist.headers["Authorization"].removeprefix("Bearer "), submitter.client_id)
    assert head_office.call("query", "cases.list", {}).json()["error"]["data"]["code"] == "FORBIDDEN"
    profiles = {p["name"] for p in specialist.query("connectorProfiles.list") if p["source"] == "client"}
    assert "onboarding_claims_export" in profiles
    upload = http.post(
        "/api/rpc/ingestion.uploadCsv",
        data={"profile": "onboarding_claims_export"},
        files={"file": ("riverside_claims.csv", EPIC_EXPORT, "text/csv")},
        headers=specialist.headers,
    )
    assert upload.status_code == 200, upload.text
    batch = upload.json()["result"]["data"]["batch"]
    assert batch["status"] == "parsed", batch
    listed = specialist.query("ingestion.listImportBatches", {"limit": 10})["items"]
    assert [b["id"] for b in listed] == [batch["id"]]
    events = [
        e["toState"] for e in reviewer.query("hospitalOnboarding.lifecycleEvents", {"id": request["id"]})["items"]
    ]
    assert events == ["provisioned", "approved", "in_review", "submitted"]  # newest first

    # automation stays off until every activation gate of the new client has passed
    admin = Member(http, reviewer.headers["Authorization"].removeprefix("Bearer "), client_id)
    message = admin.refused("aiPlatform.recordAutonomyPolicy", AUTO_POLICY, "PRECONDITION_FAILED")
    assert all(gate in message for gate in GATES)
    for gate in GATES[:-1]:
        admin.mutation("activationGovernance.recordGate", {"gate": gate, "passed": True, "evidence": "signed off"})
    assert admin.query("activationGovernance.status")["blockers"] == [GATES[-1]]
    message = admin.refused("aiPlatform.recordAutonomyPolicy", AUTO_POLICY, "PRECONDITION_FAILED")
    assert GATES[-1] in message and GATES[0] not in message
    admin.mutation("activationGovernance.recordGate", {"gate": GATES[-1], "passed": True, "evidence": "run 12 clean"})
    assert admin.query("activationGovernance.status")["ready"] is True
    policy = admin.mutation("aiPlatform.recordAutonomyPolicy", AUTO_POLICY)
    assert policy["mode"] == "auto_below_threshold"
