-- Revenue-cycle KPIs per tenant and month, each computed as its numerator over its denominator
-- (definitions, numerators and denominators in _analytics.yml). Claim-cohort KPIs count a claim in
-- its adjudication month (month of its first remittance); balance KPIs (A/R, aged A/R, DNFB) are
-- the state at the month's last day. Every month from the tenant's first to its last is a row, so a
-- month with nothing adjudicated is a row whose rates are null (a ratio is null when its
-- denominator is 0, never 0).
--
-- Maturity is measured against the tenant's data horizon, `data_as_of` = the latest remittance
-- payment or 837 submission date it sent up to the build date. The final denial write-off's horizon
-- is the build date itself (build_date(): the `build_date` var or the run's UTC day): the appeal
-- window closes on the calendar, not when a later file arrives. A remittance dated after the build
-- date is a data-quality finding (fct_kpi_data_findings), not counted: its claim is left out here and
-- its date never moves the horizon. A claim whose 837 was "submitted" before its service ended is a
-- finding too: its submission date is not used (its A/R opens at the statement end).
--
-- Denial cases count in the month they opened, closed or were decided (int_denial_case_outcomes).
-- Case work runs on the calendar, not on the files: a month with case activity is a row even after
-- the data horizon's month, and such a month's balances are null (no file speaks of them yet).
{% set maturity_days = var('overturn_maturity_days', 90) %}
{% set after_horizon = "coalesce(balances.month > " ~ month_of('horizon.data_as_of') ~ ", false)" %}
with recursive
-- Claims as of the build date: a claim first adjudicated after it is a finding, left out. The write-off
-- date (int_claims_reconciled.write_off_date, the one definition arOperations.aging reads too) is the
-- day the appeal window of a denial never paid later closed (by the build date).
claims as (
    select
        *,
        case
            when statement_to is null or submission_date >= statement_to then submission_date
        end as kpi_submission_date
    from {{ ref('int_claims_reconciled') }}
    where initial_payment_date is null or initial_payment_date <= {{ build_date() }}
),
adjudicated as (
    select * from claims
    where adjudication_month is not null
),
-- The latest date the tenant's files speak of up to the build date: its last remittance payment or
-- 837 submission (a future-dated remittance never pushes it out).
horizon as (
    select organization_id, client_id, max(known_date) as data_as_of
    from (
        select organization_id, client_id, payment_date as known_date from {{ ref('fct_remittance_claims') }}
        union all
        select organization_id, client_id, kpi_submission_date as known_date from claims
    ) as known
    where known_date <= {{ build_date() }}
    group by organization_id, client_id
),
-- Contractual adjustments: CO amounts that are not payer denials, net over the claim's history to
-- the build date; predeterminations are not adjudications. Reversal netting: a negative amount (a
-- CLP02=22 reversal's CAS, or a correction) undoes an original of the same CARC, so it is contractual
-- only when that CARC is not a denial reason: a reversal's CO-50 of -3,000 undoes a denial, it is not
-- a contractual adjustment (tests/fixtures/x12/hand/kpi_map_*.835: 1,910, not -1,090).
contractual as (
    select
        adjustments.organization_id,
        adjustments.client_id,
        adjustments.claim_key,
        sum(adjustments.amount) as contractual_amount
    from {{ ref('fct_claim_adjustments') }} as adjustments
    left join {{ ref('stg_reference__carc') }} as carc on carc.carc = adjustments.carc
    where
        adjustments.group_code = 'CO' and not adjustments.is_payer_denial
        and adjustments.claim_status_code <> '25'
        and not (adjustments.amount < 0 and coalesce(carc.carc_is_denial, false))
        and adjustments.payment_date <= {{ build_date() }}
    group by adjustments.organization_id, adjustments.client_id, adjustments.claim_key
),
-- Decisions (not reversals, not predeterminations) of the initially denied claims, with CLP09.
denied_events as (
    select
        events.organization_id,
        events.client_id,
        events.claim_key,
        events.payer_key,
        events.event_sequence,
        events.claim_status_code,
        events.is_denied,
        events.provider_denied_amount,
        sequenced.frequency_code,
        row_number() over (
            partition by events.organization_id, events.client_id, events.claim_key order by events.event_sequence
        ) as decision_number
    from {{ ref('fct_remittance_claims') }} as events
    inner join adjudicated
        on adjudicated.organization_id = events.organization_id and adjudicated.client_id = events.client_id
        and adjudicated.claim_key = events.claim_key
    left join {{ ref('int_remittance_claims_sequenced') }} as sequenced
        on sequenced.remittance_claim_key = events.remittance_claim_key
    where adjudicated.initially_denied and not events.is_reversal and events.claim_status_code <> '25'
),
-- The provider corrected and billed the claim again (837 frequency 7 or 8) after the denial (or at
-- an unknown date): a later payment pays the corrected claim, it is not an appeal overturn.
resubmitted as (
    select distinct submitted.organization_id, submitted.client_id, submitted.claim_key
    from {{ ref('stg_claims__claims') }} as submitted
    inner join adjudicated
        on adjudicated.organization_id = submitted.organization_id and adjudicated.client_id = submitted.client_id
        and adjudicated.claim_key = submitted.claim_key
    where
        submitted.frequency_code in ('7', '8')
        and (submitted.submission_date is null or submitted.submission_date > adjudicated.initial_payment_date)
),
-- Appeal overturn: a later decision without a denial by the same payer as the denial, that is not
-- a coordination-of-benefits adjudication (CLP02 2/3/20/21: processed as secondary or tertiary)
-- nor the adjudication of a corrected claim (CLP09 7/8). Payers are told apart by payer_key.
appeal_overturns as (
    select later.organization_id, later.client_id, later.claim_key
    from denied_events as later
    inner join denied_events as first_decision
        on first_decision.organization_id = later.organization_id and first_decision.client_id = later.client_id
        and first_decision.claim_key = later.claim_key and first_decision.decision_number = 1
    where
        later.decision_number > 1
        and not later.is_denied
        and later.payer_key = first_decision.payer_key
        and later.claim_status_code not in ('2', '3', '20', '21')
        and coalesce(later.frequency_code, '1') not in ('7', '8')
    group by later.organization_id, later.client_id, later.claim_key
),
claim_kpis as (
    select
        adjudicated.*,
        coalesce(contractual.contractual_amount, 0) as contractual_amount,
        first_decision.provider_denied_amount as initial_provider_denied_amount,
        adjudicated.initially_denied and adjudicated.overturned and appeal_overturns.claim_key is not null
        and resubmitted.claim_key is null as appeal_overturned,
        -- ... and credited to denial work: a person worked the claim's case before the payment date of
        -- the remittance that paid (int_denial_claim_work; issue 24)
        adjudicated.initially_denied and adjudicated.overturned and appeal_overturns.claim_key is not null
        and resubmitted.claim_key is null and coalesce(work_done.first_worked_on < adjudicated.recovery_date, false)
            as worked_overturned,
        -- Final denial write-off until case outcomes exist: denied, never paid later by anyone, and
        -- the appeal window has closed by the build date (claims.write_off_date).
        adjudicated.write_off_date is not null as finally_written_off
    from adjudicated
    left join contractual
        on contractual.organization_id = adjudicated.organization_id and contractual.client_id = adjudicated.client_id
        and contractual.claim_key = adjudicated.claim_key
    left join denied_events as first_decision
        on first_decision.organization_id = adjudicated.organization_id
        and first_decision.client_id = adjudicated.client_id
        and first_decision.claim_key = adjudicated.claim_key and first_decision.decision_number = 1
    left join appeal_overturns
        on appeal_overturns.organization_id = adjudicated.organization_id
        and appeal_overturns.client_id = adjudicated.client_id and appeal_overturns.claim_key = adjudicated.claim_key
    left join resubmitted
        on resubmitted.organization_id = adjudicated.organization_id and resubmitted.client_id = adjudicated.client_id
        and resubmitted.claim_key = adjudicated.claim_key
    left join {{ ref('int_denial_claim_work') }} as work_done
        on work_done.organization_id = adjudicated.organization_id and work_done.client_id = adjudicated.client_id
        and work_done.claim_key = adjudicated.claim_key
),
cohort as (
    select
        organization_id,
        client_id,
        adjudication_month as month,
        count(*) as claims_adjudicated,
        sum(remit_billed_amount) as billed_amount,
        sum(paid_amount) as paid_amount,
        sum(patient_responsibility) as patient_responsibility,
        sum(contractual_amount) as contractual_amount,
        sum(case when initially_denied then 1 else 0 end) as initially_denied_claims,
        sum(initial_denied_amount) as initial_denied_amount,
        sum(case when initially_denied then remit_billed_amount else 0 end)
            as initially_denied_charges,
        sum(case when not initially_denied then 1 else 0 end) as clean_claims,
        sum(case when finally_written_off then 1 else 0 end) as final_write_off_claims,
        sum(case when finally_written_off then initial_provider_denied_amount else 0 end)
            as final_denial_write_off_amount,
        avg(cast(days_to_pay as double precision)) as avg_days_to_pay,
        sum(case when overturned then 1 else 0 end) as overturned_claims,
        sum(case when appeal_overturned then 1 else 0 end) as appeal_overturned_claims,
        sum(case when worked_overturned then 1 else 0 end) as worked_overturned_claims,
        sum(recovered_amount) as recovered_amount
    from claim_kpis
    group by organization_id, client_id, adjudication_month
),
case_outcomes as (
    select * from {{ ref('int_denial_case_outcomes') }}
),
-- Claims the remittance rule already writes off (in their adjudication month): a case decided lost
-- or written off on such a claim adds nothing to the final denial write-off, so no claim counts twice.
remittance_write_offs as (
    select distinct organization_id, client_id, claim_key
    from claim_kpis
    where finally_written_off
),
-- One row per thing that happened to a case in a month: opened, closed, decided (with its money).
case_activity as (
    select
        organization_id, client_id, opened_month as month, 'opened' as activity, cast(null as varchar) as outcome,
        {{ money(0) }} as recovered_amount, {{ money(0) }} as written_off_amount,
        {{ money(0) }} as final_write_off_amount, cast(null as varchar) as final_write_off_claim
    from case_outcomes
    union all
    select
        organization_id, client_id, closed_month as month, 'closed' as activity, cast(null as varchar) as outcome,
        {{ money(0) }} as recovered_amount, {{ money(0) }} as written_off_amount,
        {{ money(0) }} as final_write_off_amount, cast(null as varchar) as final_write_off_claim
    from case_outcomes
    where closed_month is not null
    union all
    select
        case_outcomes.organization_id,
        case_outcomes.client_id,
        case_outcomes.decision_month as month,
        'decided' as activity,
        case_outcomes.outcome,
        case_outcomes.recovered_amount,
        case when case_outcomes.outcome in ('lost', 'written_off') then case_outcomes.written_off_amount else 0 end
            as written_off_amount,
        case
            when case_outcomes.outcome in ('lost', 'written_off') and remittance_write_offs.claim_key is null
                then case_outcomes.written_off_amount
            else 0
        end as final_write_off_amount,
        case
            when case_outcomes.outcome in ('lost', 'written_off') and remittance_write_offs.claim_key is null
                then case_outcomes.claim_key
        end as final_write_off_claim
    from case_outcomes
    left join remittance_write_offs
        on remittance_write_offs.organization_id = case_outcomes.organization_id
        and remittance_write_offs.client_id = case_outcomes.client_id
        and remittance_write_offs.claim_key = case_outcomes.claim_key
    where case_outcomes.decision_month is not null
),
case_monthly as (
    select
        organization_id,
        client_id,
        month,
        sum(case when activity = 'opened' then 1 else 0 end) as cases_opened,
        sum(case when activity = 'closed' then 1 else 0 end) as cases_closed,
        sum(case when activity = 'decided' then 1 else 0 end) as cases_decided,
        sum(case when outcome = 'won' then 1 else 0 end) as cases_won,
        sum(case when outcome = 'partially_won' then 1 else 0 end) as cases_partially_won,
        sum(case when outcome = 'lost' then 1 else 0 end) as cases_lost,
        sum(case when outcome = 'written_off' then 1 else 0 end) as cases_written_off,
        sum(recovered_amount) as case_recovered_amount,
        sum(written_off_amount) as case_written_off_amount,
        sum(final_write_off_amount) as case_final_write_off_amount,
        count(distinct final_write_off_claim) as case_final_write_off_claims
    from case_activity
    group by organization_id, client_id, month
),
-- Balances as intervals [opened, closed) of an amount: open A/R while awaiting the first remittance
-- (the charge, from the 837 submission date or else the statement end), while denied and not
-- overturned (the denied amount, from the denial to the overturn) and, for a claim paid and then
-- recouped into a denial, from the recoupment on; aged A/R is the part of those
-- intervals after day 90 from the statement end; DNFB from the statement end to the submission date.
segments as (
    select
        organization_id, client_id, 'ar' as balance, coalesce(kpi_submission_date, statement_to) as opened,
        initial_payment_date as closed, billed_amount as amount, statement_to
    from claims
    where coalesce(kpi_submission_date, statement_to) is not null and billed_amount is not null
    union all
    -- the same charges awaiting their first remittance, apart: net A/R values them net of contractual
    select
        organization_id, client_id, 'awaiting' as balance, coalesce(kpi_submission_date, statement_to) as opened,
        initial_payment_date as closed, billed_amount as amount, statement_to
    from claims
    where coalesce(kpi_submission_date, statement_to) is not null and billed_amount is not null
    union all
    -- denied: open until paid later (the overturn) or written off (the appeal window closed): a
    -- written-off balance leaves A/R
    select
        organization_id, client_id, 'ar' as balance, initial_payment_date as opened,
        case when overturned then recovery_date else write_off_date end as closed, initial_denied_amount as amount,
        statement_to
    from claims
    where initially_denied
    union all
    -- paid at first, then taken back and denied (a recoupment that ends denied): open from the last
    -- remittance, for what the current decision denies, until something pays it again
    select
        organization_id, client_id, 'ar' as balance, last_payment_date as opened,
        cast(null as date) as closed, current_denied_amount as amount, statement_to
    from claims
    where not initially_denied and currently_denied and last_payment_date is not null
    union all
    select
        organization_id, client_id, 'dnfb' as balance, statement_to as opened, kpi_submission_date as closed,
        billed_amount as amount, statement_to
    from claims
    where kpi_submission_date is not null and statement_to is not null and billed_amount is not null
),
balance_segments as (
    select organization_id, client_id, balance, opened, closed, amount from segments
    union all
    select
        organization_id, client_id, 'aged_ar' as balance,
        greatest(opened, cast({{ dbt.dateadd('day', 91, 'statement_to') }} as date)) as opened, closed, amount
    from segments
    where balance = 'ar' and statement_to is not null
),
-- +amount in the month it opens, -amount in the month it closes: the running sum is the balance
-- at each month's end (opened <= month end < closed).
deltas as (
    select organization_id, client_id, balance, {{ month_of('opened') }} as month, amount as delta
    from balance_segments
    where closed is null or closed > opened
    union all
    select organization_id, client_id, balance, {{ month_of('closed') }} as month, -amount as delta
    from balance_segments
    where closed is not null and closed > opened
),
monthly_deltas as (
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
),
discharges as (
    select
        organization_id,
        client_id,
        {{ month_of('statement_to') }} as month,
        sum(case when kpi_submission_date is not null then billed_amount else 0 end) as discharged_billed_charges,
        count(kpi_submission_date) as discharged_claims_with_submission_date
    from claims
    where statement_to is not null
    group by organization_id, client_id, {{ month_of('statement_to') }}
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
