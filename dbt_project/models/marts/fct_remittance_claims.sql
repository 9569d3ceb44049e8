-- One row per CLP claim payment loop of every 835, with its ERA-to-claim match. A remittance
-- re-delivered in a new envelope is listed once (its first delivery). payer_key is the canonical
-- payer; payer_id, payer_class, cob_level (CLP02 rank) and is_crossover come from
-- int_remittance_claims_summarised; payer_event_sequence orders the claim's history with this payer.
select
    matched.remittance_claim_key,
    matched.remittance_key,
    matched.organization_id,
    matched.client_id,
    matched.batch_id,
    matched.claim_key,
    {{ tenant_key('matched.organization_id', 'matched.client_id', 'matched.payer_key') }} as payer_sk,
    matched.payer_key,
    matched.payer_id,
    matched.payer_class,
    matched.cob_level,
    matched.is_crossover,
    matched.payer_event_sequence,
    matched.payment_date,
    {{ month_of('matched.payment_date') }} as payment_month,
    matched.trace_number,
    matched.claim_status_code,
    statuses.claim_status_description,
    matched.payer_claim_control_number,
    matched.filing_indicator,
    matched.event_sequence,
    matched.is_reversal,
    matched.is_denied,
    matched.is_fully_denied,
    matched.billed_amount,
    matched.paid_amount,
    matched.patient_responsibility,
    matched.adjustment_total,
    matched.co_amount,
    matched.pr_amount,
    matched.oa_amount,
    matched.pi_amount,
    matched.cr_amount,
    matched.denied_amount,
    matched.provider_denied_amount,
    matched.primary_denial_category,
    matched.primary_denial_group_code,
    matched.primary_denial_carc,
    matched.match_status,
    matched.submitted_billed_amount,
    matched.claim_type
from {{ ref('int_remittance_claims_matched') }} as matched
left join {{ ref('stg_reference__claim_status_codes') }} as statuses
    on statuses.claim_status_code = matched.claim_status_code
