-- One row per 835 transaction (stg_era__remittances) with the payment date's fallbacks. payment_date is
-- never null where a mart needs a month: BPR16 (the parser already uses DTM*405 when BPR16 is not a
-- date), else the DTM*405 production date (BPR16 empty), else the day the file was received (its import
-- batch's upload, stg_ops__import_batches); `payment_date_source` says which one. Only a folder-dropped
-- file (no batch) without both dates keeps a null, which its tenant's quarantine reports.
with remittances as (
    select * from {{ ref('stg_era__remittances') }}
),
batches as (
    select
        batch_id,
        cast(created_at as date) as received_date
    from {{ ref('stg_ops__import_batches') }}
)
select
    remittances.remittance_key,
    remittances.organization_id,
    remittances.client_id,
    remittances.batch_id,
    remittances.source_file_sha256,
    remittances.transaction_index,
    remittances.trace_number,
    remittances.trace_type,
    remittances.payer_originating_id,
    remittances.payer_key,
    remittances.payer_name,
    remittances.payer_id,
    remittances.payee_id,
    remittances.payment_method,
    remittances.credit_debit,
    coalesce(remittances.stated_payment_date, remittances.production_date, batches.received_date) as payment_date,
    case
        when remittances.stated_payment_date is not null then 'BPR16'
        when remittances.production_date is not null then 'DTM405'
        when batches.received_date is not null then 'received'
    end as payment_date_source,
    remittances.production_date,
    remittances.check_amount,
    remittances.plb_total,
    remittances.claim_count,
    remittances.interchange_control_number,
    remittances.interchange_stamp
from remittances
left join batches on batches.batch_id = remittances.batch_id
