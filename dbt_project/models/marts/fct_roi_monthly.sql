-- Return on denial work per tenant and month (issue 24). Only denial work by a person counts
-- (int_denial_claim_work: a case event with an actor, not the platform's own events):
--   recovered: money a later remittance paid on a claim the payer denied at first, credited only when
--     someone worked the claim's denial case before that remittance's payment date (the payer's
--     decision), booked in the month of that payment date (never the upload time); a payer's
--     reprocessing nobody worked is not a return on denial work;
--   cost of work: each initially denied claim a person worked, at the seed's cost per hard or soft
--     denial (cost_assumptions), booked in the month of the denial.
with claims as (
    select * from {{ ref('int_claims_reconciled') }}
),
work_done as (
    select * from {{ ref('int_denial_claim_work') }}
),
costs as (
    select
        max(case when assumption = 'cost_to_rework_denial' then value end) as hard_cost,
        max(case when assumption = 'cost_to_rework_soft_denial' then value end) as soft_cost
    from {{ ref('cost_assumptions') }}
),
worked_claims as (
    select claims.*, work_done.first_worked_on
    from claims
    inner join work_done
        on work_done.organization_id = claims.organization_id and work_done.client_id = claims.client_id
        and work_done.claim_key = claims.claim_key
    where claims.initially_denied
),
work as (
    select
        worked_claims.organization_id,
        worked_claims.client_id,
        worked_claims.adjudication_month as month,
        count(*) as denials_worked,
        sum(case when worked_claims.primary_denial_hard_or_soft = 'soft' then costs.soft_cost else costs.hard_cost end)
            as cost_of_work
    from worked_claims
    cross join costs
    group by worked_claims.organization_id, worked_claims.client_id, worked_claims.adjudication_month
),
recoveries as (
    select
        organization_id,
        client_id,
        {{ month_of('recovery_date') }} as month,
        count(*) as claims_recovered,
        sum(recovered_amount) as recovered_amount
    from worked_claims
    where overturned and first_worked_on < recovery_date
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
