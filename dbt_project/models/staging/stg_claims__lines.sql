-- One row per 837 service line.
select
    {{ tenant_key('client_id', file_prefix(), 'claim_index', 'line_index') }} as submitted_line_key,
    {{ tenant_key('client_id', file_prefix(), 'claim_index') }} as submitted_claim_key,
    organization_id,
    client_id,
    source_file_sha256,
    claim_index,
    line_index,
    procedure_code,
    modifier_1,
    revenue_code,
    {{ money('charge_amount') }} as charge_amount,
    cast(units as numeric(18, 4)) as units,
    cast(service_date_from as date) as service_date,
    place_of_service
from {{ source('claims', 'claim_lines') }}
