"""The automated tasks a client's automation can be paused for (pure, no I/O).

The automation packages (aiPlatform) take their task names from here, so a pause can never name a
task that does not exist and a task can never escape its pause. ``CLIENT_WIDE`` is the stored scope of
a pause of every task of the client.
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
