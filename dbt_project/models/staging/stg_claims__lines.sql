-- One row per 837 service line.
select
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) || ':' || cast(line_index as varchar) as submitted_line_key,
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) as submitted_claim_key,
    organization_id,
    client_id,
    source_file_sha256,
    claim_index,
    line_index,
    procedure_code,
    modifier_1,
    revenue_code,
    cast(charge_amount as numeric(18, 2)) as charge_amount,
    cast(units as numeric(18, 4)) as units,
    cast(service_date_from as date) as service_date,
    place_of_service
from {{ source('claims', 'claim_lines') }}
