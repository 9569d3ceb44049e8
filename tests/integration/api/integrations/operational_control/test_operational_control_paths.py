"""operationalControl honoured by every automated path, tried one by one on SQLite and PostgreSQL.

For each name of `AUTOMATED_PATHS` a driver sets the path up, then: pause (client-wide, or the
path's own task while another task is paused too), try the path, see that nothing automatic happened
(state unchanged, no external effect recorded) and the refusal names the pause (aiPlatform queues
instead: never `applied`); resume, try again, see it work. A path added to the registry without a
driver here fails `test_every_automated_path_has_a_driver`.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import func, select

from api.automation.ai_platform.models import AiExecution
from api.automation.voice_agent.models import VoiceDelegation, VoiceDelegationEvent, VoiceSimulation
from api.denials.approved_actions.models import ActionExecution, ApprovedAction
from api.denials.cases.models import CaseEvent, DenialCase
from api.denials.payer_interactions.models import PayerInteraction
from api.integrations.integration_control.models import IntegrationRun
from api.integrations.operational_control.scopes import AUTOMATED_PATHS, PAUSABLE, TASKS, paused_message
from api.platform.activation_governance.gates import GATE_NAMES
from tests.support.approval_team import new_draft
from tests.support.denial_case_rows import Colleague, add_colleague, make_case

FINGERPRINT = "SHA256:" + base64.b64encode(hashlib.sha256(b"host key").digest()).decode().rstrip("=")
CORRECTION = "CLM*4471*1250.00***11:B:7\nSV1*HC:99214:25*1250.00*UN*1\n"
AUTO = {
    "mode": "auto_below_threshold",
    "minConfidence": 0.0,
    "maxAmountAtStake": "5000.00",
    "minEvaluationAccuracy": 0.0,
    "minEvaluatedSamples": 0,
    "reason": "pilot of automatic application",
}


@dataclass
class World:
    services: Any
    owner: Any  # tests.conftest.Member, admin: may resume
    manager: Colleague  # approves what the owner asks for

    def case(self, **values: Any) -> int:
        fields = {"carc": "197", "group_code": "CO", **values}
        return make_case(self.services, self.owner.organization_id, self.owner.client_id, **fields)

    def count(self, model: Any, *where: Any) -> int:
        with self.services.database.transaction() as db:
            return int(db.scalar(select(func.count()).select_from(model).where(*where)) or 0)


@pytest.fixture
def world(services, rpc, make_member) -> World:
    owner = make_member(role="admin")
    for gate in GATE_NAMES:  # a live client: resuming is allowed
        owner.rpc.mutation(
            "activationGovernance.recordGate", {"gate": gate, "passed": True, "evidence": "checked with the client"}
        ).data
    return World(services, owner, add_colleague(services, rpc, owner, role="manager"))


# --- one driver per automated path ------------------------------------------------------------------


class AiApply:
    """aiPlatform.execute under an automatic policy: paused, the result is queued, never applied."""

    queues = True

    def __init__(self, task: str) -> None:
        self.task = task

    def setup(self, w: World) -> dict[str, Any]:
        w.owner.rpc.mutation("aiPlatform.recordAutonomyPolicy", {"task": self.task, **AUTO}).data
        return {"case": w.case()}

    def attempt(self, w: World, h: dict[str, Any]) -> list[Any]:
        return [w.owner.rpc.mutation("aiPlatform.execute", {"task": self.task, "caseId": h["case"]})]

    def observe(self, w: World, h: dict[str, Any]) -> Any:
        with w.services.database.transaction() as db:
            category = db.scalar(select(DenialCase.denial_category).where(DenialCase.id == h["case"]))
            applied = db.scalar(
                select(func.count()).where(AiExecution.case_id == h["case"], AiExecution.decision == "applied")
            )
        events = w.count(CaseEvent, CaseEvent.case_id == h["case"], CaseEvent.kind == "ai_applied")
        return category, applied, events

    def worked(self, w: World, h: dict[str, Any], answers: list[Any]) -> None:
        assert answers[0].data["decision"] == "applied", answers[0].data["reasons"]
        assert w.count(CaseEvent, CaseEvent.case_id == h["case"], CaseEvent.kind == "ai_applied") == 1


class PayerCall:
    """The voice agent placing a call: a simulation, and a provider's dialing event."""

    queues = False

    def setup(self, w: World) -> dict[str, Any]:
        w.owner.rpc.mutation("hospitalVoice.updateSettings", {"npi": "1234567893", "tin": "123456789"}).data
        case_id = w.case()
        ids = [
            w.owner.rpc.mutation("voiceAgent.createDelegation", {"caseId": case_id, "goal": "claim_status"}).data["id"]
            for _ in range(2)
        ]
        return {"case": case_id, "simulated": ids[0], "provider": ids[1]}

    def attempt(self, w: World, h: dict[str, Any]) -> list[Any]:
        event = {"delegationId": h["provider"], "providerEventId": f"dial-{h['provider']}", "kind": "dialing", "at": 0}
        return [
            w.owner.rpc.mutation("voiceAgent.runSimulation", {"delegationId": h["simulated"], "seed": 7}),
            w.owner.rpc.mutation("voiceAgent.recordDelegationEvent", event),
        ]

    def observe(self, w: World, h: dict[str, Any]) -> Any:
        with w.services.database.transaction() as db:
            states = db.execute(
                select(VoiceDelegation.id, VoiceDelegation.state, VoiceDelegation.placed_by)
                .where(VoiceDelegation.case_id == h["case"])
                .order_by(VoiceDelegation.id)
            ).all()
        ids = (h["simulated"], h["provider"])
        return (
            [tuple(r) for r in states],
            w.count(VoiceSimulation, VoiceSimulation.case_id == h["case"]),
            w.count(VoiceDelegationEvent, VoiceDelegationEvent.delegation_id.in_(ids)),
            w.count(PayerInteraction, PayerInteraction.case_id == h["case"]),
        )

    def worked(self, w: World, h: dict[str, Any], answers: list[Any]) -> None:
        simulated, dialing = (a.data for a in answers)
        assert simulated["delegationId"] == h["simulated"] and simulated["finalState"]
        assert (dialing["duplicate"], dialing["delegation"]["state"]) == (False, "dialing")


