-- Bank deposits from bank statement exports (valid rows only). Rename and cast only.
select
    {{ tenant_key('client_id', file_prefix(), 'row_number') }} as deposit_key,
    organization_id,
    client_id,
    batch_id,
    source_file_sha256,
    row_number as source_row_number,
    cast(deposit_date as date) as deposit_date,
    {{ money('amount') }} as deposit_amount,
    trim(trace_number) as trace_number,
    account_last4,
    upper(trim(payer_name)) as payer_key,
    description
from {{ source('exports', 'csv_deposits') }}
where row_status = 'valid'
