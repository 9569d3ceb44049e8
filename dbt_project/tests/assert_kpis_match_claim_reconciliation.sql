{{ config(meta={'dagster': {'ref': {'name': 'fct_kpis_monthly'}}}) }}
-- The monthly KPIs add up to the claim-level reconciliation they are computed from, less the claims
-- first adjudicated after the build date (future-dated remittances: findings, fct_kpi_data_findings).
with kpis as (
    select organization_id, client_id, sum(claims_adjudicated) as claims, sum(initially_denied_claims) as denied,
           sum(initial_denied_amount) as denied_amount, sum(recovered_amount) as recovered
    from {{ ref('fct_kpis_monthly') }}
    group by organization_id, client_id
),
claims as (
    select organization_id, client_id, count(*) as claims,
           sum(case when initially_denied then 1 else 0 end) as denied,
           sum(initial_denied_amount) as denied_amount, sum(recovered_amount) as recovered
    from {{ ref('fct_claim_reconciliation') }}
    where adjudication_month is not null and initial_payment_date <= {{ build_date() }}
    group by organization_id, client_id
)
select claims.*
from claims
left join kpis on kpis.organization_id = claims.organization_id and kpis.client_id = claims.client_id
where kpis.claims is null or kpis.claims <> claims.claims or kpis.denied <> claims.denied
   or kpis.denied_amount <> claims.denied_amount or kpis.recovered <> claims.recovered
