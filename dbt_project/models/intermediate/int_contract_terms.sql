-- Contracted allowed amount terms per payer and procedure (seed contracts/contract_terms).
select
    upper(trim(payer_name)) as payer_key,
    trim(procedure_code) as procedure_code,
    method,
    cast(allowed_per_unit as numeric(18, 4)) as allowed_per_unit,
    cast(pct_of_charges as numeric(9, 4)) as pct_of_charges
from {{ ref('contract_terms') }}
