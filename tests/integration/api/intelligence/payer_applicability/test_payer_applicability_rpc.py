"""payerApplicability.forClaim over the real app, on SQLite and PostgreSQL. Dates counted by hand.

INST-1 (tests/fixtures/x12/hand/deadlines_institutional.837 + .835): Medicare Part A (SBR09 / CLP06 MA,
payer MCR01), an 837I with statement 2026-01-01..2026-01-20, denied in part on a remittance of 2026-03-02.
- redetermination (42 CFR 405.942): received 2026-03-02 + 5 = 03-07; + 120 days: Mar 24, Apr 54, May 85,
  Jun 115, +5 = Sunday 2026-07-05 -> Monday 2026-07-06 (rolled to a business day);
- timely filing (42 CFR 424.44(b): an institutional claim's through date): 2026-01-20 + 365 = 2027-01-20.
"""

from __future__ import annotations

import pytest

from tests.integration.api.denials.claims.conftest import claim_body
from tests.integration.api.denials.conftest import HAND, confirm, post
from tests.integration.api.money.ingestion.conftest import upload_json
from tests.support.tenancy import join

AS_OF = "2026-03-10"


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _claim_id(rpc, claim_key: str) -> int:
    items = rpc.query("claims.list", {"claimKey": claim_key}).data["items"]
    assert len(items) == 1
    return int(items[0]["id"])


def _institutional(member) -> int:
    claims = upload_json(
        member.rpc, (HAND / "deadlines_institutional.837").read_bytes(), "inst.837", "ingestion.uploadUniversal"
    ).data["batch"]
    assert confirm(member.rpc, claims["id"]).data
    post(member.rpc, "deadlines_institutional.835")
    return _claim_id(member.rpc, "INST-1")


def _for_claim(rpc, claim_id: int, as_of: str = AS_OF):
    return rpc.query("payerApplicability.forClaim", {"claimId": claim_id, "asOf": as_of})


def test_a_denied_claim_gets_the_limits_its_deadlines_use_and_its_payers_facts(member, services):
    claim_id = _institutional(member)
    address = {
        "payerKey": "mcr01",
        "kind": "appeal_address",
        "value": "Hand Medicare Contractor\nRedeterminations\nPO Box 1000",
        "source": "https://contractor.example/appeals (read 2026-01-10)",
        "effectiveFrom": "2026-01-01",
    }
    assert member.rpc.mutation("payerKnowledge.upsertFact", address).status == 200
    later = {**address, "value": "PO Box 2000", "effectiveFrom": "2026-04-01"}
    assert member.rpc.mutation("payerKnowledge.upsertFact", later).status == 200
    out = _for_claim(member.rpc, claim_id).data
    facts = out["facts"]
    assert facts["caseId"] is not None
    assert (facts["payerType"], facts["payerClass"], facts["filingIndicator"], facts["assumed"]) == (
        "medicare",
        "medicare",
        "MA",
        False,
    )
    assert (facts["payerId"], facts["noticeDate"], facts["serviceDate"]) == ("MCR01", "2026-03-02", "2026-01-20")
    appeal, filing = out["rules"]
    assert (appeal["kind"], appeal["limit"]["level"], appeal["limit"]["dueOn"]) == (
        "appeal_limit",
        "redetermination",
        "2026-07-06",
    )
    # 2026-03-10 -> 2026-07-06: Mar 21, Apr 30, May 31, Jun 30, Jul 6 = 118
    assert appeal["limit"]["daysLeft"] == 118
    assert appeal["scope"] == {
        "origin": "platform",
        "breadth": "type_wide",
        "payerType": "medicare",
        "payerId": "*",
    }
    assert appeal["effectiveFrom"] is None and "405.942" in appeal["source"]
    assert {"fact": "notice_date", "value": "2026-03-02"} in appeal["selectedBy"]
    assert {"fact": "filing_indicator", "value": "MA"} in appeal["selectedBy"]
    assert (filing["kind"], filing["limit"]["dueOn"]) == ("timely_filing_limit", "2027-01-20")
    assert {"fact": "service_date", "value": "2026-01-20"} in filing["selectedBy"]
    # the payer's facts in force on 2026-03-10: the first address (the second starts 2026-04-01)
    assert [(f["kind"], f["value"]) for f in out["payerFacts"]] == [("appeal_address", address["value"])]
    assert [f["value"] for f in _for_claim(member.rpc, claim_id, "2026-04-01").data["payerFacts"]] == ["PO Box 2000"]
    # the same limits as payerRules.evaluate answers for the case
    evaluated = member.rpc.query("payerRules.evaluate", {"caseId": facts["caseId"], "asOf": AS_OF}).data
    assert [(i["level"], i["dueOn"]) for i in evaluated["items"]] == [
        (r["limit"]["level"], r["limit"]["dueOn"]) for r in out["rules"]
    ]


