"""actionSelection.rank over the wire, on SQLite and PostgreSQL, on a case opened by hand (cases.open)."""

from __future__ import annotations

from tests.integration.api.denials.conftest import open_case


def test_rank_by_expected_value(make_member):
    rpc = make_member().rpc
    case = open_case(rpc, amount="1000.00")  # CARC 50: medical necessity, HAND MANUAL PAYER
    ranked = rpc.query("actionSelection.rank", {"caseId": case["id"]}).data
    assert (ranked["category"], ranked["amountAtStake"]) == ("medical_necessity", "1000.00")
    # A new client: no remittance history and no recorded decision, so the payer x category posterior is
    # the uniform Beta(1, 1): mean 0.5, 95% interval 0.025 to 0.975, on 0 observations.
    # EV = 0.5 x 1000 - hours x 40: payer call 500 - 20 = 480, peer-to-peer 500 - 40 = 460,
    # appeal 1: 500 - 60 = 440, appeal 2: 500 - 80 = 420, external review 500 - 120 = 380, write-off 0 - 4 = -4
    assert [(i["actionKey"], i["expectedValue"]) for i in ranked["items"]] == [
        ("payer-call", "480.00"),
        ("peer-to-peer", "460.00"),
        ("appeal-level-1", "440.00"),
        ("appeal-level-2", "420.00"),
        ("external-review", "380.00"),
        ("write-off", "-4.00"),
    ]
    appeal = ranked["items"][2]
    assert appeal["probability"]["mean"] == 0.5 and appeal["probability"]["sampleSize"] == 0
    assert round(appeal["probability"]["low"], 6) == 0.025 and round(appeal["probability"]["high"], 6) == 0.975
    # 0.025 x 1000 - 60 = -35, 0.975 x 1000 - 60 = 915
    assert (appeal["expectedValueLow"], appeal["expectedValueHigh"]) == ("-35.00", "915.00")
    assert (appeal["effortCost"], appeal["amount"]) == ("60.00", "1000.00")
    assert any("Beta-binomial posterior" in r for r in appeal["reasons"])


def test_a_clients_own_action_is_ranked(make_member):
    rpc = make_member().rpc
    case = open_case(rpc, amount="1000.00")
    own = {
        "key": "portal-resubmit",
        "label": "Portal",
        "kind": "payer_call",
        "effortHours": "0.25",
        "appliesTo": ["medical_necessity"],
    }
    rpc.mutation("actionTaxonomy.upsert", own)
    top = rpc.query("actionSelection.rank", {"caseId": case["id"]}).data["items"][0]
    assert (top["actionKey"], top["expectedValue"]) == ("portal-resubmit", "490.00")  # 500 - 0.25 x 40


def test_another_clients_case_is_not_found_and_bad_input_refused(make_member):
    a, b = make_member(), make_member()
    case = open_case(a.rpc)
    assert b.rpc.query("actionSelection.rank", {"caseId": case["id"]}).code == "NOT_FOUND"
    assert a.rpc.query("actionSelection.rank", {"caseId": 0}).code == "BAD_REQUEST"
    assert a.rpc.query("actionSelection.rank", {}).code == "BAD_REQUEST"
