"""Why revenue turned out not to be collectable: the fixed vocabulary, the rule naming each item's reason,
and the one merge of the two sources (pure, no I/O).

Sources:
- ``remittance``: the marts' final denial write-off (HFMA MAP Key "Final Denials Write-off"): a claim
  initially denied, never overturned, whose appeal window (the longest first-level window of the
  payer_appeal_limits seed, 180 days) closed by the snapshot's build date
  (fct_claim_reconciliation.write_off_date); the amount is the first decision's provider-denied amount
  (payer denials not shifted to the patient), as fct_kpis_monthly counts it.
- ``case``: a denial case whose current decision is lost or written off (cases.service.lost_cases): the
  amount at stake it did not recover, when it was decided.

The same money is counted once: when both know a claim (same claim key), the remittance rule wins and the
claim's cases add nothing, as in fct_kpis_monthly's final_denial_write_off_amount, so the totals here agree
with analytics' KPI over the same data.

Reasons, first that applies:
1. ``timely_filing_missed``: the denial's category is timely filing (CARC 29: "Time limit for filing has
   expired"): the claim was filed too late, there was nothing to appeal on the merits.
2. ``non_covered``: a non-covered service denied under group CO (X12 CAS group CO, contractual obligation:
   the provider may not bill the patient), so the provider absorbs it.
3. remittance source: ``appeal_window_closed`` (no appeal overturned it before the window closed).
4. case source: ``appeal_lost`` when the last recorded payer decision is lost (or a person decided the case
   lost); ``appeal_window_closed`` when a person wrote it off after its appeal deadline passed with no
   appeal decided; else ``written_off`` (a person's write-off, with the reason they gave).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Literal

Reason = Literal["appeal_window_closed", "appeal_lost", "timely_filing_missed", "non_covered", "written_off"]
Source = Literal["remittance", "case"]
REASONS: tuple[Reason, ...] = (
    "appeal_window_closed",
    "appeal_lost",
    "timely_filing_missed",
    "non_covered",
    "written_off",
)


@dataclass(frozen=True)
class Item:
    """One invalidated amount: which claim and payer, how much, when, why and from where."""

    claim_key: str
    payer_key: str
    amount: Decimal
    on: date
    reason: Reason
    source: Source
    case_id: int | None = None
    carc: str | None = None
    note: str | None = None  # the person's own reason for a write-off


def _by_category(category: str | None, group_code: str | None) -> Reason | None:
    if category == "timely_filing":
        return "timely_filing_missed"
    if category == "non_covered" and (group_code or "").upper() == "CO":
        return "non_covered"
    return None


def remittance_reason(category: str | None, group_code: str | None) -> Reason:
    """The reason of a final denial write-off of the remittance rule."""
    return _by_category(category, group_code) or "appeal_window_closed"


def case_reason(
    category: str | None,
    group_code: str | None,
    *,
    decision: str,
    last_outcome: str | None,
    due_on: date | None,
    decided_on: date,
) -> Reason:
    """The reason of a case decided lost or written off (see the module's rule 4)."""
    found = _by_category(category, group_code)
    if found is not None:
        return found
    if last_outcome == "lost" or decision == "lost":
        return "appeal_lost"
    if last_outcome is None and due_on is not None and decided_on > due_on:
        return "appeal_window_closed"
    return "written_off"


def merge(remittance: Iterable[Item], cases: Iterable[Item], written_off_claims: set[str]) -> list[Item]:
    """Both sources, each amount once: a case item on a claim the remittance rule writes off (in any month:
    `written_off_claims`) is dropped. Newest first, then claim key, source and case id (a stable order to page)."""
    kept = [*remittance, *(c for c in cases if c.claim_key not in written_off_claims)]
    kept.sort(key=lambda i: (i.claim_key, i.source, i.case_id or 0))
    kept.sort(key=lambda i: i.on, reverse=True)
    return kept


@dataclass
class Tally:
    items: int = 0
    amount: Decimal = Decimal("0.00")

    def add(self, item: Item) -> None:
        self.items += 1
        self.amount += item.amount


@dataclass(frozen=True)
class Summary:
    total: Tally
    by_reason: dict[str, Tally]
    by_payer: dict[str, Tally]
    by_month: dict[str, Tally]


def summarize(items: Iterable[Item]) -> Summary:
    """Counts and amounts over every item, by reason, by payer and by month ("YYYY-MM" of the day)."""
    total = Tally()
    by_reason: dict[str, Tally] = {}
    by_payer: dict[str, Tally] = {}
    by_month: dict[str, Tally] = {}
    for item in items:
        total.add(item)
        by_reason.setdefault(item.reason, Tally()).add(item)
        by_payer.setdefault(item.payer_key, Tally()).add(item)
        by_month.setdefault(f"{item.on.year:04d}-{item.on.month:02d}", Tally()).add(item)
    return Summary(total, by_reason, by_payer, by_month)
