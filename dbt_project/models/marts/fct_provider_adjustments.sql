-- One row per PLB adjustment pair. Positive amounts reduce the check (e.g. WO overpayment
-- recovery, FB forwarding balance); negative amounts add to it (e.g. L6 interest). Only the first
-- delivery of a remittance counts (int_remittances_identified); payer_key is the canonical payer.
select
    adjustments.provider_adjustment_key,
    adjustments.remittance_key,
    adjustments.organization_id,
    adjustments.client_id,
    {{ tenant_key('adjustments.organization_id', 'adjustments.client_id', 'remittances.payer_key') }}
        as payer_sk,
    remittances.payer_key,
    remittances.payment_date,
    {{ month_of('remittances.payment_date') }} as payment_month,
    remittances.trace_number,
    adjustments.provider_id,
    adjustments.fiscal_period_date,
    adjustments.reason_code,
    reasons.description as reason_description,
    adjustments.reference_id,
    adjustments.amount
from {{ ref('stg_era__provider_adjustments') }} as adjustments
inner join {{ ref('int_remittances_identified') }} as remittances
    on remittances.remittance_key = adjustments.remittance_key and remittances.is_first_delivery
left join {{ ref('plb03_1_provider_adjustment_reason_codes') }} as reasons
    on trim(reasons.code) = adjustments.reason_code
