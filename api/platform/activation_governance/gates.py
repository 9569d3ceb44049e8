"""The go-live gates, as data, and what their recordings add up to (pure, no I/O).

Each gate is recorded passed or not, with evidence, as often as needed; the latest recording of a gate
is its state. Automation may be switched on only when every gate's latest recording passed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

GateState = Literal["passed", "failed", "not_recorded"]

GATES: dict[str, str] = {
    "data_validated": "The client's claim and remittance files were loaded and their figures checked against its own books",
    "payer_rules_reviewed": "Payer rules, aliases and contract terms were reviewed with the client",
    "users_trained": "The client's users were trained on the denial and appeal workflows",
    "integrations_tested": "Every connector and integration of the client delivered test data end to end",
    "pipeline_dry_run_clean": "A full pipeline run on the client's data finished without quarantine or failed checks",
}
GATE_NAMES: tuple[str, ...] = tuple(GATES)


def latest(recordings: Iterable[tuple[str, bool]]) -> dict[str, bool]:
    """Gate -> its latest `passed`, from (gate, passed) recordings oldest first; unknown gates ignored."""
    state: dict[str, bool] = {}
    for gate, passed in recordings:
        if gate in GATES:
            state[gate] = passed
    return state


def state_of(latest_passed: Mapping[str, bool], gate: str) -> GateState:
    if gate not in latest_passed:
        return "not_recorded"
    return "passed" if latest_passed[gate] else "failed"


def blockers(latest_passed: Mapping[str, bool]) -> list[str]:
    """The gates whose latest recording did not pass (or that were never recorded), in declared order."""
    return [gate for gate in GATE_NAMES if not latest_passed.get(gate, False)]
