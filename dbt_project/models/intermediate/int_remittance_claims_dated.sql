-- One row per CLP claim payment loop (stg_era__claims) with its dates' fallbacks. payment_date falls
-- back as the remittance's does (int_remittances_dated): BPR16 (or DTM*405 when BPR16 is not a date,
-- from the parser), else the remittance's DTM*405 production date, else the day the file was received
-- (its import batch), so a claim's adjudication month is never null for an uploaded file.
-- `service_date` is the claim's service date for service-month figures: the statement from date
-- (DTM*232), else the claim received date (DTM*050), else the payment date.
with claims as (
    select * from {{ ref('stg_era__claims') }}
),
remittances as (
    select source_file_sha256, client_id, transaction_index, production_date
    from {{ ref('stg_era__remittances') }}
),
batches as (
    select
        batch_id,
        cast(created_at as date) as received_date
    from {{ ref('stg_ops__import_batches') }}
),
dated as (
    select
        claims.*,
        coalesce(claims.stated_payment_date, remittances.production_date, batches.received_date) as paid_on
    from claims
    left join remittances
        on
        remittances.source_file_sha256 = claims.source_file_sha256
        and remittances.client_id = claims.client_id
        and remittances.transaction_index = claims.transaction_index
    left join batches on batches.batch_id = claims.batch_id
)
select
    remittance_claim_key,
    remittance_key,
    organization_id,
    client_id,
    batch_id,
    source_file_sha256,
    transaction_index,
    claim_index,
    claim_key,
    claim_status_code,
    billed_amount,
    paid_amount,
    patient_responsibility,
    filing_indicator,
    payer_claim_control_number,
    facility_type_code,
    drg_code,
    frequency_code,
    payer_key,
    payer_name,
    paid_on as payment_date,
    trace_number,
    statement_from,
    statement_to,
    claim_received_date,
    coalesce(statement_from, claim_received_date, paid_on) as service_date,
    covered_amount,
    line_count,
    segment_number
from dated
