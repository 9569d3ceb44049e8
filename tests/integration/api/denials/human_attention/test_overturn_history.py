"""P(overturn) seeded by the payer's remittance history, over the real wire on SQLite and PostgreSQL.

Hand-written 835s (tests/fixtures/x12/hand):
- prior_history_march.835 (2026-03-02): HAND PRIOR PAYER A denies PA-1, PA-2, PA-3 (CLP02=4, CO-50 100
  each, medical necessity) and pays PA-4 150 of 200 (CO-45 50: no denial); HAND PRIOR PAYER B denies
  PB-1, PB-2 (CO-50 100) and pays PB-3 80 of 100 (CO-45 20).
- prior_history_april.835 (2026-04-06): payer A pays PA-1 and PA-2 100 each: 2 overturns of 3.

Expected by hand (history_prior.py: client Beta(1, 1), strengths 10, cap 20):
- after March: client 0 of 5 -> 1/7; payer A (10/7 + 0) / 13 = 10/91; A x medical necessity
  (100/91) / 13 = 100/1183; payer B (10/7) / 12 = 5/42, B's cell (50/42) / 12 = 25/252.
- after April: client 2 of 5 -> 3/7; A's cell 622/1183; B's cell 25/84.
"""

from __future__ import annotations

import pytest

from api.denials.human_attention.history import overturn_history
from api.denials.human_attention.service import RESCORE_JOB_KIND, rescore
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.integration.api.denials.conftest import by_claim, post
from tests.support.jobs import queued, run_queued

A, B, X = "HAND PRIOR PAYER A", "HAND PRIOR PAYER B", "medical_necessity"


def _history(services, member):
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return overturn_history(db)


def _probabilities(member) -> dict[str, float]:
    """The stored P(overturn) of each case, by claim (from `why`: the 2026 cases are past the assumed
    deadline, so out of today's queue)."""
    out = {}
    for claim, case in by_claim(member.rpc).items():
        out[claim] = member.rpc.query("humanAttention.why", {"caseId": case["id"]}).data["probability"]["used"]
    return out


def test_the_remittance_history_seeds_each_payer_and_category(services, member):
    post(member.rpc, "prior_history_march.835")
    assert _history(services, member) == {(A, X): (3, 0), (B, X): (2, 0)}
    march = _probabilities(member)
    assert march["PA-3"] == pytest.approx(100 / 1183)
    assert march["PB-1"] == pytest.approx(25 / 252)
    assert (
        run_queued(services, RESCORE_JOB_KIND, member.client_id) == 1
    )  # March's payers: the same ranks (scored at opening)
    assert _probabilities(member) == march

    post(member.rpc, "prior_history_april.835")
    assert _history(services, member) == {(A, X): (3, 2), (B, X): (2, 0)}
    # The April batch names payer A only: the confirm queued one rescore of its cases (no refit inside
    # the confirm's transaction), so until it runs the stored rank is March's.
    assert queued(services, RESCORE_JOB_KIND, member.client_id) == [{"clientId": member.client_id, "payers": [A]}]
    assert _probabilities(member)["PA-3"] == pytest.approx(100 / 1183)
    assert run_queued(services, RESCORE_JOB_KIND, member.client_id) == 1
    assert _probabilities(member)["PA-3"] == pytest.approx(622 / 1183)
    # Payer B moved through the client's rate only: a full rescore brings it along.
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        rescore(db)
    april = _probabilities(member)
    assert april["PB-1"] == pytest.approx(25 / 84)

    case_id = by_claim(member.rpc)["PA-3"]["id"]
    why = member.rpc.query("humanAttention.why", {"caseId": case_id}).data
    p = why["probability"]
    assert p["mean"] == pytest.approx(622 / 1183)
    assert [lv["level"] for lv in p["levels"]] == [
        "global",
        "category",
        "payer_history",
        "payer_category",
        "payer_category_carc",
    ]
    history = p["levels"][2]
    assert (history["n"], history["k"], history["priorStrength"]) == (3, 2, 10.0)
    assert (p["basisLevel"], p["basisN"], p["basisK"]) == ("payer_history", 3, 2)
    assert any(
        "payer history: 2 overturns of 3 denials for HAND PRIOR PAYER A x medical_necessity"
        " (2 of 3 for the payer, 2 of 5 for the client); 0 recorded outcomes" in w
        for w in why["explanation"]
    ), why["explanation"]


C = "HAND PRIOR PAYER C"


def test_a_reversal_to_the_patients_share_overturns_and_a_denied_claim_is_a_denial_whatever_its_group(services, member):
    """prior_history_payer_c_march.835 (2026-03-03): PC-1 CLP02=4 with PR-96 100 (denied: a denial of
    the payer's, though the group makes it the patient's share), PC-2 CLP02=4 CO-50 100.
    prior_history_payer_c_april.835 (2026-04-07): PC-2 reversed (CLP02=22) and corrected to CLP02=1 paid
    0 with PR-2 100: the payer no longer denies it, so it is overturned (the marts' rule), with no money.
    """
    post(member.rpc, "prior_history_payer_c_march.835")
    post(member.rpc, "prior_history_payer_c_april.835")
    assert _history(services, member) == {(C, "patient_responsibility"): (1, 0), (C, X): (1, 1)}
