-- Reconciliation runs (from the extract).
select
    id as reconciliation_run_id,
    organization_id,
    client_id,
    status as run_status,
    claims_considered,
    remittances_considered,
    matched,
    created_at,
    finished_at
from {{ source('ops', 'reconciliation_runs') }}
