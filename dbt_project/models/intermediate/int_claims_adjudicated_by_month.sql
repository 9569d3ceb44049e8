-- Claim-cohort figures per tenant and adjudication month (month of the claim's first remittance that is
-- not a reversal or a predetermination), one row per month with a claim adjudicated: volumes, money,
-- initial denials (HFMA MAP Key "Initial Denial Rate"), first-pass yield, the remittance rule of the
-- final denial write-off (HFMA MAP Key "Final Denials Write-off": int_claims_reconciled.write_off_date),
-- days to pay, overturns (appeal overturns and those credited to denial work, issue 24) and the
-- contractual adjustments the net collection rate and net A/R are built on (HFMA MAP Keys "Net
-- Collection Rate", "Net Days in A/R"). fct_kpis_monthly joins it on its month spine; the definitions,
-- numerators and denominators are documented there (_analytics.yml).
with
adjudicated as (
    select * from {{ ref('int_claims_measured') }}
    where adjudication_month is not null
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
)
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
