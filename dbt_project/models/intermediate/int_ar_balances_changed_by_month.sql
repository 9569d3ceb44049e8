-- Balance changes per tenant and month (one row per month in which a balance segment of
-- int_ar_balances_segmented opens or closes): ar_delta, awaiting_delta, aged_ar_delta, dnfb_delta.
-- +amount in the month a segment opens, -amount in the month it closes: the running sum over a
-- tenant's months (fct_kpis_monthly) is the balance at each month's end (opened <= month end < closed).
-- A segment closed the day it opened (or before) is never open.
with
deltas as (
    select organization_id, client_id, balance, {{ month_of('opened') }} as month, amount as delta
    from {{ ref('int_ar_balances_segmented') }}
    where closed is null or closed > opened
    union all
    select organization_id, client_id, balance, {{ month_of('closed') }} as month, -amount as delta
    from {{ ref('int_ar_balances_segmented') }}
    where closed is not null and closed > opened
)
select
    organization_id,
    client_id,
    month,
    sum(case when balance = 'ar' then delta else 0 end) as ar_delta,
    sum(case when balance = 'awaiting' then delta else 0 end) as awaiting_delta,
    sum(case when balance = 'aged_ar' then delta else 0 end) as aged_ar_delta,
    sum(case when balance = 'dnfb' then delta else 0 end) as dnfb_delta
from deltas
group by organization_id, client_id, month
