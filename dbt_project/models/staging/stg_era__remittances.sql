-- One row per 835 transaction (one check / EFT). Rename and cast only.
select
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(transaction_index as varchar) as remittance_key,
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
    cast(payment_date as date) as payment_date,
    cast(production_date as date) as production_date,
    cast(total_paid as numeric(18, 2)) as check_amount,
    cast(plb_total as numeric(18, 2)) as plb_total,
    claim_count
from {{ source('era', 'remittances') }}
