"""voiceAgent.*: payer calls on denial cases delegated to a voice agent, and simulated calls."""

from __future__ import annotations

from api.automation.voice_agent import service
from api.automation.voice_agent.models import VoiceDelegation, VoiceSimulation
from api.automation.voice_agent.schemas import (
    CreateDelegationIn,
    DelegationOut,
    DelegationRef,
    ListDelegationsIn,
    ListSimulationsIn,
    RecordEventIn,
    RecordEventOut,
    RunSimulationIn,
    SimulationOut,
    SimulationRef,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("voiceAgent")


@router.mutation("createDelegation")
def create_delegation(ctx: Context, input: CreateDelegationIn) -> DelegationOut:
    """Delegate a payer call on a case (goal: claim_status, appeal_status, reopening_request). The
    delegation carries only what the call needs: payer, claim number and payer claim number, date of
    service, billed amount, the hospital's NPI and TIN and caller details (a reopening adds the denial
    codes as its reason); never the patient's name, date of birth or member id. PRECONDITION_FAILED
    for a closed case or before hospitalVoice has an NPI and TIN. State `created`."""
    row = service.create_delegation(ctx.db, case_id=input.case_id, goal=input.goal, user_id=ctx.user_id)
    ctx.note("voice_delegation", row.id, after=service.audit_view(row))
    return DelegationOut.model_validate(row)


@router.query("listDelegations")
def list_delegations(ctx: Context, input: ListDelegationsIn) -> Page[DelegationOut]:
    """Delegations of the selected client, newest first, with their redacted transcripts, timelines
    and what each call learned; filter by case, state and goal."""
    stmt = service.list_delegations(input.case_id, input.state, input.goal)
    return paginate(ctx.db, stmt, VoiceDelegation.id, input, DelegationOut.model_validate)


@router.mutation("cancelDelegation")
def cancel_delegation(ctx: Context, input: DelegationRef) -> DelegationOut:
    """Cancel a delegation that has not ended (created, dialing or in_call -> cancelled); a final one
    is PRECONDITION_FAILED."""
    row = service.cancel(ctx.db, input.id)
    ctx.note("voice_delegation", row.id, after=service.audit_view(row))
    return DelegationOut.model_validate(row)


@router.mutation("recordDelegationEvent")
def record_delegation_event(ctx: Context, input: RecordEventIn) -> RecordEventOut:
    """Record a telephony provider's event on a delegation: dialing (created -> dialing), connected
    (-> in_call), transcript_turn (stored redacted), outcome (-> completed; the status, reference
    number and next step are logged as a payer interaction and a `voice_call` case event) or failed
    (-> failed with its mode). Idempotent by `providerEventId`: a redelivery answers `duplicate: true`
    and changes nothing (the same id on another delegation is CONFLICT). A move the lifecycle does not
    allow is PRECONDITION_FAILED, and so is `dialing` while operationalControl pauses the client or
    `payer_call` (nothing recorded; send it again after resume)."""
    turn, outcome = input.turn, input.outcome
    event = service.ProviderEvent(
        delegation_id=input.delegation_id,
        provider_event_id=input.provider_event_id,
        kind=input.kind,
        at=input.at,
        turn=None if turn is None else service.Turn(turn.speaker, turn.text),
        outcome=None
        if outcome is None
        else service.CallOutcome(outcome.status, outcome.reference_number, outcome.next_step, outcome.representative),
        failure_mode=None if input.failure is None else input.failure.mode,
    )
    row, duplicate = service.record_event(ctx.db, event, user_id=ctx.user_id)
    ctx.note("voice_delegation", row.id, after=service.audit_view(row))
    return RecordEventOut(delegation=DelegationOut.model_validate(row), duplicate=duplicate)


@router.mutation("runSimulation")
def run_simulation(ctx: Context, input: RunSimulationIn) -> SimulationOut:
    """Play a `created` delegation's call against the simulated payer line (menus, DTMF, holds,
    transfers, a representative), seeded by `seed` or the simulation's id, with an optional failure
    mode (dropped_call, long_hold_timeout, wrong_department_transfer, rep_refuses_without_identifier,
    ivr_loop). Stores the redacted transcript, the timeline and the outcome; a completed call updates
    the case and the payer interaction log as a real one would, marked simulated. PRECONDITION_FAILED
    while operationalControl pauses the client or `payer_call` (the delegation stays created)."""
    sim = service.run_simulation(
        ctx.db, delegation_id=input.delegation_id, failure_mode=input.failure_mode, seed=input.seed, user_id=ctx.user_id
    )
    ctx.note("voice_simulation", sim.id, after={"delegation_id": sim.delegation_id, "final_state": sim.final_state})
    return SimulationOut.model_validate(sim)


@router.query("getSimulation")
def get_simulation(ctx: Context, input: SimulationRef) -> SimulationOut:
    """One simulated call: seed, failure mode, final state, outcome, redacted transcript and timeline."""
    return SimulationOut.model_validate(service.get_simulation(ctx.db, input.id))


@router.query("listSimulations")
def list_simulations(ctx: Context, input: ListSimulationsIn) -> Page[SimulationOut]:
    """Simulated calls of the selected client, newest first; filter by delegation, case and failure mode."""
    stmt = service.list_simulations(input.delegation_id, input.case_id, input.failure_mode)
    return paginate(ctx.db, stmt, VoiceSimulation.id, input, SimulationOut.model_validate)
