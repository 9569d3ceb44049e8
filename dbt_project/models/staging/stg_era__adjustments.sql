-- One row per CAS triplet. line_index is null for claim-level adjustments.
select
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) || ':' || cast(coalesce(line_index, -1) as varchar)
        || ':' || cast(cas_index as varchar) || ':' || cast(triplet_index as varchar) as adjustment_key,
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) as remittance_claim_key,
    case when line_index is null then null
         else cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) || ':' || cast(line_index as varchar) end
        as service_line_key,
    organization_id,
    client_id,
    source_file_sha256,
    claim_index,
    line_index,
    cas_index,
    triplet_index,
    level as adjustment_level,
    upper(trim(group_code)) as group_code,
    upper(trim(carc)) as carc,
    cast(amount as numeric(18, 2)) as amount,
    quantity,
    segment_number
from {{ source('era', 'remittance_adjustments') }}
