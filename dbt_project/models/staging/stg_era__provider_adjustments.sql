-- One row per PLB adjustment pair. A positive amount reduces the payment (e.g. WO recoupment);
-- a negative one increases it (e.g. L6 interest).
select
    {{ tenant_key('client_id', file_prefix(), 'transaction_index', 'plb_index', 'pair_index') }}
        as provider_adjustment_key,
    {{ tenant_key('client_id', file_prefix(), 'transaction_index') }} as remittance_key,
    organization_id,
    client_id,
    source_file_sha256,
    transaction_index,
    plb_index,
    pair_index,
    provider_id,
    cast(fiscal_period_date as date) as fiscal_period_date,
    upper(trim(reason_code)) as reason_code,
    reference_id,
    {{ money('amount') }} as amount
from {{ source('era', 'provider_adjustments') }}
