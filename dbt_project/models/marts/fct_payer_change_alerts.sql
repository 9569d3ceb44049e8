-- A payer behaving outside its usual range: for each payer and month, the denial rate of each CARC
-- (claims denied with that primary CARC / claims adjudicated) and the mean days to pay are compared
-- with the same series over all *prior* months of that payer. An alert is raised when
--     value > baseline_mean + {{ var('alert_sigmas', 3) }} x max(baseline_stddev, floor)
-- with at least {{ var('alert_min_baseline_months', 3) }} prior months and at least
-- {{ var('alert_min_claims', 20) }} claims adjudicated in the month. The floor (1 percentage point
-- for rates, 1 day for days to pay) keeps a perfectly flat history from alerting on noise.
with payer_months as (
    select * from {{ ref('fct_payer_monthly') }}
),
carc_months as (
    select
        organization_id, client_id, payer_sk, adjudication_month, primary_denial_carc as carc, count(*) as denied_claims
    from {{ ref('fct_claim_reconciliation') }}
    where initially_denied and adjudication_month is not null and primary_denial_carc is not null
    group by organization_id, client_id, payer_sk, adjudication_month, primary_denial_carc
),
payer_carcs as (
    select distinct payer_sk, carc from carc_months
),
series as (
    select
        payer_months.organization_id,
        payer_months.client_id,
        payer_months.payer_sk,
        payer_months.payer_key,
        payer_months.adjudication_month,
        'carc_denial_rate' as metric,
        payer_carcs.carc,
        payer_months.claims_adjudicated,
        {{ ratio('coalesce(carc_months.denied_claims, 0)', 'payer_months.claims_adjudicated') }} as metric_value,
        0.01 as stddev_floor
    from payer_months
    inner join payer_carcs on payer_carcs.payer_sk = payer_months.payer_sk
    left join carc_months
        on carc_months.payer_sk = payer_months.payer_sk
        and carc_months.adjudication_month = payer_months.adjudication_month
        and carc_months.carc = payer_carcs.carc
    union all
    select
        organization_id,
        client_id,
        payer_sk,
        payer_key,
        adjudication_month,
        'days_to_pay' as metric,
        '' as carc,
        claims_adjudicated,
        avg_days_to_pay as metric_value,
        1.0 as stddev_floor
    from payer_months
),
with_baseline as (
    select
        *,
        avg(metric_value) over prior as baseline_mean,
        stddev_samp(metric_value) over prior as baseline_stddev,
        count(*) over prior as baseline_months
    from series
    window prior as (
        partition by payer_sk, metric, carc order by adjudication_month
        rows between unbounded preceding and 1 preceding
    )
),
scored as (
    select
        *,
        baseline_mean
        + {{ var('alert_sigmas', 3) }} * greatest(coalesce(baseline_stddev, 0), stddev_floor) as threshold,
        (metric_value - baseline_mean) / greatest(coalesce(baseline_stddev, 0), stddev_floor) as z_score
    from with_baseline
)
select
    {{ tenant_key('payer_sk', 'metric', 'carc', 'adjudication_month') }} as alert_key,
    organization_id,
    client_id,
    payer_sk,
    payer_key,
    adjudication_month,
    metric,
    nullif(carc, '') as carc,
    claims_adjudicated,
    metric_value,
    baseline_mean,
    baseline_stddev,
    baseline_months,
    threshold,
    z_score
from scored
where
    baseline_months >= {{ var('alert_min_baseline_months', 3) }}
    and claims_adjudicated >= {{ var('alert_min_claims', 20) }}
    and metric_value > threshold
