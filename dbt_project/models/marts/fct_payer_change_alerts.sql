-- The change radar's tested cells: one row per payer x month x metric (x CARC) that has enough
-- history and volume to be tested against the payer's own baseline. This mart holds the counts;
-- the significance test and the Benjamini-Hochberg correction across every cell of the tenant are
-- applied when the alerts are read (api/intelligence/payer_change_radar/statistics.py), because BH
-- ranks all cells at once and neither DuckDB nor PostgreSQL has a binomial tail. A row is an alert
-- when its BH q-value is <= the false discovery rate (0.05).
--
-- Baseline: the payer's previous months, up to {{ var('alert_baseline_max_months', 12) }}. A cell
-- needs {{ var('alert_min_baseline_months', 3) }} baseline months, {{ var('alert_min_claims', 20) }}
-- claims adjudicated in the month and at least {{ var('alert_min_volume_share', 0.5) }} x the
-- baseline's mean monthly volume: a month whose volume collapsed (an incomplete latest month, the
-- tail of a payer's run-off) has a biased mix (only the slowest claims, say) and is not tested.
-- carc_denial_rate: every CARC of a denial adjustment (claim or line level) on the payer's initial
-- remittance of the claim counts, not only the primary one; a claim counts once per payer and CARC.
-- Per claim and payer (int_claim_payer_adjudications, as fct_payer_monthly's claims_adjudicated): a
-- denial is the deciding payer's, so a claim paid by its primary and denied by its secondary
-- (X12 835 TR3 CLP02 = 2 / 3: processed as secondary / tertiary) counts for the secondary, never the
-- primary.
-- k = denied_claims of n = claims_adjudicated against K and N summed over the baseline months; tested
-- when the total k + K >= {{ var('alert_min_denials', 5) }} (the minimum denial count). The filter is on the total,
-- never on k alone (issue 24): the test is conditional on k + K (k ~ Binomial(k + K, n / (n + N))
-- under no change), so a filter on the total leaves its p-values exact, while keeping only the cells
-- whose own k is high selects on the outcome and tests only the cells already up.
-- days_to_pay: the month's mean days to pay against the mean and the standard deviation of the
-- baseline months' means (month-to-month spread, which holds the payment-calendar effects a
-- claim-level spread ignores).
with payer_months as (
    select * from {{ ref('fct_payer_monthly') }}
),
initial_decisions as (
    -- each payer's initial decision of each claim (the claim x payer rows fct_payer_monthly counts)
    select organization_id, client_id, claim_key, payer_sk, adjudication_month, initial_remittance_claim_key
    from {{ ref('int_claim_payer_adjudications') }}
    where adjudication_month is not null
),
carc_claims as (
    -- distinct: a claim denied with one CARC on several lines counts once for that payer and CARC
    select distinct
        initial_decisions.payer_sk,
        initial_decisions.adjudication_month,
        initial_decisions.claim_key,
        adjustments.carc
    from initial_decisions
    inner join {{ ref('fct_claim_adjustments') }} as adjustments
        on
        adjustments.organization_id = initial_decisions.organization_id
        and adjustments.client_id = initial_decisions.client_id
        and adjustments.remittance_claim_key = initial_decisions.initial_remittance_claim_key
    where adjustments.is_denial and adjustments.carc is not null
),
carc_months as (
    select
        payer_sk,
        adjudication_month,
        carc,
        count(*) as denied_claims
    from carc_claims
    group by payer_sk, adjudication_month, carc
),
payer_carcs as (
    select distinct payer_sk, carc from carc_months
),
carc_series as (
    select
        payer_months.organization_id,
        payer_months.client_id,
        payer_months.payer_sk,
        payer_months.payer_key,
        payer_months.adjudication_month,
        payer_carcs.carc,
        payer_months.claims_adjudicated,
        coalesce(carc_months.denied_claims, 0) as denied_claims
    from payer_months
    inner join payer_carcs on payer_carcs.payer_sk = payer_months.payer_sk
    left join carc_months
        on
        carc_months.payer_sk = payer_months.payer_sk
        and carc_months.adjudication_month = payer_months.adjudication_month
        and carc_months.carc = payer_carcs.carc
),
carc_baselines as (
    select
        *,
        sum(denied_claims) over prior as baseline_denied_claims,
        sum(claims_adjudicated) over prior as baseline_sample_size,
        avg(claims_adjudicated) over prior as baseline_monthly_claims,
        count(*) over prior as baseline_months
    from carc_series
    window prior as (
        partition by payer_sk, carc order by adjudication_month
        rows between {{ var('alert_baseline_max_months', 12) }} preceding and 1 preceding
    )
),
carc_cells as (
    select
        organization_id,
        client_id,
        payer_sk,
        payer_key,
        adjudication_month,
        'carc_denial_rate' as metric,
        carc,
        claims_adjudicated,
        claims_adjudicated as sample_size,
        {{ ratio('denied_claims', 'claims_adjudicated') }} as metric_value,
        denied_claims,
        baseline_denied_claims,
        baseline_sample_size,
        {{ ratio('baseline_denied_claims', 'baseline_sample_size') }} as baseline_mean,
        cast(null as double precision) as baseline_stddev,
        baseline_months,
        {{ var('alert_min_denials', 5) }} as min_denials
    from carc_baselines
    where
        baseline_months >= {{ var('alert_min_baseline_months', 3) }}
        and claims_adjudicated >= {{ var('alert_min_claims', 20) }}
        and denied_claims + baseline_denied_claims >= {{ var('alert_min_denials', 5) }}
        and claims_adjudicated >= {{ var('alert_min_volume_share', 0.5) }} * baseline_monthly_claims
),
days_baselines as (
    select
        *,
        avg(avg_days_to_pay) over prior as baseline_mean,
        stddev_samp(avg_days_to_pay) over prior as baseline_stddev,
        count(avg_days_to_pay) over prior as baseline_months,
        sum(claims_adjudicated) over prior as baseline_sample_size,
        avg(claims_adjudicated) over prior as baseline_monthly_claims
    from payer_months
    window prior as (
        partition by payer_sk order by adjudication_month
        rows between {{ var('alert_baseline_max_months', 12) }} preceding and 1 preceding
    )
),
days_cells as (
    select
        organization_id,
        client_id,
        payer_sk,
        payer_key,
        adjudication_month,
        'days_to_pay' as metric,
        '' as carc,
        claims_adjudicated,
        claims_adjudicated as sample_size,
        avg_days_to_pay as metric_value,
        cast(null as bigint) as denied_claims,
        cast(null as bigint) as baseline_denied_claims,
        baseline_sample_size,
        baseline_mean,
        baseline_stddev,
        baseline_months,
        cast(null as integer) as min_denials
    from days_baselines
    where
        avg_days_to_pay is not null
        and baseline_months >= {{ var('alert_min_baseline_months', 3) }}
        and claims_adjudicated >= {{ var('alert_min_claims', 20) }}
        and claims_adjudicated >= {{ var('alert_min_volume_share', 0.5) }} * baseline_monthly_claims
),
cells as (
    select * from carc_cells
    union all
    select * from days_cells
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
    sample_size,
    metric_value,
    denied_claims,
    baseline_denied_claims,
    baseline_sample_size,
    baseline_mean,
    baseline_stddev,
    baseline_months,
    min_denials
from cells
