"""interventionExecution: moving an intervention along its lifecycle (interventions/lifecycle.py) and its
status with the latest evidence. Functions take the tenant-scoped Session and plain values; they never
commit (the executor commits the call with its audit event)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.orm import Session

from api.core.lifecycle import transition
from api.evidence.evidence import service as evidence
from api.intelligence.interventions import service as interventions
from api.intelligence.interventions.lifecycle import INTERVENTION
from api.intelligence.interventions.models import Intervention

#: recordResult's outcome -> the state it moves the intervention to.
OUTCOMES = {"completed": "completed", "abandoned": "abandoned"}


def start(db: Session, intervention_id: int, *, now: datetime | None = None) -> Intervention:
    """planned -> active, stamping started_at. The start date stays the evidence's cut-over: starting late
    does not move the measurement."""
    row = interventions.get(db, intervention_id, for_update=True)
    row.state = transition(INTERVENTION, row.state, "active")
    row.started_at = now or datetime.now(UTC)
    db.flush()
    return row


def record_result(
    db: Session, intervention_id: int, *, outcome: str, note: str, now: datetime | None = None
) -> Intervention:
    """active -> completed, or planned/active -> abandoned, with a note; PRECONDITION_FAILED otherwise."""
    row = interventions.get(db, intervention_id, for_update=True)
    row.state = transition(INTERVENTION, row.state, OUTCOMES[outcome])
    row.outcome = outcome
    row.result_note = note
    row.finished_at = now or datetime.now(UTC)
    db.flush()
    return row


@dataclass(frozen=True)
class Status:
    intervention: Intervention
    latest: evidence.InterventionEvidence | None
    evidence_count: int


def status(db: Session, intervention_id: int) -> Status:
    """The intervention's state and dates and its latest evidence record (None before any)."""
    row = interventions.get(db, intervention_id)
    return Status(row, evidence.latest_for_intervention(db, row.id), evidence.count_for_intervention(db, row.id))
