-- One row per 835 transaction (one check / EFT). Rename and cast, and the payment date's fallbacks.
-- payment_date is never null where a mart needs a month: BPR16 (the parser already uses DTM*405 when
-- BPR16 is not a date), else the DTM*405 production date (BPR16 empty), else the day the file was
-- received (its import batch's upload); `payment_date_source` says which one. Only a folder-dropped
-- file (no batch) without both dates keeps a null, which its tenant's quarantine reports.
with remittances as (
    select * from {{ source('era', 'remittances') }}
),
batches as (
    select
        id as batch_id,
        cast(created_at as date) as received_date
    from {{ source('ops', 'import_batches') }}
),
dated as (
    select
        remittances.*,
        batches.received_date
    from remittances
    left join batches on batches.batch_id = remittances.batch_id
)
select
    {{ tenant_key('client_id', file_prefix(), 'transaction_index') }} as remittance_key,
    organization_id,
    client_id,
    batch_id,
    source_file_sha256,
    transaction_index,
    trace_number,
    trace_type,
    payer_originating_id,
    upper(trim(payer_name)) as payer_key,
    payer_name,
    payer_id,
    payee_id,
    payment_method,
    credit_debit,
    coalesce(cast(payment_date as date), cast(production_date as date), received_date) as payment_date,
    case
        when payment_date is not null then 'BPR16'
        when production_date is not null then 'DTM405'
        when received_date is not null then 'received'
    end as payment_date_source,
    cast(production_date as date) as production_date,
    {{ money('total_paid') }} as check_amount,
    {{ money('plb_total') }} as plb_total,
    claim_count
from dated