class IntegrationRunStart:
    """integrationControl.start: a file transfer with the integration's stored credentials."""

    queues = False

    def setup(self, w: World) -> dict[str, Any]:
        config = {
            "kind": "clearinghouse",
            "host": "sftp.clearinghouse.example",
            "port": 22,
            "username": "hospital1",
            "outboundPath": "/outbound/837",
            "inboundPath": "/inbound",
            "hostKeyFingerprint": FINGERPRINT,
            "password": "pw-pause-paths-never-shown",
        }
        created = w.owner.rpc.mutation("integrationControl.create", {"name": "Feed", "config": config}).data
        assert w.owner.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data["passed"]
        w.manager.rpc.mutation("integrationControl.approve", {"id": created["id"]}).data
        w.owner.rpc.mutation("integrationControl.activate", {"id": created["id"]}).data
        return {"integration": created["id"]}

    def attempt(self, w: World, h: dict[str, Any]) -> list[Any]:
        return [w.owner.rpc.mutation("integrationControl.start", {"id": h["integration"]})]

    def observe(self, w: World, h: dict[str, Any]) -> Any:
        return w.count(IntegrationRun, IntegrationRun.integration_id == h["integration"])

    def worked(self, w: World, h: dict[str, Any], answers: list[Any]) -> None:
        assert answers[0].data["state"] == "running"
        assert self.observe(w, h) == 1


class ExecuteAction:
    """approvedActions.executeSandbox: an approved payload handed to its external target."""

    queues = False

    def setup(self, w: World) -> dict[str, Any]:
        case_id = w.case()
        draft = new_draft(w.owner.rpc, case_id, kind="corrected_claim", content=CORRECTION)
        body = {"caseId": case_id, "kind": "send_corrected_claim", "payloadRef": f"draft:{draft['id']}"}
        action = w.owner.rpc.mutation("approvedActions.request", body).data
        decided = w.manager.rpc.mutation(
            "approvedActions.decide", {"id": action["id"], "decision": "approve", "reason": "matches the 837"}
        ).data
        assert decided["state"] == "approved"
        return {"action": action["id"]}

    def attempt(self, w: World, h: dict[str, Any]) -> list[Any]:
        return [w.owner.rpc.mutation("approvedActions.executeSandbox", {"id": h["action"]})]

    def observe(self, w: World, h: dict[str, Any]) -> Any:
        with w.services.database.transaction() as db:
            state = db.scalar(select(ApprovedAction.state).where(ApprovedAction.id == h["action"]))
        return state, w.count(ActionExecution, ActionExecution.action_id == h["action"])

    def worked(self, w: World, h: dict[str, Any], answers: list[Any]) -> None:
        assert answers[0].data["state"] == "executed"
        assert self.observe(w, h) == ("executed", 1)


DRIVERS: dict[str, Any] = {
    **{task: AiApply(task) for task in TASKS},
    "payer_call": PayerCall(),
    "integration_run": IntegrationRunStart(),
    "execute_action": ExecuteAction(),
}


def test_every_automated_path_has_a_driver():
    assert DRIVERS.keys() == AUTOMATED_PATHS.keys()
    assert tuple(AUTOMATED_PATHS) == PAUSABLE


