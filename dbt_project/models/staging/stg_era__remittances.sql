-- One row per 835 transaction (one check / EFT). Rename and cast only, from the one source: the payment
-- date as the parser read it (stated_payment_date: BPR16, or DTM*405 when BPR16 is not a date); its
-- fallback to the day the file was received, which needs the import batch, is int_remittances_dated's.
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
    cast(payment_date as date) as stated_payment_date,
    cast(production_date as date) as production_date,
    {{ money('total_paid') }} as check_amount,
    {{ money('plb_total') }} as plb_total,
    claim_count,
    interchange_control_number,
    -- ISA09 (YYMMDD) || ISA10 (HHMM): sorts in time order within one century, which is all an
    -- ordering of remittances paid the same day needs.
    interchange_date || coalesce(interchange_time, '') as interchange_stamp
from {{ source('era', 'remittances') }}
