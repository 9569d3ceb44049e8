-- One row per PLB adjustment pair. A positive amount reduces the payment (e.g. WO recoupment);
-- a negative one increases it (e.g. L6 interest).
select
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(transaction_index as varchar) || ':' || cast(plb_index as varchar)
        || ':' || cast(pair_index as varchar) as provider_adjustment_key,
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(transaction_index as varchar) as remittance_key,
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
    cast(amount as numeric(18, 2)) as amount
from {{ source('era', 'provider_adjustments') }}
