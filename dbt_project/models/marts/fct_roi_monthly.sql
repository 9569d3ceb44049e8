-- Return on denial work per tenant and month. Recovered dollars: money paid on a later remittance
-- for claims the payer denied at first (booked in the month it was paid). Cost of work: every
-- initially denied claim is worked once, at the seed's cost per hard or soft denial (booked in the
-- month of the denial), until the cases domain records real effort.
with claims as (
    select * from {{ ref('int_claims_reconciled') }}
),
costs as (
    select
        max(case when assumption = 'cost_to_rework_denial' then value end) as hard_cost,
        max(case when assumption = 'cost_to_rework_soft_denial' then value end) as soft_cost
    from {{ ref('cost_assumptions') }}
),
work as (
    select
        claims.organization_id,
        claims.client_id,
        claims.adjudication_month as month,
        count(*) as denials_worked,
        sum(case when claims.primary_denial_hard_or_soft = 'soft' then costs.soft_cost else costs.hard_cost end)
            as cost_of_work
    from claims
    cross join costs
    where claims.initially_denied
    group by claims.organization_id, claims.client_id, claims.adjudication_month
),
recoveries as (
    select
        organization_id,
        client_id,
        {{ month_of('recovery_date') }} as month,
        count(*) as claims_recovered,
        sum(recovered_amount) as recovered_amount
    from claims
    where overturned
    group by organization_id, client_id, {{ month_of('recovery_date') }}
),
months as (
    select organization_id, client_id, month from work
    union
    select organization_id, client_id, month from recoveries
)
select
    {{ tenant_key('months.organization_id', 'months.client_id', 'months.month') }} as roi_key,
    months.organization_id,
    months.client_id,
    months.month,
    coalesce(work.denials_worked, 0) as denials_worked,
    {{ money('coalesce(work.cost_of_work, 0)') }} as cost_of_work,
    coalesce(recoveries.claims_recovered, 0) as claims_recovered,
    {{ money('coalesce(recoveries.recovered_amount, 0)') }} as recovered_amount,
    {{ money('coalesce(recoveries.recovered_amount, 0) - coalesce(work.cost_of_work, 0)') }} as net_benefit,
    {{ ratio(
        'coalesce(recoveries.recovered_amount, 0) - coalesce(work.cost_of_work, 0)',
        'coalesce(work.cost_of_work, 0)',
    ) }} as roi
from months
left join work
    on work.organization_id = months.organization_id and work.client_id = months.client_id
    and work.month = months.month
left join recoveries
    on recoveries.organization_id = months.organization_id and recoveries.client_id = months.client_id
    and recoveries.month = months.month
