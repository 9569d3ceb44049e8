"""Evidence records stored by the real `evidence.service.record` from hand cell rows (the mart's shape), so
the evidence and evidenceSynthesis tests need no pipeline run. Windows: Jan-Feb 2026 before, Mar-Apr after
(an intervention starting 2026-03-10, measured 2 months each side)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

from api.evidence.evidence import service
from api.evidence.evidence.design import CellRow
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.intelligence.interventions.service import intervention_facts

BUILT = datetime(2026, 6, 2, 3, 0, tzinfo=UTC)


def cell(payer: str, line: str, denied: bool, claims: int, month: int, cls: str = "commercial") -> CellRow:
    """A mart row of 2026-<month>: `claims` denied for eligibility (CARC 27), or paid."""
    cat, carc = ("eligibility", "27") if denied else ("none", "NONE")
    return CellRow(date(2026, month, 1), payer, cls, line, "MAIN", cat, carc, claims)


def record(
    services: Any, who: Any, intervention_id: int, treated: Any, control: Any, *, extra: Sequence[CellRow] = ()
) -> int:
    """Store evidence in `who`'s client (organization_id, client_id, user_id) from (denied, paid) pairs of
    the treated (AETNA cardiology) and comparison (CIGNA oncology) cells, before then after."""
    (tb, tb_paid), (ta, ta_paid) = treated
    (cb, cb_paid), (ca, ca_paid) = control
    rows = [
        cell("AETNA", "cardiology", True, tb, 1),
        cell("AETNA", "cardiology", False, tb_paid, 2),
        cell("AETNA", "cardiology", True, ta, 3),
        cell("AETNA", "cardiology", False, ta_paid, 4),
        cell("CIGNA", "oncology", True, cb, 2),
        cell("CIGNA", "oncology", False, cb_paid, 1),
        cell("CIGNA", "oncology", True, ca, 4),
        cell("CIGNA", "oncology", False, ca_paid, 3),
        *extra,
    ]
    with services.database.transaction() as db:
        set_scope(db, TenantScope(who.organization_id, who.client_id))
        facts = intervention_facts(db, intervention_id)
        assert facts is not None
        w = service.windows_of(facts, 2, 2)
        return int(service.record(db, facts, w, rows, "commercial", snapshot_built_at=BUILT, user_id=who.user_id).id)
