"""SQL over the tenant-scoped marts for revenueInvalidation.*: the final denial write-offs of the remittance
rule (fct_claim_reconciliation.write_off_date, HFMA MAP Key "Final Denials Write-off") with the first
decision's provider-denied amount (fct_remittance_claims.provider_denied_amount of the claim's initial
remittance claim: the amount fct_kpis_monthly writes off)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from api.infra.marts.serving import to_money
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.revenue_invalidation import reasons

MARTS = ("fct_claim_reconciliation", "fct_remittance_claims")

WRITE_OFFS_SQL = """
    select claims.claim_key, upper(coalesce(claims.payer_key, '')) as payer_key, claims.write_off_date,
           claims.primary_denial_category, claims.primary_denial_group_code, claims.primary_denial_carc,
           coalesce(initial.provider_denied_amount, 0) as amount
    from fct_claim_reconciliation as claims
    left join fct_remittance_claims as initial on initial.remittance_claim_key = claims.initial_remittance_claim_key
    where claims.write_off_date is not null and {where}
"""


def write_offs(m: ScopedMarts, *, first: date | None, last: date | None, payer: str | None) -> list[reasons.Item]:
    """The write-offs whose day falls in [first, last] (either open), of one payer when given; a write-off
    of nothing to the provider (a denial the patient owes) is no lost revenue and is left out."""
    clauses: list[str] = ["true"]
    params: dict[str, Any] = {}
    if first is not None:
        clauses.append("claims.write_off_date >= $first")
        params["first"] = first
    if last is not None:
        clauses.append("claims.write_off_date <= $last")
        params["last"] = last
    if payer:
        clauses.append("upper(claims.payer_key) = $payer")
        params["payer"] = payer
    rows = m.rows(WRITE_OFFS_SQL.format(where=" and ".join(clauses)), params)
    return [_item(r) for r in rows if to_money(r["amount"]) > 0]


def _item(row: dict[str, Any]) -> reasons.Item:
    return reasons.Item(
        claim_key=str(row["claim_key"]),
        payer_key=str(row["payer_key"]),
        amount=to_money(row["amount"]),
        on=row["write_off_date"],
        reason=reasons.remittance_reason(row["primary_denial_category"], row["primary_denial_group_code"]),
        source="remittance",
        carc=row["primary_denial_carc"],
    )


def written_off_claims(m: ScopedMarts, claim_keys: Sequence[str]) -> set[str]:
    """Which of `claim_keys` the remittance rule writes off (in any month): their cases add nothing."""
    if not claim_keys:
        return set()
    rows = m.rows(
        "select distinct claim_key from fct_claim_reconciliation"
        " where write_off_date is not null and list_contains($keys, claim_key)",
        {"keys": sorted(set(claim_keys))},
    )
    return {str(r["claim_key"]) for r in rows}
