-- Claims from billing-system exports (valid rows only; PHI columns left out).
select
    organization_id,
    client_id,
    source_file_sha256,
    row_number as source_row_number,
    coalesce(claim_id, patient_account_number) as claim_key,
    upper(trim(payer_name)) as payer_key,
    payer_name,
    plan,
    cast(service_from as date) as service_from,
    cast(service_to as date) as service_to,
    {{ money('billed_amount') }} as billed_amount,
    status as export_status,
    facility,
    bill_type
from {{ source('exports', 'csv_claims') }}
where row_status = 'valid'
