-- One row per 837 claim. Patient name, birth date and diagnoses are PHI and stay in the raw zone.
select
    {{ tenant_key('client_id', file_prefix(), 'claim_index') }} as submitted_claim_key,
    organization_id,
    client_id,
    batch_id,
    source_file_sha256,
    claim_index,
    patient_control_number as claim_key,
    claim_type,
    {{ money('total_charge') }} as billed_amount,
    facility_code,
    frequency_code,
    billing_provider_npi,
    upper(trim(payer_name)) as payer_key,
    payer_name,
    payer_id,
    cast(statement_from as date) as statement_from,
    cast(statement_to as date) as statement_to,
    cast(admission_date as date) as admission_date,
    cast(submission_date as date) as submission_date,
    prior_authorization is not null as has_prior_authorization,
    line_count
from {{ source('claims', 'claims') }}
