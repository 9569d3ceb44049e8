"""Delegating payer calls, recording what a telephony provider reports, and simulating calls.
Never commits; never puts call data, transcript text or a next step in a message.

What a completed call learned (status, reference number, next step) reaches the case twice: a
payer interaction through `payer_interactions.service.log` (which appends its own
`payer_interaction` case event) and a `voice_call` case event through `cases.service.add_event`
naming the delegation, the goal, the status and the reference number. A simulated call says so
(`simulated: true`, "Simulated" in the interaction's summary and representative).

Placing a call is automation acting for the client (operationalControl task `payer_call`): while it
is paused a simulation and a provider's `dialing` event are refused before anything is written, so
the delegation stays `created` and the same step succeeds after resume. Delegating a call (it waits in
`created`) and the events of a call already connected (what it learned is data) are not paused.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from api.automation.hospital_voice import rules as voice_rules
from api.automation.hospital_voice import service as hospital_voice
from api.automation.voice_agent import simulation, transcript
from api.automation.voice_agent.call_data import CallData, minimum_call_data
from api.automation.voice_agent.lifecycle import DELEGATION, TURN_STATES
from api.automation.voice_agent.models import VoiceDelegation, VoiceDelegationEvent, VoiceSimulation
from api.core.errors import Conflict, PreconditionFailed, not_found
from api.core.lifecycle import transition
from api.denials.cases import service as cases
from api.denials.payer_interactions import service as payer_interactions
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, where_given
from api.integrations.operational_control import service as control

CASE_EVENT_KIND = "voice_call"
PAUSE_TASK = "payer_call"
MAX_TURNS = 2000


def get_delegation(db: Session, delegation_id: int, *, for_update: bool = False) -> VoiceDelegation:
    stmt = select(VoiceDelegation).where(VoiceDelegation.id == delegation_id)
    if for_update:
        stmt = stmt.with_for_update()
    row = db.scalar(stmt)
    if row is None:
        raise not_found("Delegation", delegation_id)
    return row


def create_delegation(db: Session, *, case_id: int, goal: str, user_id: int) -> VoiceDelegation:
    """A call for `goal` on the case, with the minimum data it needs and the opening script rendered
    from the hospital's settings now (a later settings change does not alter it)."""
    case = cases.get_case(db, case_id)
    if case.state == "closed":
        raise PreconditionFailed("The case is 'closed'; reopen it before delegating a call on it")
    settings = hospital_voice.settings(db)
    if settings.npi is None or settings.tin is None:
        raise PreconditionFailed("Set the NPI and TIN (hospitalVoice.updateSettings) before delegating a payer call")
    data = minimum_call_data(
        goal,
        payer=case.payer,
        claim_key=case.claim_key,
        payer_claim_number=case.payer_claim_number,
        service_date=case.service_date,
        billed_amount=case.billed_amount,
        carc=case.carc,
        denial_category=case.denial_category,
        npi=settings.npi,
        tin=settings.tin,
        caller_name=settings.caller_name,
        callback_number=settings.callback_number,
    )
    now = utcnow()
    row = VoiceDelegation(
        case_id=case.id,
        goal=goal,
        state="created",
        state_changed_at=now,
        state_history=[{"state": "created", "at": now.isoformat(), "detail": "delegated"}],
        call_data=data.stored(),
        opening_script=voice_rules.render_script(settings.script_for(goal), data.spoken()),
        transcript=[],
        timeline=[],
        created_by_user_id=user_id,
    )
    db.add(row)
    db.flush()
    return row


def _move(row: VoiceDelegation, target: str, detail: str) -> None:
    now = utcnow()
    row.state = transition(DELEGATION, row.state, target)
    row.state_changed_at = now
    row.state_history = [*row.state_history, {"state": target, "at": now.isoformat(), "detail": detail}]


def cancel(db: Session, delegation_id: int) -> VoiceDelegation:
    row = get_delegation(db, delegation_id, for_update=True)
    _move(row, "cancelled", "cancelled")
    db.flush()
    return row


# --- what a call learned ------------------------------------------------------------------------


