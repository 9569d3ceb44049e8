-- Denial work-list rows from billing-system exports (valid rows only).
select
    organization_id,
    client_id,
    source_file_sha256,
    row_number as source_row_number,
    coalesce(claim_id, patient_account_number) as claim_key,
    upper(trim(payer_name)) as payer_key,
    cast(denial_date as date) as denial_date,
    upper(trim(group_code)) as group_code,
    upper(trim(carc)) as carc,
    {{ money('denied_amount') }} as denied_amount,
    status as work_status,
    cast(appeal_deadline as date) as appeal_deadline
from {{ source('exports', 'csv_denials') }}
where row_status = 'valid'
