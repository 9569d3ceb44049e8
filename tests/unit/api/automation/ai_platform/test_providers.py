"""The offline provider's tasks (pure): deterministic results with a confidence in [0, 1]."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from api.automation.ai_platform.providers import (
    PROVIDERS,
    TASK_RUNNERS,
    CaseInputs,
    EvidenceText,
    OverturnEstimate,
    provider_for,
)
from api.core.errors import PreconditionFailed
from api.denials.appeal_assembly.letter import ClaimFacts
from api.integrations.operational_control.scopes import TASKS

TODAY = date(2026, 3, 1)


def facts(**changes) -> ClaimFacts:
    values = {
        "payer": "ACME",
        "claim_key": "PCN-1",
        "payer_claim_number": None,
        "service_date": None,
        "remittance_date": None,
        "billed_amount": None,
        "amount_at_stake": Decimal("100.00"),
        "carc": "197",
        "rarcs": (),
        "group_code": "CO",
        "denial_category": None,
        **changes,
    }
    return ClaimFacts(**values)


def inputs(state="open", due=None, evidence=(), overturn=None, **fact_changes) -> CaseInputs:
    return CaseInputs(1, state, "ACME", facts(**fact_changes), due, TODAY, overturn, tuple(evidence))


def test_every_task_has_a_runner_and_only_offline_is_configured():
    assert set(TASK_RUNNERS) == set(TASKS)
    assert provider_for("offline") is PROVIDERS["offline"]
    with pytest.raises(PreconditionFailed, match="not configured"):
        provider_for("gpt")


def test_classification_comes_from_the_reference_seeds():
    run = PROVIDERS["offline"].run
    assert (run("classify_denial", inputs()).label, run("classify_denial", inputs()).confidence) == (
        "authorization",
        0.95,
    )
    pr = run("classify_denial", inputs(group_code="PR"))
    assert (pr.label, pr.confidence) == ("patient_responsibility", 0.99)
    assert run("classify_denial", inputs(carc="ZZZ9")).confidence == 0.2
    assert run("classify_denial", inputs(carc=None)).confidence == 0.0


@pytest.mark.parametrize(
    ("state", "days", "category", "action"),
    [
        ("closed", None, None, "none"),
        ("won", None, None, "close_case"),
        ("open", -1, None, "review_write_off"),
        ("open", 7, "coding", "escalate"),
        ("awaiting_payer", 30, "coding", "follow_up_with_payer"),
        ("in_appeal", 30, "coding", "submit_appeal"),
        ("open", 30, None, "classify_denial"),
        ("triaged", None, "coding", "draft_appeal"),
    ],
)
def test_next_action_from_state_and_deadline(state, days, category, action):
    due = None if days is None else TODAY + timedelta(days=days)
    result = PROVIDERS["offline"].run("suggest_next_action", inputs(state, due, denial_category=category))
    assert result.label == action and 0 <= result.confidence <= 1


def test_prediction_letter_and_summary():
    run = PROVIDERS["offline"].run
    p = run("predict_overturn", inputs(overturn=OverturnEstimate(0.3, 0.1, 0.5, "category", 12)))
    assert (p.label, p.confidence, p.output["decidedAppeals"]) == ("upheld", 0.7, 12)
    docs = [
        EvidenceText("medical_record", "Chart", "Patient [NAME] seen. Long text."),
        EvidenceText("other", "Scan", None),
    ]
    s = run("summarise_evidence", inputs(evidence=docs))
    assert s.confidence == 0.45 and s.output["documents"][0]["gist"] == "Patient [NAME] seen."
    assert run("summarise_evidence", inputs()).confidence == 0.0
    letter = run("draft_appeal_letter", inputs(evidence=docs))
    assert "ACME" in letter.output["text"] and letter.output["evidenceCount"] == 2
    assert letter == run("draft_appeal_letter", inputs(evidence=docs))  # deterministic
