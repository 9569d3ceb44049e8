-- One row per claim (tenant + patient control number) that has an initial adjudication:
-- the first non-reversal CLP is the initial decision; a CLP02=22 reversal undoes an earlier
-- payment and a later non-reversal CLP with money is a re-payment. A claim denied at first and
-- adjudicated again without a denial on a later remittance (paid, or moved to the patient's share)
-- is overturned; the money paid on those later remittances is "recovered". Predeterminations
-- (CLP02=25) are left out.
with events as (
    select
        *,
        -- position among the decisions (non-reversal CLPs), first and last
        row_number() over (
            partition by organization_id, client_id, claim_key, is_reversal order by event_sequence
        ) as position_in_kind,
        row_number() over (
            partition by organization_id, client_id, claim_key, is_reversal order by event_sequence desc
        ) as position_from_end_in_kind
    from {{ ref('int_remittance_claims_summarised') }}
    -- A predetermination (CLP02=25) is a price quote, not a decision: it neither opens nor closes a claim.
    where not is_predetermination
),
-- One aggregation pass per claim (no self-joins: PostgreSQL plans those badly without indexes).
per_claim as (
    select
        organization_id,
        client_id,
        claim_key,
        max(case when not is_reversal and position_in_kind = 1 then remittance_claim_key end) as initial_key,
        max(case when not is_reversal and position_from_end_in_kind = 1 then remittance_claim_key end) as latest_key,
        max(case when not is_reversal and position_from_end_in_kind = 1 then claim_status_code end)
            as latest_status_code,
        count(*) as remittance_events,
        sum(case when is_reversal then 1 else 0 end) as reversals,
        sum(paid_amount) as final_paid_amount,
        sum(patient_responsibility) as final_patient_responsibility,
        max(payment_date) as last_payment_date,
        sum(case when not is_reversal and position_in_kind > 1 and not is_denied then 1 else 0 end)
            as later_clean_decisions,
        sum(case when not is_reversal and position_in_kind > 1 and not is_denied then paid_amount else 0 end)
            as later_paid_amount,
        min(case when not is_reversal and position_in_kind > 1 and not is_denied then payment_date end)
            as first_later_payment_date
    from events
    group by organization_id, client_id, claim_key
),
initial as (
    select
        per_claim.*,
        events.payer_key,
        events.payer_name,
        events.payment_date,
        events.claim_status_code,
        events.billed_amount,
        events.paid_amount,
        events.patient_responsibility,
        events.is_denied,
        events.is_fully_denied,
        events.denied_amount,
        events.primary_denial_category,
        events.primary_carc_category,
        events.primary_denial_group_code,
        events.primary_denial_carc,
        events.primary_denial_hard_or_soft,
        events.primary_denial_preventable,
        events.statement_from,
        events.statement_to,
        events.claim_received_date,
        events.is_denied and per_claim.later_clean_decisions > 0 as is_overturned
    from per_claim
    inner join events on events.remittance_claim_key = per_claim.initial_key
)
select
    organization_id,
    client_id,
    claim_key,
    payer_key,
    payer_name,
    initial_key as initial_remittance_claim_key,
    payment_date as initial_payment_date,
    {{ month_of('payment_date') }} as adjudication_month,
    claim_status_code as initial_status_code,
    billed_amount as remit_billed_amount,
    paid_amount as initial_paid_amount,
    patient_responsibility as initial_patient_responsibility,
    is_denied as initially_denied,
    is_fully_denied as initially_fully_denied,
    denied_amount as initial_denied_amount,
    primary_denial_category,
    primary_carc_category,
    primary_denial_group_code,
    primary_denial_carc,
    primary_denial_hard_or_soft,
    primary_denial_preventable,
    statement_from,
    statement_to,
    claim_received_date,
    is_overturned as overturned,
    {{ money('case when is_denied then later_paid_amount else 0 end') }} as recovered_amount,
    case when is_overturned then first_later_payment_date end as recovery_date,
    remittance_events,
    reversals,
    {{ money('final_paid_amount') }} as final_paid_amount,
    {{ money('final_patient_responsibility') }} as final_patient_responsibility,
    last_payment_date,
    latest_status_code,
    latest_key as latest_remittance_claim_key,
    case
        when is_overturned then 'overturned'
        when is_fully_denied then 'denied'
        when is_denied then 'partially_denied'
        else 'paid'
    end as claim_outcome
from initial
