"""Recording go-live gates and reading their state for the session's client. Never commits.

`activation_blockers` is what switching automation on asks: the gates not passed yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.infra.db.tenant_filter import get_scope
from api.platform.activation_governance import gates
from api.platform.activation_governance.models import ActivationGateRecord


@dataclass(frozen=True)
class GateView:
    gate: str
    description: str
    state: gates.GateState
    passed: bool
    evidence: str | None
    reference: str | None
    recorded_by_user_id: int | None
    recorded_at: datetime | None
    recordings: int


def _require_client_scope(db: Session) -> None:
    scope = get_scope(db)
    if scope is None or scope.client_id is None:
        # A programming error: unscoped, this would read every client's gates.
        raise RuntimeError("activation gates are read in a client's tenant scope only")


def _records(db: Session) -> list[ActivationGateRecord]:
    _require_client_scope(db)
    return list(db.scalars(select(ActivationGateRecord).order_by(ActivationGateRecord.id)))


def activation_blockers(db: Session) -> list[str]:
    """The gates of the session's client whose latest recording did not pass (never recorded included),
    in declared order; empty when automation may be switched on."""
    _require_client_scope(db)
    rows = db.execute(
        select(ActivationGateRecord.gate, ActivationGateRecord.passed).order_by(ActivationGateRecord.id)
    ).all()
    return gates.blockers(gates.latest((gate, passed) for gate, passed in rows))


def record_gate(
    db: Session, gate: str, passed: bool, evidence: str, reference: str | None, user_id: int
) -> ActivationGateRecord:
    row = ActivationGateRecord(
        gate=gate, passed=passed, evidence=evidence, reference=reference, recorded_by_user_id=user_id
    )
    db.add(row)
    db.flush()
    return row


def _view(gate: str, row: ActivationGateRecord | None, recordings: int) -> GateView:
    if row is None:
        return GateView(gate, gates.GATES[gate], "not_recorded", False, None, None, None, None, 0)
    return GateView(
        gate=gate,
        description=gates.GATES[gate],
        state=gates.state_of({gate: row.passed}, gate),
        passed=row.passed,
        evidence=row.evidence,
        reference=row.reference,
        recorded_by_user_id=row.recorded_by_user_id,
        recorded_at=row.created_at,
        recordings=recordings,
    )


def checklist(db: Session) -> list[GateView]:
    """Every gate with its latest recording (or none) and how often it was recorded."""
    last: dict[str, ActivationGateRecord] = {}
    counts: dict[str, int] = {}
    for row in _records(db):
        last[row.gate] = row
        counts[row.gate] = counts.get(row.gate, 0) + 1
    return [_view(gate, last.get(gate), counts.get(gate, 0)) for gate in gates.GATE_NAMES]