def _learned(
    db: Session,
    row: VoiceDelegation,
    *,
    status: str,
    outcome: str,
    reference_number: str | None,
    next_step: str | None,
    representative: str | None,
    user_id: int,
    simulation_id: int | None = None,
) -> int:
    """Record what the call learned on the delegation, in the payer interaction log and on the case;
    the interaction's id."""
    next_step = transcript.redact_turn("representative", next_step)[:500] if next_step else None
    row.status, row.interaction_outcome = status, outcome
    row.reference_number, row.next_step = reference_number, next_step
    simulated = simulation_id is not None
    prefix = "Simulated voice agent call" if simulated else "Voice agent call"
    summary = f"{prefix} ({row.goal.replace('_', ' ')}, delegation {row.id}): the payer said '{status}'."
    if reference_number:
        summary += f" Reference number {reference_number}."
    interaction = payer_interactions.log_phone_call(
        db,
        case_id=row.case_id,
        occurred_at=utcnow(),
        representative=(f"{representative} (simulated)" if simulated else representative) if representative else None,
        reference_number=reference_number,
        summary=summary,
        outcome=outcome,
        next_step=next_step,
        user_id=user_id,
    )
    row.payer_interaction_id = interaction.id
    case = cases.get_case(db, row.case_id)
    details: dict[str, Any] = {
        "delegationId": row.id,
        "goal": row.goal,
        "status": status,
        "referenceNumber": reference_number,
        "interactionId": interaction.id,
        "simulated": simulated,
    }
    if simulation_id is not None:
        details["simulationId"] = simulation_id
    cases.add_event(db, case, CASE_EVENT_KIND, actor_user_id=user_id, details=details)
    db.flush()
    return interaction.id


# --- provider events ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    speaker: str  # agent | ivr | representative
    text: str


@dataclass(frozen=True)
class CallOutcome:
    """What the payer said (`status`: an interaction outcome) and what the call learned."""

    status: str
    reference_number: str | None = None
    next_step: str | None = None
    representative: str | None = None


@dataclass(frozen=True)
class ProviderEvent:
    """One event a telephony provider reports; the payload its kind needs (turn, outcome, failure mode)."""

    delegation_id: int
    provider_event_id: str
    kind: str  # dialing | connected | transcript_turn | outcome | failed
    at: float  # seconds since dialing
    turn: Turn | None = None
    outcome: CallOutcome | None = None
    failure_mode: str | None = None


def _apply_event(db: Session, row: VoiceDelegation, data: ProviderEvent, user_id: int) -> None:
    if data.kind == "dialing":
        row.placed_by = row.placed_by or "provider"
        _move(row, "dialing", "provider: dialing")
    elif data.kind == "connected":
        _move(row, "in_call", "provider: connected")
    elif data.kind == "transcript_turn":
        assert data.turn is not None  # the wire input demands it
        if row.state not in TURN_STATES:
            raise PreconditionFailed(f"The voice delegation is '{row.state}'; transcript turns need a connected call")
        if len(row.transcript) >= MAX_TURNS:
            raise PreconditionFailed(f"The transcript already holds {MAX_TURNS} turns")
        turn = {"speaker": data.turn.speaker, "text": transcript.redact_turn(data.turn.speaker, data.turn.text)}
        row.transcript = sorted([*row.transcript, {**turn, "at": data.at}], key=lambda t: t["at"])
    elif data.kind == "outcome":
        assert data.outcome is not None
        _move(row, "completed", "provider: outcome")
        _learned(
            db,
            row,
            status=data.outcome.status,
            outcome=data.outcome.status,
            reference_number=data.outcome.reference_number,
            next_step=data.outcome.next_step,
            representative=data.outcome.representative,
            user_id=user_id,
        )
    else:
        assert data.failure_mode is not None
        _move(row, "failed", f"provider: {data.failure_mode}")
        row.failure_mode = data.failure_mode


def _timeline_entry(data: ProviderEvent) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": data.kind, "at": data.at, "providerEventId": data.provider_event_id}
    if data.outcome is not None:
        entry["status"] = data.outcome.status
    if data.failure_mode is not None:
        entry["mode"] = data.failure_mode
    if data.turn is not None:
        entry["speaker"] = data.turn.speaker
    return entry


