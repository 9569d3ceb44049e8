{{ config(materialized='table') }}
-- One row per CLP (int_remittance_claims_sequenced: first deliveries only, payer identity and
-- class, COB place, history position, current adjudication) with its adjustments summed by group,
-- its payer-denial amount and primary denial (the largest denied triplet), and the denial flags
-- that follow from them.
with claims as (
    select * from {{ ref('int_remittance_claims_sequenced') }}
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
    -- fct_claim_adjustments read twice, not through a shared CTE: DuckDB materialised that CTE (a
    -- copy of 3.9M rows at 1M claims) for its two readers.
    from {{ ref('fct_claim_adjustments') }}
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
        from {{ ref('fct_claim_adjustments') }}
        where is_payer_denial
    ) as ranked
    where denial_rank = 1
)
select
    claims.remittance_claim_key,
    claims.remittance_key,
    claims.organization_id,
    claims.client_id,
    claims.batch_id,
    claims.source_file_sha256,
    claims.transaction_index,
    claims.claim_index,
    claims.claim_key,
    claims.payer_key,
    claims.payer_name,
    claims.payer_id,
    claims.payer_identity,
    claims.payer_class,
    claims.cob_level,
    claims.is_crossover,
    claims.interchange_stamp,
    claims.interchange_control_number,
    claims.payment_date,
    claims.trace_number,
    claims.claim_status_code,
    claims.payer_claim_control_number,
    claims.filing_indicator,
    claims.statement_from,
    claims.statement_to,
    claims.claim_received_date,
    claims.billed_amount,
    claims.paid_amount,
    claims.patient_responsibility,
    coalesce(totals.adjustment_total, 0) as adjustment_total,
    coalesce(totals.co_amount, 0) as co_amount,
    coalesce(totals.pr_amount, 0) as pr_amount,
    coalesce(totals.oa_amount, 0) as oa_amount,
    coalesce(totals.pi_amount, 0) as pi_amount,
    coalesce(totals.cr_amount, 0) as cr_amount,
    coalesce(totals.claim_level_adjustment_total, 0) as claim_level_adjustment_total,
    claims.is_reversal,
    claims.is_predetermination,
    -- Fully denied: paid nothing and denied all the charges (macros/denials.sql).
    {{ is_fully_denied(
        'claims.claim_status_code', 'claims.paid_amount', 'claims.billed_amount', 'coalesce(totals.denied_amount, 0)'
    ) }} as is_fully_denied,
    (
        claims.claim_status_code not in ('22', '25')
        and (claims.claim_status_code = '4' or coalesce(totals.has_payer_denial, false))
    ) as is_denied,
    -- is_payer_denial / is_denial are already false on reversals and predeterminations (fct_claim_adjustments).
    coalesce(totals.denied_amount, 0) as denied_amount,
    coalesce(totals.provider_denied_amount, 0) as provider_denied_amount,
    primary_denial.cause_category as primary_denial_category,
    primary_denial.carc_category as primary_carc_category,
    primary_denial.group_code as primary_denial_group_code,
    primary_denial.carc as primary_denial_carc,
    primary_denial.hard_or_soft as primary_denial_hard_or_soft,
    primary_denial.preventable as primary_denial_preventable,
    claims.remittance_order,
    claims.event_sequence,
    claims.payer_event_sequence,
    claims.payer_last_remittance_order,
    claims.is_only_event,
    claims.is_current_adjudication
from claims
left join totals on totals.remittance_claim_key = claims.remittance_claim_key
left join primary_denial on primary_denial.remittance_claim_key = claims.remittance_claim_key
