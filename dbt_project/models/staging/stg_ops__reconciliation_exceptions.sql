-- Reconciliation exceptions (from the extract).
select
    id as reconciliation_exception_id,
    organization_id,
    client_id,
    run_id as reconciliation_run_id,
    exception_type,
    claim_key,
    upper(trim(payer)) as payer_key,
    {{ money('expected_amount') }} as expected_amount,
    {{ money('actual_amount') }} as actual_amount,
    status as exception_status,
    resolution,
    created_at,
    resolved_at
from {{ source('ops', 'reconciliation_exceptions') }}
