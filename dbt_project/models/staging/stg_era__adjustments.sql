-- One row per CAS triplet. line_index is null for claim-level adjustments.
select
    {{ tenant_key(
        'client_id', file_prefix(), 'claim_index', 'coalesce(line_index, -1)', 'cas_index', 'triplet_index',
    ) }} as adjustment_key,
    {{ tenant_key('client_id', file_prefix(), 'claim_index') }} as remittance_claim_key,
    case
        when line_index is null then null
        else {{ tenant_key('client_id', file_prefix(), 'claim_index', 'line_index') }}
    end as service_line_key,
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
    {{ money('amount') }} as amount,
    quantity,
    segment_number
from {{ source('era', 'remittance_adjustments') }}