def test_an_approved_client_rule_says_it_is_the_clients_and_payer_specific(member, services):
    claim_id = _institutional(member)
    rule = {
        "payerType": "medicare",
        "payerId": "MCR01",
        "level": "timely_filing",
        "days": 180,
        "effectiveFrom": "2026-01-01",
        "source": "Client policy 7",
    }
    change = member.rpc.mutation("payerRules.upsert", rule).data["change"]
    _uid, _e, _p, token = join(services, member.rpc, member.organization_id, "manager")
    approver = member.rpc.as_(token, member.client_id)
    decided = approver.mutation("payerRules.decide", {"id": change["id"], "decision": "approve", "reason": "ok"})
    assert decided.status == 200, decided.error
    filing = next(r for r in _for_claim(member.rpc, claim_id).data["rules"] if r["kind"] == "timely_filing_limit")
    # 2026-01-20 + 180: Jan 11, Feb 39, Mar 70, Apr 100, May 131, Jun 161, +19 = 2026-07-19 (no roll asked)
    assert filing["limit"]["dueOn"] == "2026-07-19"
    assert (filing["scope"]["origin"], filing["scope"]["breadth"], filing["scope"]["payerId"]) == (
        "client",
        "payer_specific",
        "MCR01",
    )
    assert (filing["effectiveFrom"], filing["source"]) == ("2026-01-01", "Client policy 7")
    assert {"fact": "payer_id", "value": "MCR01"} in filing["selectedBy"]


def test_a_claim_without_a_denial_gets_its_timely_filing_only(member):
    # claim_body: filing indicator CI (commercial), payer ACME1, statement from 2025-03-01; commercial's
    # contract default of 90 days: 2025-03-01 + 90 = Mar 30, Apr 60, May +30 = 2025-05-30 (a Friday)
    created = member.rpc.mutation("claims.create", claim_body("APPL-1")).data
    out = _for_claim(member.rpc, created["id"], "2025-04-01").data
    assert out["facts"]["caseId"] is None and out["facts"]["noticeDate"] is None
    assert (out["facts"]["payerType"], out["facts"]["payerClass"]) == ("commercial", "commercial")
    assert [(r["kind"], r["limit"]["dueOn"]) for r in out["rules"]] == [("timely_filing_limit", "2025-05-30")]
    assert out["payerFacts"] == []


def test_another_clients_claim_is_not_found_and_the_input_is_bounded(member, make_member):
    created = member.rpc.mutation("claims.create", claim_body("APPL-2")).data
    other = make_member(role="admin")
    assert _for_claim(other.rpc, created["id"]).code == "NOT_FOUND"
    assert _for_claim(member.rpc, 10**15).code == "NOT_FOUND"
    assert member.rpc.query("payerApplicability.forClaim", {"claimId": 0}).code == "BAD_REQUEST"
    assert member.rpc.query("payerApplicability.forClaim", {"claimId": 2**63}).code == "BAD_REQUEST"
    assert member.rpc.query("payerApplicability.forClaim", {"claimId": 1, "asOf": "2300-01-01"}).code == "BAD_REQUEST"
    assert member.rpc.query("payerApplicability.forClaim", {}).code == "BAD_REQUEST"
