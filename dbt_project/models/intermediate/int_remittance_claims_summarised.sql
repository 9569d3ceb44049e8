{{ config(materialized='table') }}
-- One row per CLP with its adjustments summed by group, its payer-denial amount and primary
-- denial (the largest denied triplet), and its position in the claim's remittance history.
with remittance_claims as (
    select * from {{ ref('stg_era__claims') }}
),
adjustments as (
    select * from {{ ref('int_adjustments_classified') }}
),
totals as (
    select
        remittance_claim_key,
        sum(amount) as adjustment_total,
        sum(case when group_code = 'CO' then amount else 0 end) as co_amount,
        sum(case when group_code = 'PR' then amount else 0 end) as pr_amount,
        sum(case when group_code = 'OA' then amount else 0 end) as oa_amount,
        sum(case when group_code = 'PI' then amount else 0 end) as pi_amount,
        sum(case when group_code = 'CR' then amount else 0 end) as cr_amount,
        sum(case when is_payer_denial then amount else 0 end) as denied_amount,
        sum(case when is_denial then amount else 0 end) as provider_denied_amount,
        sum(case when adjustment_level = 'claim' then amount else 0 end) as claim_level_adjustment_total,
        bool_or(is_payer_denial) as has_payer_denial
    from adjustments
    group by remittance_claim_key
),
primary_denial as (
    select * from (
        select
            remittance_claim_key,
            cause_category,
            carc_category,
            denial_category,
            group_code,
            carc,
            hard_or_soft,
            preventable,
            row_number()
                over (partition by remittance_claim_key order by amount desc, adjustment_key asc)
                as denial_rank
        from adjustments
        where is_payer_denial
    ) as ranked
    where denial_rank = 1
)
select
    remittance_claims.remittance_claim_key,
    remittance_claims.remittance_key,
    remittance_claims.organization_id,
    remittance_claims.client_id,
    remittance_claims.batch_id,
    remittance_claims.source_file_sha256,
    remittance_claims.transaction_index,
    remittance_claims.claim_index,
    remittance_claims.claim_key,
    remittance_claims.payer_key,
    remittance_claims.payer_name,
    remittance_claims.payment_date,
    remittance_claims.trace_number,
    remittance_claims.claim_status_code,
    remittance_claims.payer_claim_control_number,
    remittance_claims.filing_indicator,
    remittance_claims.statement_from,
    remittance_claims.statement_to,
    remittance_claims.claim_received_date,
    remittance_claims.billed_amount,
    remittance_claims.paid_amount,
    remittance_claims.patient_responsibility,
    coalesce(totals.adjustment_total, 0) as adjustment_total,
    coalesce(totals.co_amount, 0) as co_amount,
    coalesce(totals.pr_amount, 0) as pr_amount,
    coalesce(totals.oa_amount, 0) as oa_amount,
    coalesce(totals.pi_amount, 0) as pi_amount,
    coalesce(totals.cr_amount, 0) as cr_amount,
    coalesce(totals.claim_level_adjustment_total, 0) as claim_level_adjustment_total,
    remittance_claims.claim_status_code = '22' as is_reversal,
    -- CLP02=25 prices a service that has not been adjudicated: no denial, no payment, not a decision.
    remittance_claims.claim_status_code = '25' as is_predetermination,
    -- Fully denied: an adjudication that paid nothing and denied all the charges, whether the payer
    -- said so with CLP02=4 or denied every line under CLP02=1/2/3 (a payer-denied total of at least the charge).
    (
        remittance_claims.claim_status_code not in ('22', '25')
        and remittance_claims.paid_amount = 0
        and (
            remittance_claims.claim_status_code = '4'
            or (
                remittance_claims.billed_amount > 0
                and coalesce(totals.denied_amount, 0) >= remittance_claims.billed_amount
            )
        )
    ) as is_fully_denied,
    (
        remittance_claims.claim_status_code not in ('22', '25')
        and (remittance_claims.claim_status_code = '4' or coalesce(totals.has_payer_denial, false))
    ) as is_denied,
    -- is_payer_denial / is_denial are already false on reversals and predeterminations (int_adjustments_classified).
    coalesce(totals.denied_amount, 0) as denied_amount,
    coalesce(totals.provider_denied_amount, 0) as provider_denied_amount,
    primary_denial.cause_category as primary_denial_category,
    primary_denial.carc_category as primary_carc_category,
    primary_denial.group_code as primary_denial_group_code,
    primary_denial.carc as primary_denial_carc,
    primary_denial.hard_or_soft as primary_denial_hard_or_soft,
    primary_denial.preventable as primary_denial_preventable,
    row_number() over (
        partition by remittance_claims.organization_id, remittance_claims.client_id, remittance_claims.claim_key
        order by
            remittance_claims.payment_date, remittance_claims.source_file_sha256,
            remittance_claims.transaction_index, remittance_claims.claim_index
    ) as event_sequence
from remittance_claims
left join totals on totals.remittance_claim_key = remittance_claims.remittance_claim_key
left join primary_denial on primary_denial.remittance_claim_key = remittance_claims.remittance_claim_key
