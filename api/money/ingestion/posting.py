"""What a confirmed batch posts: included valid rows -> financial entries.

Pure: row views in, entry plans out (the service writes them in one
transaction). The amounts always come from the file, so posted totals tie to
the parsed totals to the cent:

- 835 claim (CLP): a `payment` of CLP04 (skipped when a denied claim paid 0);
  each CAS amount as `denial` (a positive amount on a denied claim CLP02=4, or
  of a denial CARC), `patient_responsibility` (group PR) or `adjustment`. Zero
  and negative amounts are never denials (``counts_as_denial``).
- 835 predetermination (CLP02=25): it prices a service that has not been
  adjudicated, so it is neither a payment nor a denial: no `payment` when CLP04
  is 0, and its CAS amounts post as `adjustment` (so the ledger still ties to
  the file's CAS total) with ``is_denial`` false.
- 835 reversal (CLP02=22): every amount posts as `reversal`, linked with
  `reverses_entry_id` to the original claim's matching entry when it was posted
  earlier (`link_reversals`); the corrected claim that follows posts normally.
- 835 recoupment: a CLP that is not a reversal but pays a negative CLP04 (money taken
  back, typically in a BPR03=D debit remittance) posts its CLP04 as `recoupment`, not
  as a negative `payment`, so payment totals are not netted silently; its CAS amounts
  post as for any adjudication.
- PLB: `provider_adjustment` with the PLB amount (positive reduces the payment), tied to the claim
  PLB03-2 names when it names a known one (``pipelines.ingest.plb``: X12 835 TR3 PLB03). A WO/WU
  overpayment recovery or an FB forwarding balance that withholds money (positive PLB04) for a named
  claim is money taken back for that claim: it posts as `recoupment` (component `plb`) with the claim
  key and the NEGATED amount, as a negative-CLP04 recoupment does (negative = money taken back).
- 837 claim / CSV claim: `charge`; CSV payment: `payment` (+ `adjustment`);
  CSV denial (the hospital's worklist): `denial` when its group and CARC classify as one,
  `patient_responsibility` for group PR, else `adjustment`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, TypedDict

from pipelines.ingest.classify import (
    PREDETERMINATION_STATUS,
    REVERSAL_STATUS,
    Classification,
    UnknownGroupCodeError,
    classify_adjustment,
    counts_as_denial,
)
from pipelines.ingest.money import ZERO, read_money
from pipelines.ingest.plb import is_claim_recoupment, resolve_claim

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
    cache: dict[tuple[str, str | None, tuple[str, ...]], Classification] = {}

    def classify(group: str, carc: str | None, rarcs: Iterable[str]) -> Classification:
        key = (group, carc, tuple(rarcs))
        if key not in cache:
            cache[key] = classifier(group, carc, list(key[2]))
        return cache[key]

    return classify


@dataclass
class KnownClaims:
    """The claims a PLB03-2 reference may name: claim keys (CLP01 / the 837's patient control number)
    and payer claim control numbers (CLP07) -> their claim key."""

    claim_keys: set[str] = field(default_factory=set)
    payer_claim_numbers: dict[str, str] = field(default_factory=dict)

    def with_rows(self, rows: Iterable[RowView]) -> KnownClaims:
        """These claims plus the batch's own remitted and billed claims."""
        keys, numbers = set(self.claim_keys), dict(self.payer_claim_numbers)
        for r in rows:
            if r.entity in ("remittance_claim", "claim") and r.data.get("patient_control_number"):
                keys.add(r.data["patient_control_number"])
                if r.data.get("payer_claim_control_number"):
                    numbers[r.data["payer_claim_control_number"]] = r.data["patient_control_number"]
        return KnownClaims(keys, numbers)


def plan_entries(
    rows: Iterable[RowView], classifier: Classifier = classify_adjustment, known: KnownClaims | None = None
) -> list[EntryPlan]:
    """Entry plans for rows that are already filtered to included, valid (or repaired) ones; `known`:
    the claims already in the ledger a PLB may name (the batch's own claims are added)."""
    rows = list(rows)
    classify = _memoised(classifier)
    claims = {r.row_number: r for r in rows if r.entity == "remittance_claim"}
    known = (known or KnownClaims()).with_rows(r for r in rows if r.entity in ("remittance_claim", "claim"))
    plans: list[EntryPlan] = []
    for row in rows:
        plans.extend(_row_plans(row, claims, classify, known))
    return plans


def _row_plans(row: RowView, claims: dict[int, RowView], classifier: Classifier, known: KnownClaims) -> list[EntryPlan]:
    """What one row posts, by its entity; rows that carry no money (service and claim lines) post nothing."""
    if row.entity == "remittance_claim":
        return _remittance_claim_plans(row)
    if row.entity == "adjustment":
        claim = claims.get(row.parent_row_number) if row.parent_row_number is not None else None
        # The claim was excluded: its adjustments go with it.
        return [] if claim is None else [_adjustment_plan(row, claim, classifier)]
    if row.entity == "provider_adjustment":
        return [_provider_adjustment_plan(row, known)]
    if row.entity == "claim":
        return [_claim_charge_plan(row)]
    if row.entity.startswith("csv_"):
        return _tabular_plans(row, classifier)
    return []


def _amount(value: Any) -> Decimal:
    """A money field of the row; a missing amount posts as zero. A cell that is not an amount raises
    `BadMoneyCell`: the row passed validation, so its cells are corrupt and the confirm must fail whole
    rather than post a guessed amount."""
    return read_money(value) or ZERO


def _adjustment_entry_type(
    claim_status: str | None, group: str | None, result: Classification | None, amount: Decimal
) -> str:
    """How an adjustment posts: a reversal's amounts reverse, group PR is the patient's share, a
    positive amount on a denied claim or of a denial CARC is a denial, and anything else (zero and
    negative amounts included) an adjustment."""
    if claim_status == REVERSAL_STATUS:
        return "reversal"
    if group == "PR":
        return "patient_responsibility"
    denial_code = claim_status == DENIED_STATUS or (result is not None and result.is_denial)
    if counts_as_denial(denial_code, amount, claim_status):
        return "denial"
    return "adjustment"


def _claim_payment_type(status: str | None, paid: Decimal) -> str:
    """reversal (CLP02=22), recoupment (a negative CLP04 without CLP02=22) or payment."""
    if status == REVERSAL_STATUS:
        return "reversal"
    return "recoupment" if paid < 0 else "payment"


def _remittance_claim_plans(row: RowView) -> list[EntryPlan]:
    """The CLP payment (a reversal when CLP02=22, a recoupment when a negative CLP04 is not a reversal);
    a denied claim or a predetermination that paid nothing posts no payment."""
    d = row.data
    status = d.get("claim_status_code")
    paid = _amount(d.get("paid_amount"))
    if status in (DENIED_STATUS, PREDETERMINATION_STATUS) and paid == 0:
        return []
    return [
        EntryPlan(
            row.row_id,
            _claim_payment_type(status, paid),
            "paid",
            paid,
            claim_key=d.get("patient_control_number"),
            payer_claim_number=d.get("payer_claim_control_number"),
            claim_status_code=status,
            billed_amount=read_money(d.get("total_charge")),
            payer=d.get("payer_name"),
            rarcs=list(d.get("remark_codes") or []),
            service_date=_date(d.get("statement_from")),
            payment_date=_date(d.get("payment_date")),
            reference=d.get("trace_number"),
        )
    ]


def _adjustment_plan(row: RowView, claim: RowView, classifier: Classifier) -> EntryPlan:
    """One CAS amount of a remitted claim, classified by group, CARC and RARCs."""
    d = row.data
    status = d.get("claim_status_code")
    group = d.get("group_code")
    result = _classify(classifier, group, d.get("carc"), d.get("rarcs") or [])
    amount = _amount(d.get("amount"))
    return EntryPlan(
        row.row_id,
        _adjustment_entry_type(status, group, result, amount),
        "cas",
        amount,
        claim_key=d.get("patient_control_number"),
        payer_claim_number=d.get("payer_claim_control_number"),
        claim_status_code=status,
        billed_amount=read_money(claim.data.get("total_charge")),
        payer=d.get("payer_name"),
        group_code=group,
        carc=d.get("carc"),
        rarcs=list(d.get("rarcs") or []),
        denial_category=result.category if result else None,
        is_denial=counts_as_denial(bool(result and result.is_denial), amount, status),
        service_date=_date(d.get("service_date")),
        payment_date=_date(d.get("payment_date")),
        reference=d.get("trace_number"),
    )


def _provider_adjustment_plan(row: RowView, known: KnownClaims) -> EntryPlan:
    """A PLB amount, tied to the claim PLB03-2 names when it names a known one; a claim-linked WO/WU/FB
    that withholds money is a `recoupment` of that claim (the amount negated: money taken back)."""
    d = row.data
    amount = _amount(d.get("amount"))
    claim_key = resolve_claim(d.get("reason_code"), d.get("reference_id"), known.claim_keys, known.payer_claim_numbers)
    recouped = claim_key is not None and is_claim_recoupment(d.get("reason_code"), amount)
    return EntryPlan(
        row.row_id,
        "recoupment" if recouped else "provider_adjustment",
        "plb",
        -amount if recouped else amount,
        claim_key=claim_key,
        payer=d.get("payer_name"),
        carc=d.get("reason_code"),
        payment_date=_date(d.get("payment_date")),
        reference=d.get("reference_id") or d.get("trace_number"),
    )


def _claim_charge_plan(row: RowView) -> EntryPlan:
    """An 837 claim's total charge."""
    d = row.data
    return EntryPlan(
        row.row_id,
        "charge",
        "charge",
        _amount(d.get("total_charge")),
        claim_key=d.get("patient_control_number"),
        billed_amount=read_money(d.get("total_charge")),
        payer=d.get("payer_name"),
        service_date=_date(d.get("statement_from")),
    )


class _TabularClaim(TypedDict):
    """The claim a tabular claim, payment or denial row is about, as every entry of the row carries it."""

    claim_key: str | None
    payer_claim_number: str | None
    payer: str | None
    billed_amount: Decimal | None
    service_date: date | None


def _tabular_claim(d: dict[str, Any]) -> _TabularClaim:
    # The hospital's account number is the claim key when present; the payer's claim id then is the payer claim number.
    return _TabularClaim(
        claim_key=d.get("patient_account_number") or d.get("claim_id"),
        payer_claim_number=d.get("claim_id") if d.get("patient_account_number") else None,
        payer=d.get("payer_name"),
        billed_amount=read_money(d.get("billed_amount")),
        service_date=_date(d.get("service_from")),
    )


def _tabular_plans(row: RowView, classifier: Classifier) -> list[EntryPlan]:
    """What a row of a claims, payments, deposits or denials export posts."""
    if row.entity == "csv_claim":
        return [_csv_claim_plan(row)]
    if row.entity == "csv_payment":
        return _csv_payment_plans(row, classifier)
    if row.entity == "csv_deposit":
        return [_csv_deposit_plan(row)]
    if row.entity == "csv_denial":
        return [_csv_denial_plan(row, classifier)]
    return []


def _csv_claim_plan(row: RowView) -> EntryPlan:
    return EntryPlan(row.row_id, "charge", "charge", _amount(row.data.get("billed_amount")), **_tabular_claim(row.data))


def _csv_payment_plans(row: RowView, classifier: Classifier) -> list[EntryPlan]:
    """The payment, and its adjustment when the row has a non-zero one."""
    d = row.data
    claim = _tabular_claim(d)
    plans = [
        EntryPlan(
            row.row_id,
            "payment",
            "paid",
            _amount(d.get("paid_amount")),
            payment_date=_date(d.get("payment_date")),
            reference=d.get("check_number"),
            **claim,
        )
    ]
    adjustment = read_money(d.get("adjustment_amount"))
    if adjustment:
        # An export without a group code reports contractual (CO) adjustments.
        group = d.get("group_code") or "CO"
        result = _classify(classifier, group, d.get("carc"), d.get("rarc") or [])
        plans.append(
            EntryPlan(
                row.row_id,
                _adjustment_entry_type(None, group, result, adjustment),
                "adjustment",
                adjustment,
                group_code=group,
                carc=d.get("carc"),
                rarcs=list(d.get("rarc") or []),
                denial_category=result.category if result else None,
                is_denial=counts_as_denial(bool(result and result.is_denial), adjustment, None),
                payment_date=_date(d.get("payment_date")),
                reference=d.get("check_number"),
                **claim,
            )
        )
    return plans


def _csv_deposit_plan(row: RowView) -> EntryPlan:
    # Bank money, not claim money: no claim key; the trace number ties it to an 835 (TRN02).
    d = row.data
    return EntryPlan(
        row.row_id,
        "deposit",
        "deposited",
        _amount(d.get("amount")),
        payer=d.get("payer_name"),
        payment_date=_date(d.get("deposit_date")),
        reference=d.get("trace_number"),
    )


def _csv_denial_plan(row: RowView, classifier: Classifier) -> EntryPlan:
    """A row of the hospital's denial worklist, classified like a CAS amount by its group code and
    CARC (a combined ``CO-27`` was split when the file was read, ``pipelines/ingest/reason_codes.py``):
    group PR is the patient's share, never a provider denial (X12 835 TR3 CAS01: PR patient
    responsibility); a code the classifier does not call a denial (CO-45, an unknown CARC) posts as an
    adjustment. An export without a group code reports contractual (CO) codes."""
    d = row.data
    group = d.get("group_code") or "CO"
    result = _classify(classifier, group, d.get("carc"), d.get("rarc") or [])
    amount = _amount(d.get("denied_amount"))
    return EntryPlan(
        row.row_id,
        _adjustment_entry_type(None, group, result, amount),
        "denied",
        amount,
        group_code=group,
        carc=d.get("carc"),
        rarcs=list(d.get("rarc") or []),
        denial_category=result.category if result else None,
        is_denial=counts_as_denial(bool(result and result.is_denial), amount, None),
        payment_date=_date(d.get("denial_date")),
        **_tabular_claim(d),
    )


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
    candidates = _originals_by_match_key(posted)
    for plan in plans:
        if plan.entry_type != "reversal" or plan.claim_key is None:
            continue
        group = candidates.get((plan.claim_key, plan.component, plan.carc, -plan.amount), [])
        eligible = [e for e in group if _may_reverse(plan, e, batch_id)]
        if eligible:
            chosen = max(eligible, key=lambda e: e.id)
            group.remove(chosen)
            plan.reverses_entry_id = chosen.id


_MatchKey = tuple[str | None, str, str | None, Decimal]


def _originals_by_match_key(posted: Iterable[PostedEntry]) -> dict[_MatchKey, list[PostedEntry]]:
    """Posted entries a reversal may cancel (not reversals themselves), by (claim, component, CARC, amount)."""
    candidates: dict[_MatchKey, list[PostedEntry]] = {}
    for entry in posted:
        if entry.entry_type != "reversal":
            candidates.setdefault((entry.claim_key, entry.component, entry.carc, entry.amount), []).append(entry)
    return candidates


def _may_reverse(plan: EntryPlan, original: PostedEntry, batch_id: int | None) -> bool:
    """Same group code (`CR` matches any), and posted before the reversal: in an earlier batch, or
    from an earlier row of this one."""
    same_group = plan.group_code in (original.group_code, "CR")
    earlier = original.batch_id != batch_id or (original.row_id is not None and original.row_id < plan.row_id)
    return same_group and earlier
