-- One row per 835 transaction (check or EFT): the check amount and how it balances
-- (BPR02 = sum of CLP04 - sum of PLB amounts). check_amount is BPR02 as sent (never negative);
-- payment_amount is the money that moved, signed by BPR03: a debit (D, the payer takes money back,
-- e.g. a recoupment larger than the payments it offsets) is negative.
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
    {{ tenant_key('remittances.organization_id', 'remittances.client_id', 'remittances.payer_key') }}
        as payer_sk,
    remittances.payer_key,
    remittances.payment_date,
    {{ month_of('remittances.payment_date') }} as payment_month,
    remittances.trace_number,
    remittances.payment_method,
    remittances.check_amount,
    remittances.credit_debit,
    case
        when remittances.credit_debit = 'D' then -remittances.check_amount else remittances.check_amount
    end as payment_amount,
    coalesce(claim_totals.claim_payments, 0) as claim_payments,
    coalesce(claim_totals.claims_paid_amount, 0) as claims_paid_amount,
    coalesce(plb_totals.provider_adjustment_amount, 0) as provider_adjustment_amount
from {{ ref('stg_era__remittances') }} as remittances
left join claim_totals on claim_totals.remittance_key = remittances.remittance_key
left join plb_totals on plb_totals.remittance_key = remittances.remittance_key
