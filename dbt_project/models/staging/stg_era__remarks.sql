-- RARC remark codes; line_index is null for claim-level remarks (MOA/MIA); remark_index is the
-- file order inside the claim (what "the first RARC" means).
select
    {{ tenant_key('client_id', file_prefix(), 'claim_index') }} as remittance_claim_key,
    organization_id,
    client_id,
    source_file_sha256,
    claim_index,
    line_index,
    source as remark_source,
    remark_index,
    upper(trim(code)) as rarc
from {{ source('era', 'remittance_remarks') }}
