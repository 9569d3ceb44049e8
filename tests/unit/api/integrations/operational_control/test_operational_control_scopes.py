"""The pause vocabulary: the AI tasks kept as they are, the other automated paths added, one registry."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.integrations.operational_control.scopes import (
    AUTOMATED_PATHS,
    CLIENT_PAUSED,
    CLIENT_WIDE,
    PATHS,
    PAUSABLE,
    TASK_PAUSED,
    TASKS,
    pause_reasons,
    paused_message,
    scope_of,
)


def test_the_ai_tasks_are_unchanged_and_every_pausable_name_is_registered_with_a_description():
    assert TASKS == (
        "classify_denial",
        "draft_appeal_letter",
        "summarise_evidence",
        "predict_overturn",
        "suggest_next_action",
    )
    assert PATHS == ("payer_call", "integration_run", "execute_action")
    assert PAUSABLE == TASKS + PATHS == tuple(AUTOMATED_PATHS)
    assert all(len(text) > 20 for text in AUTOMATED_PATHS.values())
    assert CLIENT_WIDE not in AUTOMATED_PATHS and all(len(name) <= 40 for name in PAUSABLE)  # the scope column


@given(st.sets(st.sampled_from((*PAUSABLE, CLIENT_WIDE))), st.sampled_from(PAUSABLE))
def test_a_task_is_paused_exactly_when_the_client_or_the_task_is(scopes, task):
    reasons = pause_reasons(scopes, task)
    assert (CLIENT_PAUSED in reasons) == (CLIENT_WIDE in scopes)
    assert (TASK_PAUSED in reasons) == (task in scopes)
    assert bool(reasons) == bool({CLIENT_WIDE, task} & scopes)


def test_the_refusal_names_the_task_and_where_to_resume():
    assert paused_message("payer_call") == (
        "Automation is paused for this client: payer_call — resume it in operationalControl"
    )
    assert scope_of(None) == CLIENT_WIDE and scope_of("execute_action") == "execute_action"
