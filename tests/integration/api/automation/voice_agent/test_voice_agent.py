"""voiceAgent.* over the wire, on SQLite and PostgreSQL: delegations, simulated calls for every
failure mode, provider events (idempotent), what a completed call writes to the case and the payer
interaction log, tenancy, bad input, and no PHI in stored transcripts."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from sqlalchemy import select

from api.automation.voice_agent import ivr
from api.automation.voice_agent.models import VoiceDelegation, VoiceSimulation
from api.platform.audit.models import AuditEvent
from tests.support.denial_case_rows import make_case
from tests.support.rpc_client import collect_pages

NPI, TIN = "1234567893", "123456789"


@pytest.fixture
def member(make_member):
    admin = make_member(role="admin")
    admin.rpc.mutation("hospitalVoice.updateSettings", {"npi": NPI, "tin": TIN}).data
    return admin


def _case(services, member, **values):
    fields = {
        "claim_key": "PCN-VOICE-1",
        "payer": "ACME HEALTH",
        "payer_claim_number": "ICN-5566",
        "service_date": date(2026, 3, 14),
        "billed_amount": Decimal("1200.50"),
        "carc": "50",
        "denial_category": "medical_necessity",
        **values,
    }
    return make_case(services, member.organization_id, member.client_id, **fields)


def _delegate(member, case_id, goal="claim_status"):
    return member.rpc.mutation("voiceAgent.createDelegation", {"caseId": case_id, "goal": goal})


def _event(member, delegation_id, event_id, kind, at=0.0, **payload):
    body = {"delegationId": delegation_id, "providerEventId": event_id, "kind": kind, "at": at, **payload}
    return member.rpc.mutation("voiceAgent.recordDelegationEvent", body)


def test_create_carries_the_minimum_data_and_renders_the_script(services, member):
    case_id = _case(services, member)
    out = _delegate(member, case_id, "reopening_request").data
    assert out["state"] == "created" and out["caseId"] == case_id and out["placedBy"] is None
    assert out["callData"] == {
        "payer": "ACME HEALTH",
        "claim_number": "PCN-VOICE-1",
        "payer_claim_number": "ICN-5566",
        "date_of_service": "2026-03-14",
        "billed_amount": "1200.50",
        "npi": NPI,
        "tin": TIN,
        "caller_name": "Patient Financial Services",
        "callback_number": None,
        "reopening_reason": "a clerical error behind medical necessity, adjustment reason code 50",
    }
    assert "PCN-VOICE-1" in out["openingScript"] and "March 14, 2026" in out["openingScript"]
    status = _delegate(member, case_id, "claim_status").data
    assert "reopening_reason" not in status["callData"]
    listed = collect_pages(member.rpc, "voiceAgent.listDelegations", {"caseId": case_id}, limit=1)
    assert [d["id"] for d in listed] == [status["id"], out["id"]]
    assert [
        d["id"] for d in collect_pages(member.rpc, "voiceAgent.listDelegations", {"goal": "claim_status"}, limit=50)
    ] == [status["id"]]


def test_create_needs_npi_and_tin_and_an_open_case(services, make_member, member):
    fresh = make_member(role="admin")
    case_id = make_case(services, fresh.organization_id, fresh.client_id)
    refused = _delegate(fresh, case_id)
    assert refused.code == "PRECONDITION_FAILED" and "NPI" in refused.error["message"]
    closed = _case(services, member, state="closed")
    assert _delegate(member, closed).code == "PRECONDITION_FAILED"


@pytest.mark.parametrize("mode", ivr.FAILURE_MODES)
def test_a_simulated_call_for_each_failure_mode_start_to_finish(services, member, mode):
    case_id = _case(services, member)
    delegation = _delegate(member, case_id).data
    sim = member.rpc.mutation(
        "voiceAgent.runSimulation", {"delegationId": delegation["id"], "failureMode": mode, "seed": 1234}
    ).data
    expected = "completed" if mode == "none" else mode
    assert sim["finalState"] == expected and sim["seed"] == 1234 and sim["failureMode"] == mode
    assert sim["outcome"]["state"] == ("completed" if mode == "none" else "failed")
    assert sim["transcript"] and sim["timeline"][0]["kind"] == "dialing"
    assert sim["timeline"][-1]["kind"] == ("outcome" if mode == "none" else "failed")
    assert member.rpc.query("voiceAgent.getSimulation", {"id": sim["id"]}).data == sim
    after = collect_pages(member.rpc, "voiceAgent.listDelegations", {"caseId": case_id}, limit=50)[0]
    assert after["placedBy"] == "simulation" and after["transcript"] == sim["transcript"]
    states = [s["state"] for s in after["stateHistory"]]
    if mode == "none":
        assert states == ["created", "dialing", "in_call", "completed"]
        assert after["referenceNumber"] == sim["outcome"]["referenceNumber"] and after["nextStep"]
    else:
        assert states == ["created", "dialing", "in_call", "failed"] and after["failureMode"] == mode
        assert member.rpc.query("payerInteractions.forCase", {"caseId": case_id}).data["items"] == []
    again = member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": delegation["id"]})
    assert again.code == "PRECONDITION_FAILED"


def test_a_completed_simulation_updates_the_case_and_the_payer_interaction_log(services, member):
    case_id = _case(services, member)
    delegation = _delegate(member, case_id).data
    sim = member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": delegation["id"], "seed": 77}).data
    outcome = sim["outcome"]
    interactions = member.rpc.query("payerInteractions.list", {"caseId": case_id}).data["items"]
    assert len(interactions) == 1
    logged = interactions[0]
    assert logged["id"] == sim["payerInteractionId"]
    assert (logged["channel"], logged["direction"], logged["payer"]) == ("phone", "outbound", "ACME HEALTH")
    assert logged["referenceNumber"] == outcome["referenceNumber"] and logged["nextStep"] == outcome["nextStep"]
    assert logged["outcome"] == outcome["interactionOutcome"] and "Simulated" in logged["summary"]
    assert logged["payerRepresentative"].endswith("(simulated)")
    events = member.rpc.query("cases.get", {"id": case_id}).data["events"]
    voice = [e for e in events if e["kind"] == "voice_call"]
    assert len(voice) == 1 and voice[0]["actorUserId"] == member.user_id
    assert voice[0]["details"] == {
        "delegationId": delegation["id"],
        "goal": "claim_status",
        "status": outcome["status"],
        "referenceNumber": outcome["referenceNumber"],
        "interactionId": logged["id"],
        "simulated": True,
        "simulationId": sim["id"],
    }
    assert [e["kind"] for e in events].count("payer_interaction") == 1
    # a seed replays the same call
    other = _delegate(member, case_id).data
    replay = member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": other["id"], "seed": 77}).data
    assert replay["transcript"] == sim["transcript"] and replay["outcome"] == sim["outcome"]
    found = collect_pages(member.rpc, "voiceAgent.listSimulations", {"caseId": case_id}, limit=1)
    assert [s["id"] for s in found] == [replay["id"], sim["id"]]


def test_the_default_seed_is_the_simulation_id(services, member):
    delegation = _delegate(member, _case(services, member)).data
    sim = member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": delegation["id"]}).data
    assert sim["seed"] == sim["id"]


def test_provider_events_drive_the_lifecycle_idempotently_and_update_the_case(services, member):
    case_id = _case(services, member)
    d = _delegate(member, case_id, "appeal_status").data["id"]
    assert _event(member, d, "evt-1", "dialing").data["delegation"]["state"] == "dialing"
    replay = _event(member, d, "evt-1", "dialing").data
    assert replay["duplicate"] is True and replay["delegation"]["state"] == "dialing"
    assert _event(member, d, "evt-2", "connected", 12.5).data["delegation"]["state"] == "in_call"
    turn = {
        "speaker": "representative",
        "text": "I see patient Jane Doe, date of birth 04/02/1961, member ID W998877665.",
    }
    said = _event(member, d, "evt-3", "transcript_turn", 40.0, turn=turn).data["delegation"]
    assert said["placedBy"] == "provider" and said["transcript"][0]["at"] == 40.0
    for secret in ("Jane", "Doe", "04/02/1961", "W998877665"):
        assert secret not in str(said["transcript"])
    outcome = {"status": "in_process", "referenceNumber": "REF-4455", "nextStep": "Call back in 10 days"}
    done = _event(member, d, "evt-4", "outcome", 90.0, outcome=outcome).data
    assert done["duplicate"] is False and done["delegation"]["state"] == "completed"
    assert done["delegation"]["referenceNumber"] == "REF-4455"
    # the same outcome delivered again writes nothing twice
    assert _event(member, d, "evt-4", "outcome", 90.0, outcome=outcome).data["duplicate"] is True
    interactions = member.rpc.query("payerInteractions.list", {"caseId": case_id}).data["items"]
    assert [(i["referenceNumber"], i["nextStep"], i["outcome"]) for i in interactions] == [
        ("REF-4455", "Call back in 10 days", "in_process")
    ]
    events = member.rpc.query("cases.get", {"id": case_id}).data["events"]
    voice = [e["details"] for e in events if e["kind"] == "voice_call"]
    assert voice == [
        {
            "delegationId": d,
            "goal": "appeal_status",
            "status": "in_process",
            "referenceNumber": "REF-4455",
            "interactionId": interactions[0]["id"],
            "simulated": False,
        }
    ]
    # a late turn is still recorded, in order of `at`
    late = _event(member, d, "evt-5", "transcript_turn", 20.0, turn={"speaker": "ivr", "text": "Please hold."})
    assert [t["at"] for t in late.data["delegation"]["transcript"]] == [20.0, 40.0]
    # another outcome is a move the lifecycle refuses; the same id on another delegation is a conflict
    assert _event(member, d, "evt-6", "outcome", 95.0, outcome=outcome).code == "PRECONDITION_FAILED"
    other = _delegate(member, case_id).data["id"]
    assert _event(member, other, "evt-1", "dialing").code == "CONFLICT"


def test_provider_failures_and_lifecycle_refusals(services, member):
    case_id = _case(services, member)
    d = _delegate(member, case_id).data["id"]
    assert _event(member, d, "c-1", "connected").code == "PRECONDITION_FAILED"
    turn = {"speaker": "agent", "text": "hello"}
    assert _event(member, d, "t-1", "transcript_turn", turn=turn).code == "PRECONDITION_FAILED"
    failed = _event(member, d, "f-1", "failed", 3.0, failure={"mode": "no_answer"}).data["delegation"]
    assert failed["state"] == "failed" and failed["failureMode"] == "no_answer"
    assert member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": d}).code == "PRECONDITION_FAILED"
    simulated = _delegate(member, case_id).data["id"]
    member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": simulated, "failureMode": "ivr_loop"}).data
    assert _event(member, simulated, "s-1", "failed", failure={"mode": "other"}).code == "PRECONDITION_FAILED"
    cancelled = _delegate(member, case_id).data["id"]
    out = member.rpc.mutation("voiceAgent.cancelDelegation", {"id": cancelled}).data
    assert out["state"] == "cancelled"
    assert member.rpc.mutation("voiceAgent.cancelDelegation", {"id": cancelled}).code == "PRECONDITION_FAILED"
    assert member.rpc.query("payerInteractions.list", {"caseId": case_id}).data["items"] == []


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("voiceAgent.createDelegation", {"goal": "chat"}, "goal"),
        ("voiceAgent.createDelegation", {"goal": "claim_status", "caseId": 0}, "caseId"),
        ("voiceAgent.runSimulation", {"failureMode": "meteor"}, "failureMode"),
        ("voiceAgent.runSimulation", {"seed": -1}, "seed"),
        ("voiceAgent.recordDelegationEvent", {"kind": "teleport", "providerEventId": "e", "at": 0}, "kind"),
        ("voiceAgent.recordDelegationEvent", {"kind": "outcome", "providerEventId": "e", "at": 0}, "outcome"),
        (
            "voiceAgent.recordDelegationEvent",
            {"kind": "dialing", "providerEventId": "e", "at": 0, "turn": {"speaker": "agent", "text": "x"}},
            "turn",
        ),
        (
            "voiceAgent.recordDelegationEvent",
            {"kind": "dialing", "providerEventId": "bad id", "at": 0},
            "providerEventId",
        ),
        ("voiceAgent.recordDelegationEvent", {"kind": "dialing", "providerEventId": "e", "at": -1}, "at"),
        (
            "voiceAgent.recordDelegationEvent",
            {"kind": "outcome", "providerEventId": "e", "at": 1, "outcome": {"status": "great"}},
            "status",
        ),
        (
            "voiceAgent.recordDelegationEvent",
            {"kind": "transcript_turn", "providerEventId": "e", "at": 1, "turn": {"speaker": "agent", "text": "a\x00"}},
            "text",
        ),
    ],
)
def test_bad_input_is_bad_request(services, member, path, body, field):
    d = _delegate(member, _case(services, member)).data["id"]
    key = "caseId" if path.endswith("createDelegation") else "delegationId"
    result = member.rpc.mutation(path, {key: d if key == "delegationId" else _case(services, member), **body})
    assert result.code == "BAD_REQUEST", result.body
    assert field in result.error["message"] or any(field in str(i["path"]) for i in result.error["data"]["issues"])


def test_other_tenants_delegations_and_simulations_are_not_found(services, make_member, member):
    intruder = make_member(role="admin")
    intruder.rpc.mutation("hospitalVoice.updateSettings", {"npi": NPI, "tin": TIN}).data
    case_id = _case(services, member)
    d = _delegate(member, case_id).data["id"]
    sim_target = _delegate(member, case_id).data["id"]
    sim = member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": sim_target}).data
    assert _delegate(intruder, case_id).code == "NOT_FOUND"
    assert intruder.rpc.mutation("voiceAgent.runSimulation", {"delegationId": d}).code == "NOT_FOUND"
    assert _event(intruder, d, "x-1", "dialing").code == "NOT_FOUND"
    assert intruder.rpc.mutation("voiceAgent.cancelDelegation", {"id": d}).code == "NOT_FOUND"
    assert intruder.rpc.query("voiceAgent.getSimulation", {"id": sim["id"]}).code == "NOT_FOUND"
    assert intruder.rpc.query("voiceAgent.listDelegations", {}).data["items"] == []
    assert intruder.rpc.query("voiceAgent.listSimulations", {}).data["items"] == []
    assert intruder.rpc.query("voiceAgent.listDelegations", {"caseId": case_id}).data["items"] == []
    # the intruder's event ids live in their own namespace: the same id is no conflict for the owner
    own = _delegate(intruder, _case(services, intruder)).data["id"]
    assert _event(intruder, own, "shared-1", "dialing").data["duplicate"] is False
    assert _event(member, d, "shared-1", "dialing").data["duplicate"] is False
    assert member.rpc.query("voiceAgent.getSimulation", {"id": 2**62}).code == "NOT_FOUND"


def test_read_only_roles_cannot_delegate_or_simulate(services, make_member, member):
    auditor = make_member(role="auditor")
    case_id = make_case(services, auditor.organization_id, auditor.client_id)
    assert _delegate(auditor, case_id).code == "FORBIDDEN"
    assert auditor.rpc.mutation("voiceAgent.runSimulation", {"delegationId": 1}).code == "FORBIDDEN"


@pytest.mark.parametrize("seed", [3, 21, 555])
def test_no_phi_in_stored_transcripts_or_the_audit_log(services, member, seed):
    case_id = _case(services, member)
    d = _delegate(member, case_id).data["id"]
    member.rpc.mutation("voiceAgent.runSimulation", {"delegationId": d, "seed": seed}).data
    scn = ivr.scenario(seed, "none", "claim_status", "ACME HEALTH")
    with services.database.transaction() as db:
        stored = [
            str(row.transcript) + str(row.timeline)
            for model in (VoiceDelegation, VoiceSimulation)
            for row in db.scalars(select(model).where(model.case_id == case_id))
        ]
        audit = " ".join(
            str(vars(r))
            for r in db.scalars(select(AuditEvent).where(AuditEvent.organization_id == member.organization_id))
        )
    assert len(stored) == 2
    for text in stored:
        assert "[NAME]" in text and "[DOB]" in text and "[MEMBER-ID]" in text
        for secret in (scn.patient_name, *scn.patient_name.split(), scn.patient_dob, scn.member_id):
            assert secret not in text
    for secret in (scn.patient_name, scn.member_id, "PCN-VOICE-1", "ICN-5566"):
        assert secret not in audit
