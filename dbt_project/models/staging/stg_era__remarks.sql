-- RARC remark codes; line_index is null for claim-level remarks (MOA/MIA).
select
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) as remittance_claim_key,
    organization_id,
    client_id,
    source_file_sha256,
    claim_index,
    line_index,
    source as remark_source,
    upper(trim(code)) as rarc
from {{ source('era', 'remittance_remarks') }}
