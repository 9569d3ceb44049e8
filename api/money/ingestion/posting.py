"""What a confirmed batch posts: included valid rows -> financial entries.

Pure: row views in, entry plans out (the service writes them in one
transaction). The amounts always come from the file, so posted totals tie to
the parsed totals to the cent:

- 835 claim (CLP): a `payment` of CLP04 (skipped when a denied claim paid 0);
  each CAS amount as `denial` (denied claim CLP02=4, or a denial CARC),
  `patient_responsibility` (group PR) or `adjustment`.
- 835 reversal (CLP02=22): every amount posts as `reversal`, linked with
  `reverses_entry_id` to the original claim's matching entry when it was posted
  earlier (`link_reversals`); the corrected claim that follows posts normally.
- PLB: `provider_adjustment` with the PLB amount (positive reduces the payment).
- 837 claim / CSV claim: `charge`; CSV payment: `payment` (+ `adjustment`);
  CSV denial: `denial`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from pipelines.ingest.classify import Classification, UnknownGroupCodeError, classify_adjustment

REVERSAL_STATUS = "22"
DENIED_STATUS = "4"


@dataclass(frozen=True)
class RowView:
    row_id: int
    row_number: int
    entity: str
    data: dict[str, Any]
    parent_row_number: int | None = None


@dataclass
class EntryPlan:
    row_id: int
    entry_type: str
    component: str
    amount: Decimal
    claim_key: str | None = None
    payer_claim_number: str | None = None
    claim_status_code: str | None = None
    billed_amount: Decimal | None = None
    payer: str | None = None
    group_code: str | None = None
    carc: str | None = None
    rarcs: list[str] = field(default_factory=list)
    denial_category: str | None = None
    is_denial: bool = False
    service_date: date | None = None
    payment_date: date | None = None
    reference: str | None = None
    reverses_entry_id: int | None = None


Classifier = Callable[[str, str | None, Iterable[str]], Classification]


def _money(value: Any) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value)).quantize(Decimal("0.01"))


def _date(value: Any) -> date | None:
    return date.fromisoformat(value) if value else None


def _classify(
    classifier: Classifier, group: str | None, carc: str | None, rarcs: Iterable[str]
) -> Classification | None:
    if not group:
        return None
    try:
        return classifier(group, carc, list(rarcs))
    except UnknownGroupCodeError:
        return None


def _memoised(classifier: Classifier) -> Classifier:
    """A file repeats a few dozen (group, CARC, RARCs) combinations thousands of times."""
    cache: dict[tuple, Classification] = {}

    def classify(group: str, carc: str | None, rarcs: Iterable[str]) -> Classification:
        key = (group, carc, tuple(rarcs))
        if key not in cache:
            cache[key] = classifier(group, carc, list(key[2]))
        return cache[key]

    return classify


def plan_entries(rows: Iterable[RowView], classifier: Classifier = classify_adjustment) -> list[EntryPlan]:
    """Entry plans for rows that are already filtered to included, valid (or repaired) ones."""
    rows = list(rows)
    classifier = _memoised(classifier)
    claims = {r.row_number: r for r in rows if r.entity == "remittance_claim"}
    plans: list[EntryPlan] = []
    for row in rows:
        d = row.data
        if row.entity == "remittance_claim":
            status = d.get("claim_status_code")
            paid = _money(d.get("paid_amount")) or Decimal("0.00")
            if status == DENIED_STATUS and paid == 0:
                continue
            plans.append(
                EntryPlan(
                    row.row_id,
                    "reversal" if status == REVERSAL_STATUS else "payment",
                    "paid",
                    paid,
                    claim_key=d.get("patient_control_number"),
                    payer_claim_number=d.get("payer_claim_control_number"),
                    claim_status_code=status,
                    billed_amount=_money(d.get("total_charge")),
                    payer=d.get("payer_name"),
                    rarcs=list(d.get("remark_codes") or []),
                    service_date=_date(d.get("statement_from")),
                    payment_date=_date(d.get("payment_date")),
                    reference=d.get("trace_number"),
                )
            )
        elif row.entity == "adjustment":
            if row.parent_row_number not in claims:
                continue  # the claim was excluded: its adjustments go with it
            status = d.get("claim_status_code")
            group = d.get("group_code")
            result = _classify(classifier, group, d.get("carc"), d.get("rarcs") or [])
            if status == REVERSAL_STATUS:
                entry_type = "reversal"
            elif group == "PR":
                entry_type = "patient_responsibility"
            elif status == DENIED_STATUS or (result is not None and result.is_denial):
                entry_type = "denial"
            else:
                entry_type = "adjustment"
            plans.append(
                EntryPlan(
                    row.row_id,
                    entry_type,
                    "cas",
                    _money(d.get("amount")) or Decimal("0.00"),
                    claim_key=d.get("patient_control_number"),
                    payer_claim_number=d.get("payer_claim_control_number"),
                    claim_status_code=status,
                    billed_amount=_money(claims[row.parent_row_number].data.get("total_charge")),
                    payer=d.get("payer_name"),
                    group_code=group,
                    carc=d.get("carc"),
                    rarcs=list(d.get("rarcs") or []),
                    denial_category=result.category if result else None,
                    is_denial=bool(result and result.is_denial and status != REVERSAL_STATUS),
                    service_date=_date(d.get("service_date")),
                    payment_date=_date(d.get("payment_date")),
                    reference=d.get("trace_number"),
                )
            )
        elif row.entity == "provider_adjustment":
            plans.append(
                EntryPlan(
                    row.row_id,
                    "provider_adjustment",
                    "plb",
                    _money(d.get("amount")) or Decimal("0.00"),
                    payer=d.get("payer_name"),
                    carc=d.get("reason_code"),
                    payment_date=_date(d.get("payment_date")),
                    reference=d.get("reference_id") or d.get("trace_number"),
                )
            )
        elif row.entity == "claim":
            plans.append(
                EntryPlan(
                    row.row_id,
                    "charge",
                    "charge",
                    _money(d.get("total_charge")) or Decimal("0.00"),
                    claim_key=d.get("patient_control_number"),
                    billed_amount=_money(d.get("total_charge")),
                    payer=d.get("payer_name"),
                    service_date=_date(d.get("statement_from")),
                )
            )
        elif row.entity.startswith("csv_"):
            plans.extend(_tabular_plans(row, classifier))
    return plans


def _tabular_plans(row: RowView, classifier: Classifier) -> list[EntryPlan]:
    d = row.data
    key = d.get("patient_account_number") or d.get("claim_id")
    common = dict(
        claim_key=key,
        payer_claim_number=d.get("claim_id") if d.get("patient_account_number") else None,
        payer=d.get("payer_name"),
        billed_amount=_money(d.get("billed_amount")),
        service_date=_date(d.get("service_from")),
    )
    if row.entity == "csv_claim":
        return [EntryPlan(row.row_id, "charge", "charge", _money(d.get("billed_amount")) or Decimal("0.00"), **common)]
    if row.entity == "csv_payment":
        plans = [
            EntryPlan(
                row.row_id,
                "payment",
                "paid",
                _money(d.get("paid_amount")) or Decimal("0.00"),
                payment_date=_date(d.get("payment_date")),
                reference=d.get("check_number"),
                **common,
            )
        ]
        adjustment = _money(d.get("adjustment_amount"))
        if adjustment:
            group = d.get("group_code") or "CO"
            result = _classify(classifier, group, d.get("carc"), d.get("rarc") or [])
            plans.append(
                EntryPlan(
                    row.row_id,
                    "patient_responsibility"
                    if group == "PR"
                    else ("denial" if result and result.is_denial else "adjustment"),
                    "adjustment",
                    adjustment,
                    group_code=group,
                    carc=d.get("carc"),
                    rarcs=list(d.get("rarc") or []),
                    denial_category=result.category if result else None,
                    is_denial=bool(result and result.is_denial),
                    payment_date=_date(d.get("payment_date")),
                    reference=d.get("check_number"),
                    **common,
                )
            )
        return plans
    if row.entity == "csv_deposit":
        # Bank money, not claim money: no claim key; the trace number ties it to an 835 (TRN02).
        return [
            EntryPlan(
                row.row_id,
                "deposit",
                "deposited",
                _money(d.get("amount")) or Decimal("0.00"),
                payer=d.get("payer_name"),
                payment_date=_date(d.get("deposit_date")),
                reference=d.get("trace_number"),
            )
        ]
    if row.entity == "csv_denial":
        group = d.get("group_code") or "CO"
        result = _classify(classifier, group, d.get("carc"), d.get("rarc") or [])
        return [
            EntryPlan(
                row.row_id,
                "denial",
                "denied",
                _money(d.get("denied_amount")) or Decimal("0.00"),
                group_code=group,
                carc=d.get("carc"),
                rarcs=list(d.get("rarc") or []),
                denial_category=result.category if result else None,
                is_denial=True,
                payment_date=_date(d.get("denial_date")),
                **common,
            )
        ]
    return []


@dataclass(frozen=True)
class PostedEntry:
    """An entry already in the ledger, as reversal linking sees it."""

    id: int
    entry_type: str
    component: str
    amount: Decimal
    claim_key: str | None
    group_code: str | None
    carc: str | None
    batch_id: int | None = None
    row_id: int | None = None


def link_reversals(plans: list[EntryPlan], posted: Iterable[PostedEntry], batch_id: int | None = None) -> None:
    """Point each reversal plan at the earlier entry it cancels: same claim, component, CARC and the
    opposite amount, with the same group code (a 4010 `CR` reversal group matches any group).
    Each original is used once, the most recent first; inside the batch being posted only entries of
    earlier rows count (a correction that follows its reversal is not what it reverses)."""
    candidates: dict[tuple, list[PostedEntry]] = {}
    for entry in posted:
        if entry.entry_type == "reversal":
            continue
        candidates.setdefault((entry.claim_key, entry.component, entry.carc, entry.amount), []).append(entry)
    for plan in plans:
        if plan.entry_type != "reversal" or plan.claim_key is None:
            continue
        group = candidates.get((plan.claim_key, plan.component, plan.carc, -plan.amount), [])
        eligible = [
            e
            for e in group
            if (e.group_code == plan.group_code or plan.group_code == "CR")
            and (e.batch_id != batch_id or (e.row_id is not None and e.row_id < plan.row_id))
        ]
        if eligible:
            chosen = max(eligible, key=lambda e: e.id)
            group.remove(chosen)
            plan.reverses_entry_id = chosen.id
