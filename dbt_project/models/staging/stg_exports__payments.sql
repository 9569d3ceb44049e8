-- Payments from billing-system exports (valid rows only).
select
    organization_id,
    client_id,
    source_file_sha256,
    row_number as source_row_number,
    coalesce(claim_id, patient_account_number) as claim_key,
    upper(trim(payer_name)) as payer_key,
    check_number,
    cast(payment_date as date) as payment_date,
    {{ money('paid_amount') }} as paid_amount,
    {{ money('adjustment_amount') }} as adjustment_amount,
    upper(trim(group_code)) as group_code,
    upper(trim(carc)) as carc
from {{ source('exports', 'csv_payments') }}
where row_status = 'valid'
