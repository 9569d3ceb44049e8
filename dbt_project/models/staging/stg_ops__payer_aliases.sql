-- The tenant's payer aliases (from the extract): an id or a name -> the canonical payer.
-- The alias is compared upper-cased and trimmed, as the remittance side normalises it.
select
    organization_id,
    client_id,
    alias_kind,
    upper(trim(alias)) as payer_alias,
    upper(trim(canonical_payer_key)) as canonical_payer_key,
    nullif(trim(canonical_payer_id), '') as canonical_payer_id,
    nullif(trim(payer_class), '') as payer_class
from {{ source('ops', 'payer_aliases') }}
