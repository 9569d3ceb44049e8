-- Contract terms a client uploaded (operational extract). Rename and cast only.
select
    id as contract_term_id,
    organization_id,
    client_id,
    batch_id,
    payer_name,
    payer_key,
    payer_id,
    plan_code,
    method,
    procedure_code,
    modifier,
    drg_code,
    {{ money('rate') }} as rate,
    cast(percent_of_charges as numeric(9, 4)) as percent_of_charges,
    lesser_of,
    cast(effective_from as date) as effective_from,
    cast(effective_to as date) as effective_to
from {{ source('ops', 'contract_terms') }}
