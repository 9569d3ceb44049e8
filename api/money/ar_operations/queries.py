"""Open accounts receivable from fct_claim_reconciliation for arOperations.*, as it stood at a date."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from api.infra.marts.inputs import page_rows
from api.infra.marts.serving import to_money
from api.infra.snapshot.reader import MartRow, ScopedMarts
from api.money.ar_operations.models import FollowUpAssignment
from api.money.ar_operations.schemas import BUCKETS, AgingBucket, AgingIn, FollowUpItem, FollowUpQueueIn

AR_MARTS = ("fct_claim_reconciliation", "fct_provider_adjustments")
ClaimState = Literal["open", "closed", "missing"]

# Open today: awaiting a remittance, or the claim's current decision (the last payer in its COB chain,
# after reversals and corrections) denies money and was not finally written off; a recoupment that ends
# denied is open, a denial by the wrong payer followed by the right payer's payment is not.
# write_off_date is the marts' final denial write-off (int_claims_reconciled, HFMA MAP Key "Final Denials
# Write-off": the appeal window of a denial never overturned closed by the build date), the same date
# fct_kpis_monthly's A/R balances close the denial on: a written-off denial is no longer receivable.
_OPEN = "claim_outcome in ('awaiting_remittance', 'denied', 'partially_denied') and write_off_date is null"
# The claims open at $as_of, rebuilt from each claim's dates so that only remittances paid on or
# before $as_of count: awaiting its first remittance from the day it was billed (837 submission date,
# else statement end) until its first payment date -> the charge is open; when every remittance of the
# claim was paid by $as_of, its state then is its current state (current decision, recoupments
# included); otherwise (later events) the state at $as_of is its first decision, denied and not yet
# overturned by $as_of -> the denied amount is open. A claim paid after $as_of was open at $as_of. A denial
# finally written off on or before $as_of (write_off_date) is not open: it left A/R that day.
_CLAIM_OPEN_SQL = """
    select claim_key, payer_key, statement_to, denial_category, reason, open_amount,
           greatest(0, date_diff('day', statement_to, $as_of)) as age_days
    from (
        select claim_key, payer_key, statement_to,
               case when initial_payment_date <= $as_of then primary_denial_category end as denial_category,
               case
                   when initial_payment_date is null or initial_payment_date > $as_of then 'awaiting_remittance'
                   when last_payment_date <= $as_of then claim_outcome
                   when initially_fully_denied then 'denied'
                   else 'partially_denied'
               end as reason,
               case
                   when initial_payment_date is null or initial_payment_date > $as_of then billed_amount
                   when last_payment_date <= $as_of then current_denied_amount
                   else initial_denied_amount
               end as open_amount,
               case
                   when initial_payment_date is null or initial_payment_date > $as_of then
                       coalesce(submission_date, statement_to) <= $as_of
                   when write_off_date <= $as_of then false
                   when last_payment_date <= $as_of then claim_outcome in ('denied', 'partially_denied')
                   else initially_denied and not (overturned and recovery_date <= $as_of)
               end as is_open
        from fct_claim_reconciliation
    )
    where is_open and statement_to is not null and statement_to <= $as_of"""
# A claim's money a payer took back through a provider-level adjustment (835 PLB WO/WU, or FB withholding,
# naming the claim in PLB03-2; X12 835 TR3 PLB03) is open from the remittance's date until the same payer
# pays the claim again (fct_provider_adjustments.open_recouped_amount): reason `recouped`.
_RECOUPED_SQL = """
    select plb.linked_claim_key as claim_key, plb.payer_key, claims.statement_to,
           null as denial_category, 'recouped' as reason, plb.open_recouped_amount as open_amount,
           greatest(0, date_diff('day', coalesce(claims.statement_to, plb.payment_date), $as_of)) as age_days
    from fct_provider_adjustments as plb
    left join fct_claim_reconciliation as claims on claims.claim_key = plb.linked_claim_key
    where plb.is_claim_recoupment and plb.open_recouped_amount > 0 and plb.payment_date <= $as_of"""
# One row per claim: its open claim-level balance and what a PLB recouped (a claim denied and recouped
# keeps its claim-level reason; the amounts add up).
_OPEN_SQL = f"""
    select claim_key, any_value(payer_key) as payer_key, min(statement_to) as statement_to,
           max(denial_category) as denial_category,
           coalesce(max(case when reason <> 'recouped' then reason end), 'recouped') as reason,
           sum(open_amount) as open_amount, max(age_days) as age_days
    from ({_CLAIM_OPEN_SQL} union all {_RECOUPED_SQL})
    group by claim_key"""
_BUCKET_SQL = """case when age_days <= 30 then '0-30' when age_days <= 60 then '31-60'
                      when age_days <= 90 then '61-90' when age_days <= 120 then '91-120' else '120+' end"""


class Aging(MartRow):
    """Open A/R at a date, in total and per age bucket."""

    as_of: date
    open_claims: int
    open_amount: Decimal
    open_claims_with_case: int
    buckets: list[AgingBucket]


def _open(m: ScopedMarts, input: AgingIn | FollowUpQueueIn) -> tuple[str, dict[str, Any], date]:
    """The open claims at input.as_of (default: the snapshot build date) with their age bucket."""
    as_of = input.as_of or m.built_at.date()
    sql = f"select *, {_BUCKET_SQL} as bucket from ({_OPEN_SQL})"
    params: dict[str, Any] = {"as_of": as_of}
    clauses = []
    if input.payer:
        clauses.append("upper(payer_key) = $payer")
        params["payer"] = input.payer
    if isinstance(input, FollowUpQueueIn) and input.bucket:
        clauses.append("bucket = $bucket")
        params["bucket"] = input.bucket
    if clauses:
        sql = f"select * from ({sql}) where " + " and ".join(clauses)
    return sql, params, as_of


def aging(m: ScopedMarts, input: AgingIn, case_claim_keys: Sequence[str] = ()) -> Aging:
    """Open claims and money per age bucket (every bucket, empty ones too) and in total, with how many
    of them are among `case_claim_keys` (the claims with an open denial case)."""
    sql, params, as_of = _open(m, input)
    params["case_keys"] = list(case_claim_keys) or [""]  # a typed list even when there is no case
    found = {
        r["bucket"]: r
        for r in m.rows(
            f"""select bucket, count(*) as claims, sum(open_amount) as open_amount,
                       count(*) filter (where in_case) as claims_with_open_case
                from (select *, claim_key in (select unnest($case_keys)) as in_case from ({sql}))
                group by bucket""",
            params,
        )
    }
    buckets = [
        AgingBucket.model_validate(
            {
                "bucket": b,
                "claims": int(found[b]["claims"]) if b in found else 0,
                "open_amount": found[b]["open_amount"] if b in found else 0,
                "claims_with_open_case": int(found[b]["claims_with_open_case"]) if b in found else 0,
            }
        )
        for b in BUCKETS
    ]
    return Aging(
        as_of=as_of,
        open_claims=sum(b.claims for b in buckets),
        open_amount=to_money(sum((r["open_amount"] for r in found.values()), 0)),
        open_claims_with_case=sum(b.claims_with_open_case for b in buckets),
        buckets=buckets,
    )


def follow_up_queue(
    m: ScopedMarts, input: FollowUpQueueIn, assignments: Mapping[str, FollowUpAssignment]
) -> tuple[date, list[FollowUpItem], str | None]:
    """(the aging date; one page of open claims, largest open amount then oldest first, with their
    current assignment; the cursor)."""
    sql, params, as_of = _open(m, input)
    if input.assigned is not None:
        params["assigned_keys"] = list(assignments) or [""]
        negate = "" if input.assigned else "not "
        sql = f"select * from ({sql}) where {negate}list_contains($assigned_keys, claim_key)"
    rows, cursor = page_rows(m, f"{sql} order by open_amount desc, age_days desc, claim_key", params, input)
    return as_of, [_item(r, assignments.get(r["claim_key"])) for r in rows], cursor


def _item(row: dict[str, Any], assignment: FollowUpAssignment | None) -> FollowUpItem:
    return FollowUpItem.model_validate(
        {
            **row,
            "assignee_user_id": assignment.assignee_user_id if assignment else None,
            "due_date": assignment.due_date if assignment else None,
        }
    )


def claim_state(m: ScopedMarts, claim_key: str) -> ClaimState:
    """open (a balance to follow up), closed (paid, overturned or finally written off) or missing from the
    snapshot."""
    params = {"c": claim_key}
    if m.one_or_none(f"select claim_key from fct_claim_reconciliation where claim_key = $c and {_OPEN}", params):
        return "open"
    recouped = (
        "select linked_claim_key from fct_provider_adjustments where linked_claim_key = $c and open_recouped_amount > 0"
    )
    if m.one_or_none(recouped, params):
        return "open"
    if m.one_or_none("select claim_key from fct_claim_reconciliation where claim_key = $c", params):
        return "closed"
    return "missing"
