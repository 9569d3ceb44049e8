-- One row per CLP claim payment loop. Patient name and member ids are left out (PHI not needed downstream).
-- Rename and cast only, from the one source: the payment date as the parser read it (stated_payment_date:
-- BPR16, or DTM*405 when BPR16 is not a date); its fallbacks and the claim's service date, which need the
-- remittance and the import batch, are int_remittance_claims_dated's.
select
    {{ tenant_key('client_id', file_prefix(), 'claim_index') }} as remittance_claim_key,
    {{ tenant_key('client_id', file_prefix(), 'transaction_index') }} as remittance_key,
    organization_id,
    client_id,
    batch_id,
    source_file_sha256,
    transaction_index,
    claim_index,
    patient_control_number as claim_key,
    claim_status_code,
    {{ money('total_charge') }} as billed_amount,
    {{ money('paid_amount') }} as paid_amount,
    {{ money('patient_responsibility') }} as patient_responsibility,
    filing_indicator,
    payer_claim_control_number,
    facility_type_code,
    nullif(trim(drg_code), '') as drg_code,
    frequency_code,
    upper(trim(payer_name)) as payer_key,
    payer_name,
    cast(payment_date as date) as stated_payment_date,
    trace_number,
    cast(statement_from as date) as statement_from,
    cast(statement_to as date) as statement_to,
    cast(claim_received_date as date) as claim_received_date,
    {{ money('covered_amount') }} as covered_amount,
    line_count,
    segment_number
from {{ source('era', 'remittance_claims') }}
