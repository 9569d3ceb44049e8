{{ config(materialized='table') }}
-- fct_claim_reconciliation without the contract price: one row per claim and tenant, submitted or
-- remitted (definitions there). The claim-level marts that need no contract price (KPIs, ROI) read
-- this table, so they build while the service lines and the claim pricing are still being computed
-- (the payer views read int_claim_payer_adjudications: a denial is its payer's); fct_claim_reconciliation
-- adds the price
-- (fct_claim_pricing, read on primary_remittance_claim_key).
--
-- write_off_date (the final denial write-off's remittance rule, HFMA MAP Key "Final Denials
-- Write-off", defined once here for fct_kpis_monthly and arOperations): the day the appeal window of a
-- claim initially denied and never overturned closed, when that is on or before the build date
-- (build_date()). The window until payer classes exist is the longest first-level appeal window of the
-- payer_appeal_limits seed (180 days: ERISA internal appeal and the commercial default), so no denial
-- is called final before any payer's window has closed. From that day the denial is no longer
-- receivable: it leaves A/R (fct_kpis_monthly's balances, arOperations.aging).
{% set window_closes = "cast(" ~ dbt.dateadd('day', 'appeal_window.appeal_days', 'adjudicated.initial_payment_date')
    ~ " as date)" %}
with submitted as (
    select * from {{ ref('int_submitted_claims_deduplicated') }}
),
adjudicated as (
    select * from {{ ref('int_claims_latest_status') }}
),
appeal_window as (
    select max(days) as appeal_days
    from {{ ref('payer_appeal_limits') }}
    where level in ('redetermination', 'internal_appeal', 'first_level_appeal')
),
keys as (
    select organization_id, client_id, claim_key from submitted
    union
    select organization_id, client_id, claim_key from adjudicated
)
select
    {{ tenant_key('keys.organization_id', 'keys.client_id', 'keys.claim_key') }} as claim_sk,
    keys.organization_id,
    keys.client_id,
    keys.claim_key,
    {{ tenant_key('keys.organization_id', 'keys.client_id', 'coalesce(adjudicated.payer_key, submitted.payer_key)') }}
        as payer_sk,
    coalesce(adjudicated.payer_key, submitted.payer_key) as payer_key,
    coalesce(adjudicated.payer_id, submitted.payer_id) as payer_id,
    adjudicated.payer_class,
    adjudicated.last_payer_key,
    coalesce(adjudicated.payer_count, 0) as payer_count,
    submitted.claim_type,
    submitted.facility_code,
    coalesce(submitted.statement_from, adjudicated.statement_from) as statement_from,
    coalesce(submitted.statement_to, adjudicated.statement_to) as statement_to,
    {{ month_of('coalesce(submitted.statement_from, adjudicated.statement_from)') }} as service_month,
    submitted.submission_date,
    submitted.billed_amount as submitted_billed_amount,
    adjudicated.remit_billed_amount,
    coalesce(submitted.billed_amount, adjudicated.remit_billed_amount) as billed_amount,
    coalesce(adjudicated.final_paid_amount, 0) as paid_amount,
    coalesce(adjudicated.final_patient_responsibility, 0) as patient_responsibility,
    adjudicated.initial_paid_amount,
    adjudicated.initial_patient_responsibility,
    adjudicated.initial_payment_date,
    adjudicated.initial_remittance_claim_key,
    adjudicated.primary_remittance_claim_key,
    adjudicated.adjudication_month,
    adjudicated.initial_status_code,
    adjudicated.latest_status_code,
    coalesce(adjudicated.initially_denied, false) as initially_denied,
    coalesce(adjudicated.initially_fully_denied, false) as initially_fully_denied,
    coalesce(adjudicated.initial_denied_amount, 0) as initial_denied_amount,
    coalesce(adjudicated.current_is_denied, false) as currently_denied,
    coalesce(adjudicated.current_denied_amount, 0) as current_denied_amount,
    adjudicated.primary_denial_category,
    adjudicated.primary_carc_category,
    adjudicated.primary_denial_group_code,
    adjudicated.primary_denial_carc,
    adjudicated.primary_denial_hard_or_soft,
    adjudicated.primary_denial_preventable,
    coalesce(adjudicated.overturned, false) as overturned,
    coalesce(adjudicated.recovered_amount, 0) as recovered_amount,
    adjudicated.recovery_date,
    case
        when
            adjudicated.initially_denied and not coalesce(adjudicated.overturned, false)
            and {{ window_closes }} <= {{ build_date() }}
            then {{ window_closes }}
    end as write_off_date,
    adjudicated.last_payment_date,
    coalesce(adjudicated.remittance_events, 0) as remittance_events,
    coalesce(adjudicated.reversals, 0) as reversals,
    coalesce(adjudicated.claim_outcome, 'awaiting_remittance') as claim_outcome,
    case
        when submitted.claim_key is null then 'remittance_without_claim'
        when adjudicated.claim_key is null then 'awaiting_remittance'
        when adjudicated.remit_billed_amount <> submitted.billed_amount then 'charge_mismatch'
        else 'matched'
    end as match_status,
    {{ dbt.datediff(
        'coalesce(adjudicated.claim_received_date, adjudicated.statement_to)',
        'adjudicated.initial_payment_date',
        'day',
    ) }} as days_to_pay
from keys
left join submitted
    on submitted.organization_id = keys.organization_id and submitted.client_id = keys.client_id
    and submitted.claim_key = keys.claim_key
left join adjudicated
    on adjudicated.organization_id = keys.organization_id and adjudicated.client_id = keys.client_id
    and adjudicated.claim_key = keys.claim_key
cross join appeal_window
