"""The worklist's probabilities on a planted corpus: decisions with known overturn rates by payer and
category, recorded through the outcomes service (the RPC path is covered by test_outcomes.py; 3,000
calls over HTTP would only be slower), read back over RPC with humanAttention.why."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from api.denials.cases.models import DenialCase
from api.denials.outcomes import service as outcomes
from api.infra.db.tenant_filter import TenantScope, set_scope
from tests.support.denial_case_rows import make_case
from tests.support.planted_outcomes import CARCS, PLANTED_RATES, planted_outcomes

SEED = 21


def test_estimates_fall_within_their_stated_intervals(services, make_member):
    member = make_member()
    today = datetime.now(UTC).date()
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        for i, o in enumerate(planted_outcomes(SEED, per_cell=(80, 160))):
            case = DenialCase(
                denial_key=f"planted-{i}",
                origin="manual",
                event_kind="denial",
                claim_key=f"PCN-P{i}",
                payer=o.payer,
                denial_category=o.category,
                carc=o.carc,
                amount_at_stake=Decimal("100.00"),
                state="in_appeal",
                state_changed_at=datetime.now(UTC),
            )
            db.add(case)
            db.flush()
            amount = {"won": "100.00", "partially_won": "40.00"}.get(o.decision, "0")
            data = outcomes.NewOutcome(
                case_id=case.id, decision=o.decision, amount_recovered=Decimal(amount), decided_on=today
            )
            outcomes.record(db, data, user_id=member.user_id)
    covered, total = 0, 0
    for (payer, category), rate in PLANTED_RATES.items():
        for carc in CARCS[category]:
            probe = make_case(
                services, member.organization_id, member.client_id, payer=payer, denial_category=category, carc=carc
            )
            p = member.rpc.query("humanAttention.why", {"caseId": probe}).data["probability"]
            assert p["low"] <= p["mean"] <= p["high"] and p["used"] == p["mean"]
            assert p["basisLevel"] == "payer_category_carc" and p["basisN"] > 0
            covered += p["low"] <= rate <= p["high"]
            total += 1
    assert covered / total >= 0.90, f"{covered} of {total} intervals hold the planted rate"
