-- Revenue-cycle KPIs per tenant and month, each computed as its numerator over its denominator
-- (definitions, numerators and denominators in _analytics.yml). Claim-cohort KPIs count a claim in
-- its adjudication month (month of its first remittance); balance KPIs (A/R, aged A/R, DNFB) are
-- the state at the month's last day. Every month from the tenant's first to its last is a row, so a
-- month with nothing adjudicated is a row whose rates are null (a ratio is null when its
-- denominator is 0, never 0).
--
-- The figures are built by the intermediate models (_intermediate.yml), this mart lays them on the
-- tenant's month spine and divides:
--   int_claims_measured              the claims as of the build date (findings left out)
--   int_data_horizons_dated          each tenant's data horizon (data_as_of)
--   int_claims_adjudicated_by_month  the claim cohort of each adjudication month
--   int_denial_cases_counted_by_month  the denial cases opened, closed, decided in each month
--   int_ar_balances_segmented        each claim's A/R, aged A/R and DNFB segments (opened, closed)
--   int_ar_balances_changed_by_month   their changes per month (summed here into month-end balances)
--   int_claims_discharged_by_month   the discharged charges with a submission date (DNFB's denominator)
--
-- Maturity is measured against the tenant's data horizon, `data_as_of` = the latest remittance
-- payment or 837 submission date it sent up to the build date. The final denial write-off's horizon
-- is the build date itself (build_date(): the `build_date` var or the run's UTC day): the appeal
-- window closes on the calendar, not when a later file arrives. A remittance dated after the build
-- date is a data-quality finding (fct_kpi_data_findings), not counted: its claim is left out and
-- its date never moves the horizon. A claim whose 837 was "submitted" before its service ended is a
-- finding too: its submission date is not used (its A/R opens at the statement end).
--
-- Case work runs on the calendar, not on the files: a month with case activity is a row even after
-- the data horizon's month, and such a month's balances are null (no file speaks of them yet).
{% set maturity_days = var('overturn_maturity_days', 90) %}
{% set after_horizon = "coalesce(balances.month > " ~ month_of('horizon.data_as_of') ~ ", false)" %}
with recursive
horizon as (
    select * from {{ ref('int_data_horizons_dated') }}
),
cohort as (
    select * from {{ ref('int_claims_adjudicated_by_month') }}
),
case_monthly as (
    select * from {{ ref('int_denial_cases_counted_by_month') }}
),
monthly_deltas as (
    select * from {{ ref('int_ar_balances_changed_by_month') }}
),
discharges as (
    select * from {{ ref('int_claims_discharged_by_month') }}
),
-- From the tenant's first month to the month of its data horizon: a balance that would only age
-- after the horizon (a later month) is a projection, not a fact. Months with case activity are rows
-- too, after the horizon's month as well (their balances are null).
bounds as (
    select
        all_months.organization_id,
        all_months.client_id,
        min(all_months.month) as first_month,
        max(
            case
                when all_months.kind = 'cases' or horizon.data_as_of is null then all_months.month
                else {{ month_of('horizon.data_as_of') }}
            end
        ) as last_month
    from (
        select organization_id, client_id, month, 'claims' as kind from cohort
        union all
        select organization_id, client_id, month, 'claims' as kind from monthly_deltas
        union all
        select organization_id, client_id, month, 'cases' as kind from case_monthly
    ) as all_months
    left join horizon
        on horizon.organization_id = all_months.organization_id and horizon.client_id = all_months.client_id
    group by all_months.organization_id, all_months.client_id
),
spine as (
    select organization_id, client_id, first_month as month, last_month from bounds
    union all
    select organization_id, client_id, cast({{ dbt.dateadd('month', 1, 'month') }} as date) as month, last_month
    from spine
    where month < last_month
),
balances as (
    select
        spine.organization_id,
        spine.client_id,
        spine.month,
        cast({{ dbt.datediff('spine.month', dbt.dateadd('month', 1, 'spine.month'), 'day') }} as integer)
            as days_in_month,
        sum(coalesce(monthly_deltas.ar_delta, 0)) over tenant_months as ar_amount,
        sum(coalesce(monthly_deltas.awaiting_delta, 0)) over tenant_months as awaiting_ar_amount,
        sum(coalesce(monthly_deltas.aged_ar_delta, 0)) over tenant_months as aged_ar_amount,
        sum(coalesce(monthly_deltas.dnfb_delta, 0)) over tenant_months as dnfb_amount
    from spine
    left join monthly_deltas
        on monthly_deltas.organization_id = spine.organization_id and monthly_deltas.client_id = spine.client_id
        and monthly_deltas.month = spine.month
    window tenant_months as (
        partition by spine.organization_id, spine.client_id order by spine.month rows unbounded preceding
    )
),
monthly as (
    select
        balances.organization_id,
        balances.client_id,
        balances.month,
        balances.days_in_month,
        horizon.data_as_of,
        coalesce(cohort.claims_adjudicated, 0) as claims_adjudicated,
        coalesce(cohort.billed_amount, 0) as billed_amount,
        coalesce(cohort.paid_amount, 0) as paid_amount,
        coalesce(cohort.patient_responsibility, 0) as patient_responsibility,
        coalesce(cohort.paid_amount, 0) + coalesce(cohort.patient_responsibility, 0) as net_patient_revenue,
        coalesce(cohort.contractual_amount, 0) as contractual_amount,
        coalesce(cohort.initially_denied_claims, 0) as initially_denied_claims,
        coalesce(cohort.initial_denied_amount, 0) as initial_denied_amount,
        coalesce(cohort.initially_denied_charges, 0) as initially_denied_charges,
        coalesce(cohort.clean_claims, 0) as clean_claims,
        coalesce(cohort.final_write_off_claims, 0) + coalesce(case_monthly.case_final_write_off_claims, 0)
            as final_write_off_claims,
        coalesce(cohort.final_denial_write_off_amount, 0) + coalesce(case_monthly.case_final_write_off_amount, 0)
            as final_denial_write_off_amount,
        coalesce(case_monthly.case_final_write_off_amount, 0) as case_final_write_off_amount,
        coalesce(case_monthly.cases_opened, 0) as cases_opened,
        coalesce(case_monthly.cases_closed, 0) as cases_closed,
        coalesce(case_monthly.cases_decided, 0) as cases_decided,
        coalesce(case_monthly.cases_won, 0) as cases_won,
        coalesce(case_monthly.cases_partially_won, 0) as cases_partially_won,
        coalesce(case_monthly.cases_lost, 0) as cases_lost,
        coalesce(case_monthly.cases_written_off, 0) as cases_written_off,
        coalesce(case_monthly.case_recovered_amount, 0) as case_recovered_amount,
        coalesce(case_monthly.case_written_off_amount, 0) as case_written_off_amount,
        cohort.avg_days_to_pay,
        coalesce(cohort.overturned_claims, 0) as overturned_claims,
        coalesce(cohort.appeal_overturned_claims, 0) as appeal_overturned_claims,
        coalesce(cohort.worked_overturned_claims, 0) as worked_overturned_claims,
        coalesce(cohort.recovered_amount, 0) as recovered_amount,
        -- HFMA MAP Key "Cost to Collect": the costs a manager recorded for the month, null without any
        collection_costs.collection_cost_amount as cost_to_collect_amount,
        -- after the data horizon's month no file speaks of the balances yet: unknown, not 0
        case when not {{ after_horizon }} then balances.ar_amount end as ar_amount,
        case when not {{ after_horizon }} then balances.awaiting_ar_amount end as awaiting_ar_amount,
        case when not {{ after_horizon }} then balances.aged_ar_amount end as aged_ar_amount,
        case when not {{ after_horizon }} then balances.dnfb_amount end as dnfb_amount,
        coalesce(discharges.discharged_billed_charges, 0) as discharged_billed_charges,
        coalesce(discharges.discharged_claims_with_submission_date, 0) as discharged_claims_with_submission_date
    from balances
    left join cohort
        on cohort.organization_id = balances.organization_id and cohort.client_id = balances.client_id
        and cohort.month = balances.month
    left join discharges
        on discharges.organization_id = balances.organization_id and discharges.client_id = balances.client_id
        and discharges.month = balances.month
    left join case_monthly
        on case_monthly.organization_id = balances.organization_id and case_monthly.client_id = balances.client_id
        and case_monthly.month = balances.month
    left join horizon
        on horizon.organization_id = balances.organization_id and horizon.client_id = balances.client_id
    left join {{ ref('stg_ops__collection_costs') }} as collection_costs
        on collection_costs.organization_id = balances.organization_id
        and collection_costs.client_id = balances.client_id and collection_costs.month = balances.month
),
-- Average daily revenue over the month and the two before it (HFMA's usual three-month basis), so a
-- month with little adjudicated does not make the days in A/R explode.
with_trailing as (
    select
        *,
        sum(net_patient_revenue) over last_three as trailing_net_patient_revenue,
        sum(days_in_month) over last_three as trailing_days,
        sum(discharged_billed_charges) over last_three as trailing_discharged_charges,
        -- the tenant's contractual allowance rate to the month (all its months so far): net A/R
        sum(contractual_amount) over to_date as contractual_to_date,
        sum(billed_amount) over to_date as billed_to_date,
        sum(discharged_claims_with_submission_date) over last_three as trailing_submitted_discharges
    from monthly
    window
        last_three as (
            partition by organization_id, client_id order by month rows between 2 preceding and current row
        ),
        to_date as (partition by organization_id, client_id order by month rows unbounded preceding)
),
-- HFMA MAP Key "Net Days in A/R": net A/R = the A/R less the expected contractual allowance of the
-- charges still awaiting their first remittance, at the tenant's contractual rate to date (denied
-- balances are already net of it; no rate yet: valued at the charge).
with_net as (
    select
        *,
        ar_amount
        - awaiting_ar_amount * coalesce({{ ratio('contractual_to_date', 'billed_to_date') }}, 0) as net_ar_amount
    from with_trailing
)
select
    {{ tenant_key('organization_id', 'client_id', 'month') }} as kpi_key,
    organization_id,
    client_id,
    month,
    data_as_of,
    claims_adjudicated,
    {{ money('billed_amount') }} as billed_amount,
    {{ money('paid_amount') }} as paid_amount,
    {{ money('patient_responsibility') }} as patient_responsibility,
    {{ money('net_patient_revenue') }} as net_patient_revenue,
    {{ money('contractual_amount') }} as contractual_amount,
    initially_denied_claims,
    {{ money('initial_denied_amount') }} as initial_denied_amount,
    {{ money('initially_denied_charges') }} as initially_denied_charges,
    {{ ratio('initially_denied_claims', 'claims_adjudicated') }} as initial_denial_rate,
    {{ ratio('initially_denied_charges', 'billed_amount') }} as initial_denial_rate_dollars,
    clean_claims,
    {{ ratio('clean_claims', 'claims_adjudicated') }} as first_pass_yield,
    -- HFMA's clean claim rate counts claims passing edits and accepted by the payer without
    -- intervention: that needs acknowledgements (999 / 277CA), which are not ingested yet.
    cast(null as double precision) as clean_claim_rate,
    final_write_off_claims,
    {{ money('final_denial_write_off_amount') }} as final_denial_write_off_amount,
    {{ money('case_final_write_off_amount') }} as case_final_write_off_amount,
    {{ ratio('final_denial_write_off_amount', 'net_patient_revenue') }} as final_denial_write_off_pct,
    avg_days_to_pay,
    overturned_claims,
    appeal_overturned_claims,
    worked_overturned_claims,
    {{ ratio('worked_overturned_claims', 'initially_denied_claims') }} as overturn_rate,
    data_as_of is not null
    and cast({{ dbt.dateadd('day', maturity_days, dbt.dateadd('month', 1, 'month')) }} as date)
    <= cast({{ dbt.dateadd('day', 1, 'data_as_of') }} as date) as is_mature,
    {{ money('recovered_amount') }} as recovered_amount,
    cases_opened,
    cases_closed,
    cases_decided,
    cases_won,
    cases_partially_won,
    cases_lost,
    cases_written_off,
    {{ ratio('cases_won + cases_partially_won', 'cases_decided') }} as case_win_rate,
    {{ money('case_recovered_amount') }} as case_recovered_amount,
    {{ money('case_written_off_amount') }} as case_written_off_amount,
    -- payer payments over what the payers owed: patient payments are not received by the platform, so
    -- the patient's liability is out of the denominator too (HFMA MAP Key adjusted collection rate)
    {{ ratio('paid_amount', 'billed_amount - contractual_amount - patient_responsibility') }}
        as net_collection_rate,
    {{ money('cost_to_collect_amount') }} as cost_to_collect_amount,
    {{ ratio('cost_to_collect_amount', 'paid_amount') }} as cost_to_collect,
    {{ money('ar_amount') }} as ar_amount,
    {{ money('aged_ar_amount') }} as aged_ar_amount,
    {{ ratio('aged_ar_amount', 'ar_amount') }} as aged_ar_over_90_pct,
    days_in_month,
    trailing_days,
    {{ money('trailing_net_patient_revenue') }} as trailing_net_patient_revenue,
    {{ money('net_ar_amount') }} as net_ar_amount,
    {{ ratio('net_ar_amount', ratio('trailing_net_patient_revenue', 'trailing_days')) }} as days_in_ar,
    -- DNFB needs 837 submission dates: null unless claims discharged in the three months carry one.
    {{ money('case when trailing_submitted_discharges > 0 then dnfb_amount end') }} as dnfb_amount,
    {{ money('discharged_billed_charges') }} as discharged_billed_charges,
    {{ money('trailing_discharged_charges') }} as trailing_discharged_charges,
    {{ ratio(
        'case when trailing_submitted_discharges > 0 then dnfb_amount end',
        ratio('trailing_discharged_charges', 'trailing_days'),
    ) }} as days_in_dnfb
from with_net
