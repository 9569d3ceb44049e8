"""Bank deposits, ERA payments and the cash posted, from fct_remittances and fct_bank_deposits, for
revenueReconciliation.*."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from api.infra.marts.inputs import DateRange, MartPageInput, page_rows, payer_filter
from api.infra.marts.serving import to_money
from api.infra.snapshot.reader import ScopedMarts
from api.money.revenue_reconciliation.deposit_basis import DEPOSITS_MART, Basis
from api.money.revenue_reconciliation.models import VarianceResolution
from api.money.revenue_reconciliation.schemas import DepositMatch, DepositMatchesIn, VariancesIn

REMITTANCE_MART = "fct_remittances"
_ERA_SQL = f"""
    select remittance_key as match_key, remittance_key, payer_key, payment_date, trace_number, payment_method,
           cast(null as varchar) as deposit_key, cast(null as date) as deposit_date,
           cast(null as decimal(18, 2)) as deposit_amount,
           check_amount as payment_amount, claims_paid_amount as posted_amount,
           provider_adjustment_amount as provider_adjustments,
           check_amount - claims_paid_amount as posting_variance,
           check_amount - claims_paid_amount as variance_amount,
           case when check_amount = claims_paid_amount then 'balanced'
                when check_amount = claims_paid_amount - provider_adjustment_amount then 'explained_by_plb'
                else 'unexplained' end as status
    from {REMITTANCE_MART}"""
# payment_date filters and orders by the cash date (deposit date, or ERA date without a deposit).
_DEPOSIT_SQL = f"""
    select bank_deposit_key as match_key, remittance_key, payer_key, cash_date as payment_date, trace_number,
           payment_method, deposit_key, deposit_date, deposit_amount,
           coalesce(era_amount, 0) as payment_amount, coalesce(posted_amount, 0) as posted_amount,
           coalesce(provider_adjustment_amount, 0) as provider_adjustments,
           coalesce(era_amount, 0) - coalesce(posted_amount, 0) as posting_variance,
           deposit_variance as variance_amount,
           match_status as status
    from {DEPOSITS_MART}"""
_SQL: dict[Basis, str] = {"era": _ERA_SQL, "bank_deposits": _DEPOSIT_SQL}


def _where(dates: DateRange, payer: str | None) -> tuple[str, dict[str, Any]]:
    where, params = dates.date_params("payment_date")
    return payer_filter(where, params, payer), params


def deposit_matches(
    m: ScopedMarts, basis: Basis, input: DepositMatchesIn, resolutions: Mapping[str, VarianceResolution]
) -> tuple[list[DepositMatch], str | None, Decimal]:
    """One page of every row of the basis (oldest first) with its resolution, and the total variance."""
    where, params = _where(input, input.payer)
    if input.status:
        where += " and status = $status"
        params["status"] = input.status
    return _page(m, basis, where=where, params=params, page=input, resolutions=resolutions)


def variances(
    m: ScopedMarts, basis: Basis, input: VariancesIn, resolutions: Mapping[str, VarianceResolution]
) -> tuple[list[DepositMatch], str | None, Decimal]:
    """One page of the rows with a variance, unresolved ones only unless includeResolved, and the total."""
    where, params = _where(input, input.payer)
    where += " and variance_amount <> 0"
    if not input.include_resolved and resolutions:
        where += " and not list_contains($resolved, match_key)"
        params["resolved"] = list(resolutions)
    return _page(m, basis, where=where, params=params, page=input, resolutions=resolutions)


def _page(
    m: ScopedMarts,
    basis: Basis,
    *,
    where: str,
    params: dict[str, Any],
    page: MartPageInput,
    resolutions: Mapping[str, VarianceResolution],
) -> tuple[list[DepositMatch], str | None, Decimal]:
    sql = f"select * from ({_SQL[basis]}) where {where}"
    total = m.one(f"select sum(variance_amount) as v from ({sql})", params)["v"]
    rows, cursor = page_rows(m, sql + " order by payment_date, match_key", params, page)
    return [_match(r, resolutions.get(r["match_key"])) for r in rows], cursor, to_money(total)


def _match(row: dict[str, Any], resolution: VarianceResolution | None) -> DepositMatch:
    return DepositMatch.model_validate(
        {
            **row,
            "resolution": resolution.resolution if resolution else None,
            "resolved_at": resolution.created_at if resolution else None,
        }
    )


def match_variance(m: ScopedMarts, basis: Basis, match_key: str) -> Decimal | None:
    """The variance of the row with this match key; None when the snapshot has no such row."""
    row = m.one_or_none(f"select * from ({_SQL[basis]}) where match_key = $k", {"k": match_key})
    return None if row is None else Decimal(row["variance_amount"])
