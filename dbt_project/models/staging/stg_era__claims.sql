-- One row per CLP claim payment loop. Patient name and member ids are left out (PHI not needed downstream).
-- payment_date falls back as the remittance's does (stg_era__remittances): BPR16 (or DTM*405 when BPR16
-- is not a date, from the parser), else DTM*405, else the day the file was received, so a claim's
-- adjudication month is never null for an uploaded file. `service_date` is the claim's service date for
-- service-month figures: the statement from date (DTM*232), else the claim received date (DTM*050),
-- else the payment date.
with claims as (
    select * from {{ source('era', 'remittance_claims') }}
),
remittances as (
    select source_file_sha256, client_id, transaction_index, cast(production_date as date) as production_date
    from {{ source('era', 'remittances') }}
),
batches as (
    select
        id as batch_id,
        cast(created_at as date) as received_date
    from {{ source('ops', 'import_batches') }}
),
dated as (
    select
        claims.*,
        coalesce(
            cast(claims.payment_date as date), remittances.production_date, batches.received_date
        ) as paid_on
    from claims
    left join remittances
        on
        remittances.source_file_sha256 = claims.source_file_sha256
        and remittances.client_id = claims.client_id
        and remittances.transaction_index = claims.transaction_index
    left join batches on batches.batch_id = claims.batch_id
)
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
    paid_on as payment_date,
    trace_number,
    cast(statement_from as date) as statement_from,
    cast(statement_to as date) as statement_to,
    cast(claim_received_date as date) as claim_received_date,
    coalesce(cast(statement_from as date), cast(claim_received_date as date), paid_on) as service_date,
    {{ money('covered_amount') }} as covered_amount,
    line_count,
    segment_number
from dated