# --- trying each ------------------------------------------------------------------------------------


def _pause(w: World, task: str | None) -> None:
    body = {"reason": "incident 7 under review"} | ({"task": task} if task else {})
    w.owner.rpc.mutation("operationalControl.pause", body).data


def _resume(w: World, task: str | None) -> None:
    body = {"reason": "incident 7 closed"} | ({"task": task} if task else {})
    w.owner.rpc.mutation("operationalControl.resume", body).data


def _assert_stopped(driver: Any, path: str, answers: list[Any], reason: str) -> None:
    for answer in answers:
        if driver.queues:
            assert answer.code is None and answer.data["decision"] == "queued", answer.data
            assert reason in answer.data["reasons"]
        else:
            assert answer.code == "PRECONDITION_FAILED", (answer.code, answer.error)
            assert answer.error["message"] == paused_message(path)
            assert (answer.error["data"]["task"], answer.error["data"]["pauses"]) == (path, [reason])


@pytest.mark.parametrize("path", list(DRIVERS))
def test_a_client_wide_pause_stops_the_path_and_resuming_lets_it_run(world, path):
    driver = DRIVERS[path]
    handle = driver.setup(world)
    before = driver.observe(world, handle)
    _pause(world, None)
    state = world.owner.rpc.query("operationalControl.state", {}).data
    assert all(p["paused"] and p["reasons"] == ["client_paused"] for p in state["automatedPaths"])
    _assert_stopped(driver, path, driver.attempt(world, handle), "client_paused")
    assert driver.observe(world, handle) == before  # nothing automatic happened, nothing left the platform
    _assert_stopped(driver, path, driver.attempt(world, handle), "client_paused")  # still stopped, still nothing
    assert driver.observe(world, handle) == before
    _resume(world, None)
    driver.worked(world, handle, driver.attempt(world, handle))  # the same step, retried: nothing was lost


@pytest.mark.parametrize("path", list(DRIVERS))
def test_the_paths_own_pause_stops_it_and_another_tasks_pause_does_not(world, path):
    driver = DRIVERS[path]
    other = next(t for t in PAUSABLE if t != path)
    handle = driver.setup(world)
    before = driver.observe(world, handle)
    _pause(world, other)
    _pause(world, path)
    state = world.owner.rpc.query("operationalControl.state", {}).data
    paused = {p["task"] for p in state["automatedPaths"] if p["paused"]}
    assert paused == {path, other} and state["clientPaused"] is False
    _assert_stopped(driver, path, driver.attempt(world, handle), "task_paused")
    assert driver.observe(world, handle) == before
    _resume(world, path)  # the other task stays paused: it does not hold this path back
    driver.worked(world, handle, driver.attempt(world, handle))


def test_a_pause_is_the_clients_own(make_member, world):
    """Attack on tenancy: another client's pause of every task stops nothing here."""
    other = make_member(role="admin")
    other.rpc.mutation("operationalControl.pause", {"reason": "their incident"}).data
    driver = DRIVERS["execute_action"]
    handle = driver.setup(world)
    driver.worked(world, handle, driver.attempt(world, handle))


def test_state_lists_every_automated_path_and_pause_takes_any_of_them(world):
    state = world.owner.rpc.query("operationalControl.state", {}).data
    assert [p["task"] for p in state["automatedPaths"]] == list(AUTOMATED_PATHS)
    assert not any(p["paused"] for p in state["automatedPaths"])
    for task in ("payer_call", "integration_run", "execute_action"):
        _pause(world, task)
    assert world.owner.rpc.query("operationalControl.state", {}).data["pausedTasks"] == [
        "execute_action",
        "integration_run",
        "payer_call",
    ]
    bad = world.owner.rpc.mutation("operationalControl.pause", {"task": "send_fax", "reason": "stop it"})
    assert bad.code == "BAD_REQUEST" and "task" in str(bad.error)


def test_a_call_already_connected_keeps_reporting_while_paused(world):
    """What a call already placed learns is data: a pause refuses new calls, not their reports."""
    driver = PayerCall()
    handle = driver.setup(world)
    dialing = {"delegationId": handle["provider"], "providerEventId": "d-1", "kind": "dialing", "at": 0}
    world.owner.rpc.mutation("voiceAgent.recordDelegationEvent", dialing).data
    _pause(world, "payer_call")
    connected = {**dialing, "providerEventId": "c-1", "kind": "connected", "at": 3}
    out = world.owner.rpc.mutation("voiceAgent.recordDelegationEvent", connected).data
    assert out["delegation"]["state"] == "in_call"
    again = world.owner.rpc.mutation("voiceAgent.recordDelegationEvent", dialing).data
    assert again["duplicate"] is True  # a redelivered event is answered, never refused
