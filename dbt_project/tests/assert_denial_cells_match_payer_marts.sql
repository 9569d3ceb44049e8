{{ config(meta={'dagster': {'ref': {'name': 'fct_denial_cells_monthly'}}}) }}
-- The denial cells count the rows of the payer marts, once each: per payer and month, their claims add
-- up to fct_payer_monthly.claims_adjudicated; per payer, month, category and CARC, their denied cells
-- (denial_category <> 'none') add up to fct_payer_denials_monthly's denied claims and denied amount.
with cell_months as (
    select organization_id, client_id, payer_key, adjudication_month, sum(claims) as claims
    from {{ ref('fct_denial_cells_monthly') }}
    group by organization_id, client_id, payer_key, adjudication_month
),
payer_months as (
    select organization_id, client_id, payer_key, adjudication_month, claims_adjudicated
    from {{ ref('fct_payer_monthly') }}
),
month_differences as (
    select
        coalesce(cell_months.organization_id, payer_months.organization_id) as organization_id,
        coalesce(cell_months.client_id, payer_months.client_id) as client_id,
        'claims_adjudicated' as check_name
    from cell_months
    full outer join payer_months
        on payer_months.organization_id = cell_months.organization_id
        and payer_months.client_id = cell_months.client_id
        and payer_months.payer_key = cell_months.payer_key
        and payer_months.adjudication_month = cell_months.adjudication_month
    where
        cell_months.claims is null
        or payer_months.claims_adjudicated is null
        or cell_months.claims <> payer_months.claims_adjudicated
),
denied_cells as (
    select
        organization_id, client_id, payer_key, adjudication_month, denial_category, carc,
        sum(claims) as denied_claims, sum(denied_amount) as denied_amount
    from {{ ref('fct_denial_cells_monthly') }}
    where denial_category <> 'none'
    group by organization_id, client_id, payer_key, adjudication_month, denial_category, carc
),
payer_denials as (
    select
        organization_id, client_id, payer_key, adjudication_month, denial_category, carc, denied_claims,
        denied_amount
    from {{ ref('fct_payer_denials_monthly') }}
),
denial_differences as (
    select
        coalesce(denied_cells.organization_id, payer_denials.organization_id) as organization_id,
        coalesce(denied_cells.client_id, payer_denials.client_id) as client_id,
        'denied_claims' as check_name
    from denied_cells
    full outer join payer_denials
        on payer_denials.organization_id = denied_cells.organization_id
        and payer_denials.client_id = denied_cells.client_id
        and payer_denials.payer_key = denied_cells.payer_key
        and payer_denials.adjudication_month = denied_cells.adjudication_month
        and payer_denials.denial_category = denied_cells.denial_category
        and payer_denials.carc = denied_cells.carc
    where
        denied_cells.denied_claims is null
        or payer_denials.denied_claims is null
        or denied_cells.denied_claims <> payer_denials.denied_claims
        or denied_cells.denied_amount <> payer_denials.denied_amount
)
select * from month_differences
union all
select * from denial_differences
