"""From a decided appeal (or a case about to be appealed) to the model's features (pure, no I/O).

Choices, each documented because the model's meaning depends on them:

- Success: the payer's decision was ``won`` or ``partially_won`` (the overturn rate's numerator, HFMA
  MAP Keys "denials overturned"; the same set as the worklist's ``outcomes.rules.OVERTURNED``).
  ``withdrawn`` appeals were never decided and are not read at all.
- ``payer_key``: the payer's name trimmed and upper-cased (the marts' payer key).
- ``payer_class`` "unknown" when the case has none; a missing category, CARC (X12 835 CAS) is "(none)";
  ``rarc`` the first RARC of the case (X12 835 LQ / MIA / MOA order) or None.
- ``amount``: the case's amount at stake.
- ``age_days_at_action``: days from the remittance date (else the service date, else the day the case was
  opened) to the decision date. The platform records a submission date only for appeals sent through
  appealAssembly (``appeal_packets.submitted_at``), not for decisions recorded by hand, so one feature would
  mean two things across rows; the decision date is recorded for every outcome. At predict time the
  action is "now", so the age runs to today.
- ``evidence_completeness``: 0.0 for every row: NOT YET MEASURED. evidenceQuality's score lives in the
  evidence context, which intelligence may not use (docs/architecture.md, "Boundaries between contexts"),
  and it scores today's documents, not those on file when the appeal was sent. A constant contributes
  nothing (the standardiser maps it to 0).
- ``appeal_level`` the outcome's level; ``action`` "appeal-level-<level>".
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from api.intelligence.outcome_learning.model import Case, Outcome

SUCCESS_DECISIONS = frozenset({"won", "partially_won"})
MISSING = "(none)"
UNKNOWN_CLASS = "unknown"
NOT_MEASURED_EVIDENCE = 0.0
ACTION_PATTERN = r"^appeal-level-[1-9]$"
_ACTION = re.compile(ACTION_PATTERN)


def payer_key(payer: str) -> str:
    return payer.strip().upper()


def action_for(level: int) -> str:
    return f"appeal-level-{level}"


def level_of(action: str) -> int:
    """The appeal level an action names ("appeal-level-2" -> 2); ValueError for any other action."""
    if not _ACTION.match(action):
        raise ValueError(f"unknown action {action!r}: expected appeal-level-<1..9>")
    return int(action.rsplit("-", 1)[1])


def age_days(start: date, at: date) -> int:
    """Whole days from ``start`` to ``at``, never negative (a decision dated before its remittance is 0)."""
    return max(0, (at - start).days)


def case_features(
    *,
    payer: str,
    payer_class: str | None,
    category: str | None,
    carc: str | None,
    rarcs: tuple[str, ...] | list[str],
    amount_at_stake: Decimal,
    start: date,
    at: date,
    level: int,
) -> Case:
    """The features of a case acted on at ``at`` with an appeal of ``level`` (``start``: see the module)."""
    return Case(
        payer_key=payer_key(payer),
        payer_class=payer_class or UNKNOWN_CLASS,
        category=category or MISSING,
        carc=carc or MISSING,
        rarc=rarcs[0] if rarcs else None,
        amount=max(amount_at_stake, Decimal("0")),
        age_days_at_action=age_days(start, at),
        evidence_completeness=NOT_MEASURED_EVIDENCE,
        appeal_level=level,
        action=action_for(level),
    )


def outcome(case: Case, decided_on: date, decision: str) -> Outcome:
    return Outcome(
        payer_key=case.payer_key,
        payer_class=case.payer_class,
        category=case.category,
        carc=case.carc,
        rarc=case.rarc,
        amount=case.amount,
        age_days_at_action=case.age_days_at_action,
        evidence_completeness=case.evidence_completeness,
        appeal_level=case.appeal_level,
        action=case.action,
        decided_on=decided_on,
        success=decision in SUCCESS_DECISIONS,
    )
