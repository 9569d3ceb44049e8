"""The automated tasks a client's automation can be paused for (pure, no I/O).

The automation packages take their task names from here, so a pause can never name a task that does
not exist and a task can never escape its pause. ``CLIENT_WIDE`` is the stored scope of a pause of
every task of the client.

Two vocabularies, one pause:

- ``AutomationTask`` / ``TASKS``: the AI tasks (aiPlatform, aiGovernance and their schemas list them);
- ``AutomatedPath``: the other places where the platform acts for a client by itself.

``PausableTask`` / ``AUTOMATED_PATHS`` is every name a pause may carry, each with what it stops.

Inventory of the automated paths (a path is "automated" when the platform acts for the client without
a person deciding that specific action); every path marked paused consults the pause, client-wide or
its task's, at the moment it would act:

| path | paused? | task | how |
|---|---|---|---|
| aiPlatform.execute applying a result (auto_below_threshold) | yes | each AI task | decided `queued` (never `applied`): the result waits for a person |
| voiceAgent.runSimulation (the agent plays a payer call) | yes | `payer_call` | PRECONDITION_FAILED, the delegation stays `created` |
| voiceAgent.recordDelegationEvent `dialing` (the agent starts a payer call) | yes | `payer_call` | PRECONDITION_FAILED, nothing recorded; the provider resends after resume |
| voiceAgent events of a call already connected (connected, turns, outcome, failed) | no | - | what a call already placed learned is data |
| voiceAgent.createDelegation | no | - | a person asks for a call; it waits in `created` (the queue) |
| integrationControl.start (a transfer with stored credentials) | yes | `integration_run` | PRECONDITION_FAILED, no run row |
| integrationControl.record / cancel | no | - | the results of a run already started are data; stopping is always allowed |
| approvedActions.executeSandbox (a payload handed to a clearinghouse / payer portal) | yes | `execute_action` | PRECONDITION_FAILED, the action stays `approved` |
| appeal packet submitted by an executed action (`action_executed`) | yes | `execute_action` | never reached: the execution is refused first |
| comms.send | no | - | a person writes and sends that message by hand |
| ingestion parse job, batch intake listeners (claims, cases, deadlines, worklist scores) | no | - | the platform must keep seeing data |
| Dagster folder-drop / confirmed-batch sensors, nightly rebuild, `pipeline.run` job | no | - | data ingestion and marts |
| `notifications.deadlines` job, assignment notices | no | - | warnings to staff inside the platform |
| `evidence.purge` job | no | - | a legal retention duty |
"""

from __future__ import annotations

from typing import Literal, get_args

AutomationTask = Literal[
    "classify_denial",
    "draft_appeal_letter",
    "summarise_evidence",
    "predict_overturn",
    "suggest_next_action",
]
TASKS: tuple[str, ...] = get_args(AutomationTask)

AutomatedPath = Literal["payer_call", "integration_run", "execute_action"]
PATHS: tuple[str, ...] = get_args(AutomatedPath)

PausableTask = Literal[AutomationTask, AutomatedPath]
PAUSABLE: tuple[str, ...] = get_args(PausableTask)

#: Every name a pause may carry -> what pausing it stops.
AUTOMATED_PATHS: dict[str, str] = {
    **{task: f"aiPlatform.execute applies a {task} result automatically (it is queued instead)" for task in TASKS},
    "payer_call": "The voice agent places a payer call (voiceAgent.runSimulation, a provider's dialing event)",
    "integration_run": "An integration transfers files with its stored credentials (integrationControl.start)",
    "execute_action": "An approved action is handed to its external target (approvedActions.executeSandbox)",
}

CLIENT_WIDE = "*"

#: Reasons a decision names when automation is paused.
CLIENT_PAUSED = "client_paused"
TASK_PAUSED = "task_paused"


def scope_of(task: str | None) -> str:
    """The stored scope of a pause: the task, or ``CLIENT_WIDE`` for every task."""
    return CLIENT_WIDE if task is None else task


def pause_reasons(paused_scopes: set[str] | frozenset[str], task: str) -> list[str]:
    """Why `task` is paused given the client's paused scopes (empty: it is not)."""
    reasons = []
    if CLIENT_WIDE in paused_scopes:
        reasons.append(CLIENT_PAUSED)
    if task in paused_scopes:
        reasons.append(TASK_PAUSED)
    return reasons


def paused_message(task: str) -> str:
    """What a refused automatic step says (never PHI: a task name only)."""
    return f"Automation is paused for this client: {task} — resume it in operationalControl"
