-- One row per 835 transaction (check or EFT): the check amount and how it balances
-- (BPR02 = sum of CLP04 - sum of PLB amounts). check_amount and payment_amount are BPR02 signed by
-- BPR03: a debit (D, the payer takes money back, e.g. a recoupment larger than the payments it
-- offsets) is negative, so it ties to the CLP04s; payment_amount is the name cash truth reads. A
-- remittance re-delivered in a new envelope is listed once (its first delivery,
-- int_remittances_identified); payer_key is the canonical payer.
with claim_totals as (
    select remittance_key, count(*) as claim_payments, sum(paid_amount) as claims_paid_amount
    from {{ ref('stg_era__claims') }}
    group by remittance_key
),
plb_totals as (
    select remittance_key, sum(amount) as provider_adjustment_amount
    from {{ ref('stg_era__provider_adjustments') }}
    group by remittance_key
)
select
    remittances.remittance_key,
    remittances.organization_id,
    remittances.client_id,
    remittances.batch_id,
    {{ tenant_key('remittances.organization_id', 'remittances.client_id', 'deliveries.payer_key') }}
        as payer_sk,
    deliveries.payer_key,
    deliveries.payer_id,
    remittances.payment_date,
    {{ month_of('remittances.payment_date') }} as payment_month,
    remittances.trace_number,
    remittances.payment_method,
    -- signed: a BPR03=D debit takes money back, so BPR02 counts negative (it then ties to the CLP04s)
    deliveries.signed_check_amount as check_amount,
    remittances.credit_debit,
    deliveries.signed_check_amount as payment_amount,
    coalesce(claim_totals.claim_payments, 0) as claim_payments,
    coalesce(claim_totals.claims_paid_amount, 0) as claims_paid_amount,
    coalesce(plb_totals.provider_adjustment_amount, 0) as provider_adjustment_amount
from {{ ref('int_remittances_dated') }} as remittances
inner join {{ ref('int_remittances_identified') }} as deliveries
    on deliveries.remittance_key = remittances.remittance_key and deliveries.is_first_delivery
left join claim_totals on claim_totals.remittance_key = remittances.remittance_key
left join plb_totals on plb_totals.remittance_key = remittances.remittance_key
