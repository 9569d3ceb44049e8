"""How much work a case still needs before its deadline, and how risky the gap is (pure, no I/O).

The work a case still needs depends on its state: ``WORK_STEPS`` lists the steps left in each
working state and ``STEP_DAYS`` how many business days each step takes (planning estimates, data).
Slack = business days left until the deadline - business days of work left; the lower, the riskier.

Steps a case already did are not counted again: ``steps_done`` says which from what the case's
records show (evidence attached, a draft, an approval, an assembled or submitted appeal packet;
``deadline_risk.service.completed_steps`` reads them) and ``remaining_work_days`` leaves them out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from api.core.business_calendar import business_days_between

STEP_DAYS: dict[str, int] = {
    "triage": 1,
    "evidence": 3,
    "draft": 2,
    "approval": 1,
    "submission": 1,
}
WORK_STEPS: dict[str, tuple[str, ...]] = {
    "open": ("triage", "evidence", "draft", "approval", "submission"),
    "triaged": ("evidence", "draft", "approval", "submission"),
    "in_appeal": ("approval", "submission"),
    "awaiting_payer": (),
}
RISK_STATES = frozenset(WORK_STEPS)

Band = Literal["missed", "critical", "high", "medium", "low", "no_deadline"]
BANDS: tuple[Band, ...] = ("missed", "critical", "high", "medium", "low", "no_deadline")
#: upper bounds of slack (business days, inclusive) per band, checked in order
BAND_LIMITS: tuple[tuple[Band, int], ...] = (("critical", -1), ("high", 2), ("medium", 10))

Horizon = Literal["overdue", "within_7_days", "within_30_days", "later", "no_deadline"]
HORIZONS: tuple[Horizon, ...] = ("overdue", "within_7_days", "within_30_days", "later", "no_deadline")


@dataclass(frozen=True, slots=True)
class Risk:
    business_days_left: int | None
    work_days_needed: int
    slack: int | None
    band: Band


@dataclass(frozen=True, slots=True)
class WorkDone:
    """What a case's records show (one flag per record kind)."""

    evidence: bool = False  # an evidence document attached to the case (not purged)
    draft: bool = False  # a draft not discarded
    approved: bool = False  # a draft approved, or an approval request approved (or used)
    assembled: bool = False  # an appeal packet assembled (its letter and evidence are in it)
    submitted: bool = False  # an appeal packet submitted to the payer (or further along)


def steps_done(work: WorkDone) -> frozenset[str]:
    """The ``STEP_DAYS`` steps a case's records show as done. A packet holds the letter and the evidence,
    so an assembled packet means both are done; a submitted one means every step up to submission."""
    done: set[str] = set()
    if work.evidence or work.assembled or work.submitted:
        done.add("evidence")
    if work.draft or work.approved or work.assembled or work.submitted:
        done.add("draft")
    if work.approved or work.submitted:
        done.add("approval")
    if work.submitted:
        done.add("submission")
    return frozenset(done)


def remaining_work_days(state: str, completed: frozenset[str] = frozenset()) -> int:
    """Business days of work a case in ``state`` still needs, without the ``completed`` steps."""
    return sum(STEP_DAYS[step] for step in WORK_STEPS.get(state, ()) if step not in completed)


def band_for(slack: int, overdue: bool) -> Band:
    if overdue:
        return "missed"
    for band, limit in BAND_LIMITS:
        if slack <= limit:
            return band
    return "low"


def assess(state: str, due_on: date | None, as_of: date, completed: frozenset[str] = frozenset()) -> Risk:
    """The risk of one case at ``as_of``; a case without a deadline has no slack."""
    work = remaining_work_days(state, completed)
    if due_on is None:
        return Risk(None, work, None, "no_deadline")
    left = business_days_between(as_of, due_on)
    slack = left - work
    return Risk(left, work, slack, band_for(slack, due_on < as_of))


def horizon_for(due_on: date | None, as_of: date) -> Horizon:
    """Calendar-day horizon of a deadline: overdue, due within 7 or 30 days, or later."""
    if due_on is None:
        return "no_deadline"
    days = (due_on - as_of).days
    if days < 0:
        return "overdue"
    if days <= 7:
        return "within_7_days"
    return "within_30_days" if days <= 30 else "later"
