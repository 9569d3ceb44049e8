"""actionDecisionSupport.recommend over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

from tests.integration.api.denials.conftest import open_case


def test_the_ranking_then_a_managers_strategy_wins(make_member):
    member = make_member()  # the organization's admin holds the manager-level 'approve' permission
    case = open_case(member.rpc, amount="1000.00")
    first = member.rpc.query("actionDecisionSupport.recommend", {"caseId": case["id"]}).data
    assert first["basis"] == "ranking" and first["strategy"] is None
    # payer call 0.5 x 1000 - 20 = 480 over peer-to-peer 0.5 x 1000 - 40 = 460: 20 more
    assert (first["recommended"]["actionKey"], first["runnerUp"]["actionKey"]) == ("payer-call", "peer-to-peer")
    assert "20.00 more than the runner-up" in first["reasons"][0]
    cell = {"payerKey": "HAND MANUAL PAYER", "category": "medical_necessity", "actionKey": "appeal-level-1"}
    member.rpc.mutation("recoveryStrategy.set", cell)
    second = member.rpc.query("actionDecisionSupport.recommend", {"caseId": case["id"]}).data
    assert second["basis"] == "strategy" and second["strategy"]["actionKey"] == "appeal-level-1"
    assert second["recommended"]["actionKey"] == "appeal-level-1"
    assert second["recommended"]["expectedValue"] == "440.00"  # 0.5 x 1000 - 60
    assert second["runnerUp"]["actionKey"] == "payer-call"
    assert "number 3 of 6" in second["reasons"][0]


def test_another_clients_case_is_not_found_and_bad_input_refused(make_member):
    a, b = make_member(), make_member()
    case = open_case(a.rpc)
    assert b.rpc.query("actionDecisionSupport.recommend", {"caseId": case["id"]}).code == "NOT_FOUND"
    assert a.rpc.query("actionDecisionSupport.recommend", {"caseId": -1}).code == "BAD_REQUEST"