def record_event(db: Session, data: ProviderEvent, *, user_id: int) -> tuple[VoiceDelegation, bool]:
    """Apply one provider event; (the delegation, True) when its id was recorded before. An event the
    lifecycle does not allow now (a connected call before dialing, an outcome twice) is
    PRECONDITION_FAILED and records nothing."""
    row = get_delegation(db, data.delegation_id, for_update=True)
    seen = db.scalar(
        select(VoiceDelegationEvent).where(VoiceDelegationEvent.provider_event_id == data.provider_event_id)
    )
    if seen is not None:
        if seen.delegation_id != row.id:
            raise Conflict("This provider event id was already recorded for another delegation")
        return row, True
    if row.placed_by == "simulation":
        raise PreconditionFailed("This delegation was played by a simulation; it takes no provider events")
    if data.kind == "dialing":  # the agent would start a call now
        control.require_not_paused(db, PAUSE_TASK)
    _apply_event(db, row, data, user_id)
    row.timeline = sorted([*row.timeline, _timeline_entry(data)], key=lambda e: e["at"])
    event = VoiceDelegationEvent(
        delegation_id=row.id,
        provider_event_id=data.provider_event_id,
        kind=data.kind,
        at_seconds=data.at,
        recorded_by_user_id=user_id,
    )
    try:
        with db.begin_nested():
            db.add(event)
            db.flush()
    except IntegrityError:
        raise Conflict("This provider event id was recorded by a concurrent call; send it again") from None
    return row, False


# --- simulation ---------------------------------------------------------------------------------


def run_simulation(
    db: Session, *, delegation_id: int, failure_mode: str, seed: int | None, user_id: int
) -> VoiceSimulation:
    """Play the delegation's call against the simulated payer line (it must be `created`) and record
    the transcript (redacted), timeline and outcome on the simulation and the delegation. Refused while
    `payer_call` is paused."""
    control.require_not_paused(db, PAUSE_TASK)
    row = get_delegation(db, delegation_id, for_update=True)
    _move(row, "dialing", "simulation: dialing")
    row.placed_by = "simulation"
    sim = VoiceSimulation(
        delegation_id=row.id,
        case_id=row.case_id,
        seed=seed if seed is not None else 0,
        failure_mode=failure_mode,
        final_state="",
        outcome={},
        transcript=[],
        timeline=[],
        duration_seconds=0.0,
        steps=0,
        created_by_user_id=user_id,
    )
    db.add(sim)
    db.flush()
    if seed is None:
        sim.seed = sim.id
    result = simulation.simulate(
        CallData.from_stored(row.goal, row.call_data), row.opening_script, seed=sim.seed, failure_mode=failure_mode
    )
    stored = transcript.redact_turns(turn.stored() for turn in result.turns)
    sim.final_state, sim.outcome = result.final_state, asdict(result.outcome)
    sim.transcript, sim.timeline = stored, list(result.timeline)
    sim.duration_seconds, sim.steps = result.duration_seconds, result.steps
    row.transcript, row.timeline = stored, list(result.timeline)
    if any(event["kind"] == "connected" for event in result.timeline):
        _move(row, "in_call", "simulation: connected")
    if result.outcome.state == "completed":
        _move(row, "completed", "simulation: outcome")
        sim.payer_interaction_id = _learned(
            db,
            row,
            status=result.outcome.status or "unknown",
            outcome=result.outcome.interaction_outcome or "other",
            reference_number=result.outcome.reference_number,
            next_step=result.outcome.next_step,
            representative=result.representative,
            user_id=user_id,
            simulation_id=sim.id,
        )
        sim.outcome = {**sim.outcome, "next_step": row.next_step}
    else:
        _move(row, "failed", f"simulation: {result.final_state}")
        row.failure_mode = result.final_state
    db.flush()
    return sim


def get_simulation(db: Session, simulation_id: int) -> VoiceSimulation:
    return get_by_id(db, VoiceSimulation, simulation_id, "Simulation")


# --- lists and audit ----------------------------------------------------------------------------


def list_delegations(case_id: int | None, state: str | None, goal: str | None) -> Select[Any]:
    return where_given(
        select(VoiceDelegation),
        (VoiceDelegation.case_id, case_id),
        (VoiceDelegation.state, state),
        (VoiceDelegation.goal, goal),
    )


def list_simulations(delegation_id: int | None, case_id: int | None, failure_mode: str | None) -> Select[Any]:
    return where_given(
        select(VoiceSimulation),
        (VoiceSimulation.delegation_id, delegation_id),
        (VoiceSimulation.case_id, case_id),
        (VoiceSimulation.failure_mode, failure_mode),
    )


def audit_view(row: VoiceDelegation) -> dict[str, Any]:
    """What the audit may digest: ids, goal, states; never call data or transcript text."""
    return {
        "case_id": row.case_id,
        "goal": row.goal,
        "state": row.state,
        "failure_mode": row.failure_mode,
        "payer_interaction_id": row.payer_interaction_id,
    }
