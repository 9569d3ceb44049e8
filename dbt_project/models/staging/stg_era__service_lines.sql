-- One row per SVC service line payment.
select
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) || ':' || cast(line_index as varchar) as service_line_key,
    cast(client_id as varchar) || ':' || substr(source_file_sha256, 1, 16) || ':' || cast(claim_index as varchar) as remittance_claim_key,
    organization_id,
    client_id,
    source_file_sha256,
    claim_index,
    line_index,
    procedure_qualifier,
    procedure_code,
    modifier_1,
    modifier_2,
    revenue_code,
    cast(charge_amount as numeric(18, 2)) as charge_amount,
    cast(paid_amount as numeric(18, 2)) as paid_amount,
    cast(allowed_amount as numeric(18, 2)) as allowed_amount,
    cast(units as numeric(18, 4)) as units,
    cast(service_date_from as date) as service_date,
    line_control_number,
    segment_number
from {{ source('era', 'remittance_service_lines') }}
