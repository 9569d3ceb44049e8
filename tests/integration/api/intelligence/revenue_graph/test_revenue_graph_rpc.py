"""revenueGraph.forClaim over the real app, on SQLite and PostgreSQL. Amounts written by hand.

EPP-1 (tests/fixtures/x12/hand/revenue_graph_claim.837, billed 1,000.00 to HAND EPISODE PAYER), then
episode_partial_denial.835 and episode_partial_repaid.835:
- R1, 2026-03-02: CLP02=4, paid 0, CO-50 1,000.00: billed 1,000.00, denied 1,000.00 (no payment entry);
- R2, 2026-04-09: the reversal (CLP02=22, CLP03 -1,000.00, CO-50 -1,000.00): billed -1,000.00, denied
  -1,000.00 (it reverses R1's denial), paid 0;
- R3, 2026-04-09: the correction (CLP02=1) paid 700.00 with CO-50 300.00: billed 1,000.00, paid 700.00,
  denied 300.00.
Payer totals: billed 1,000 - 1,000 + 1,000 = 1,000.00 = paid 700.00 + denied (1,000 - 1,000 + 300) 300.00:
balanced. The case (opened by R1): at stake 1,000.00, 700.00 recovered by R3; moved to in_appeal and decided
partially_won for 100.00 (of the 300.00 left): recovered 800.00, open at stake 200.00, written off 0.
Nodes (8): claim, R1, R2, R3, R3's payment 700.00, the case, the outcome, its recovery 100.00.
Edges (11): claim -adjudicated-> R1, R2, R3; R1 -reversed_by-> R2; R2 -corrected_by-> R3; R3 -paid->
payment; R1 -opened-> case; R2, R3 -updated-> case; case -decided-> outcome; outcome -recovered-> recovery.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.integration.api.denials.conftest import HAND, confirm, post
from tests.integration.api.money.ingestion.conftest import upload_json

D = Decimal
PAYER = "HAND EPISODE PAYER"


@pytest.fixture
def member(make_member):
    return make_member(role="admin")


def _world(member) -> int:
    billed = upload_json(
        member.rpc, (HAND / "revenue_graph_claim.837").read_bytes(), "epp.837", "ingestion.uploadUniversal"
    ).data["batch"]
    assert confirm(member.rpc, billed["id"]).data
    post(member.rpc, "episode_partial_denial.835")
    post(member.rpc, "episode_partial_repaid.835")
    [case] = [c for c in member.rpc.query("cases.list", {}).data["items"] if c["claimKey"] == "EPP-1"]
    assert member.rpc.mutation("cases.transition", {"id": case["id"], "to": "in_appeal"}).status == 200
    decided = {
        "caseId": case["id"],
        "decision": "partially_won",
        "decidedOn": "2026-05-01",
        "amountRecovered": "100.00",
    }
    assert member.rpc.mutation("outcomes.record", decided).status == 200
    [claim] = member.rpc.query("claims.list", {"claimKey": "EPP-1"}).data["items"]
    return int(claim["id"])


def _amounts(node) -> dict[str, Decimal]:
    return {k: D(v) for k, v in node["amounts"].items()}


def test_the_claims_lineage_from_remittances_to_the_case_its_outcome_and_the_money(member):
    claim_id = _world(member)
    out = member.rpc.query("revenueGraph.forClaim", {"claimId": claim_id}).data
    assert (out["claimId"], out["claimKey"], out["truncated"]) == (claim_id, "EPP-1", False)
    kinds = [(n["kind"], n["label"]) for n in out["nodes"]]
    assert kinds == [
        ("claim", "adjudicated_partially_paid"),  # the correction paid 700, denied 300
        ("remittance", "adjudication"),
        ("remittance", "reversal"),
        ("remittance", "correction"),
        ("payment", "paid"),
        ("case", "denial"),
        ("outcome", "partially_won"),
        ("recovery", "recovered"),
    ], kinds
    claim, r1, r2, r3, payment, case, outcome, recovery = out["nodes"]
    assert _amounts(claim) == {"billed": D("1000.00")}
    zero = D("0.00")
    assert _amounts(r1) == {"billed": D("1000"), "paid": zero, "denied": D("1000"), "adjusted": zero,
                            "patient_responsibility": zero}  # fmt: skip
    assert _amounts(r2) == {"billed": D("-1000"), "paid": zero, "denied": D("-1000"), "adjusted": zero,
                            "patient_responsibility": zero}  # fmt: skip
    assert _amounts(r3) == {"billed": D("1000"), "paid": D("700"), "denied": D("300"), "adjusted": zero,
                            "patient_responsibility": zero}  # fmt: skip
    assert (r1["on"], r2["on"], r3["on"]) == ("2026-03-02", "2026-04-09", "2026-04-09")
    assert (r1["facts"]["payer"], r1["facts"]["status"], r3["facts"]["status"]) == (PAYER, "4", "1")
    assert _amounts(payment) == {"amount": D("700")}
    assert (case["state"], _amounts(case)) == (
        "partially_won",
        {"at_stake": D("1000"), "recovered": D("800"), "written_off": zero},
    )
    assert (outcome["on"], _amounts(outcome), _amounts(recovery)) == (
        "2026-05-01",
        {"recovered": D("100")},
        {"amount": D("100")},
    )
    assert [claim["depth"], r1["depth"], case["depth"], outcome["depth"], recovery["depth"]] == [0, 1, 2, 3, 4]
    name = {n["id"]: (n["kind"], n["label"]) for n in out["nodes"]}
    edges = sorted((name[e["source"]][1], e["kind"], name[e["target"]][1]) for e in out["edges"])
    assert edges == sorted(
        [
            ("adjudicated_partially_paid", "adjudicated", "adjudication"),
            ("adjudicated_partially_paid", "adjudicated", "reversal"),
            ("adjudicated_partially_paid", "adjudicated", "correction"),
            ("adjudication", "reversed_by", "reversal"),
            ("reversal", "corrected_by", "correction"),
            ("correction", "paid", "paid"),
            ("adjudication", "opened", "denial"),
            ("reversal", "updated", "denial"),
            ("correction", "updated", "denial"),
            ("denial", "decided", "partially_won"),
            ("partially_won", "recovered", "recovered"),
        ]
    )
    totals = out["totals"]
    [payer] = totals["payers"]
    assert payer["payer"] == PAYER and payer["remittances"] == 3 and payer["balanced"] is True
    money = ("billed", "paid", "denied", "adjusted", "patientResponsibility")
    assert [D(payer[k]) for k in money] == [D("1000"), D("700"), D("300"), zero, zero]
    figures = ("billed", "paid", "atStake", "recoveredByCases", "recoveredByOutcomes", "writtenOff", "openAtStake")
    assert [D(totals[k]) for k in figures] == [D("1000"), D("700"), D("1000"), D("800"), D("100"), zero, D("200")]
    assert totals["reconciles"] is True
    # the claim key reaches the same answer
    assert member.rpc.query("revenueGraph.forClaim", {"claimKey": "EPP-1"}).data == out


def test_the_graph_is_capped_and_says_so(member):
    claim_id = _world(member)
    out = member.rpc.query("revenueGraph.forClaim", {"claimId": claim_id, "maxNodes": 3}).data
    assert [n["kind"] for n in out["nodes"]] == ["claim", "remittance", "remittance"] and out["truncated"] is True
    assert {e["kind"] for e in out["edges"]} == {"adjudicated", "reversed_by"}
    assert D(out["totals"]["recoveredByCases"]) == D("800")  # totals count every record


def test_another_clients_claim_is_not_found_and_the_input_is_bounded(member, make_member):
    claim_id = _world(member)
    other = make_member(role="admin")
    assert other.rpc.query("revenueGraph.forClaim", {"claimId": claim_id}).code == "NOT_FOUND"
    assert other.rpc.query("revenueGraph.forClaim", {"claimKey": "EPP-1"}).code == "NOT_FOUND"
    assert member.rpc.query("revenueGraph.forClaim", {"claimId": 10**15}).code == "NOT_FOUND"
    for bad in (
        {},
        {"claimId": claim_id, "claimKey": "EPP-1"},
        {"claimId": 0},
        {"claimId": 2**63},
        {"claimKey": ""},
        {"claimKey": "K" * 81},
        {"claimId": claim_id, "maxNodes": 501},
        {"claimId": claim_id, "maxNodes": 0},
        {"claimId": claim_id, "maxNodes": 10**12},
    ):
        assert member.rpc.query("revenueGraph.forClaim", bad).code == "BAD_REQUEST", bad
