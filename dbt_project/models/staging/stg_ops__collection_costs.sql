-- Revenue-cycle costs a manager recorded (analytics.recordCollectionCost), summed per tenant and month:
-- the numerator of HFMA's MAP Key "Cost to Collect" (fct_kpis_monthly). A month without a record has no
-- row (its cost to collect is null, not 0).
select
    organization_id,
    client_id,
    {{ month_of('month') }} as month,
    {{ money('sum(amount)') }} as collection_cost_amount,
    count(*) as collection_cost_records
from {{ source('ops', 'collection_costs') }}
group by organization_id, client_id, {{ month_of('month') }}
