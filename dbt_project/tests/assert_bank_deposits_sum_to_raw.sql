{{ config(meta={'dagster': {'ref': {'name': 'fct_bank_deposits'}}}) }}
-- Money balance: per tenant, the deposits in fct_bank_deposits add up to the valid raw deposit rows
-- to the cent, and so do the counts (no deposit lost or doubled by the matching).
with mart as (
    select organization_id, client_id, count(deposit_key) as deposits, coalesce(sum(deposit_amount), 0) as amount
    from {{ ref('fct_bank_deposits') }}
    where deposit_key is not null
    group by organization_id, client_id
),
raw as (
    select organization_id, client_id, count(*) as deposits, coalesce(sum({{ money('amount') }}), 0) as amount
    from {{ source('exports', 'csv_deposits') }}
    where row_status = 'valid'
    group by organization_id, client_id
)
select coalesce(mart.organization_id, raw.organization_id) as organization_id,
       coalesce(mart.client_id, raw.client_id) as client_id
from mart
full outer join raw on raw.organization_id = mart.organization_id and raw.client_id = mart.client_id
where coalesce(mart.deposits, 0) <> coalesce(raw.deposits, 0)
   or coalesce(mart.amount, 0) <> coalesce(raw.amount, 0)
