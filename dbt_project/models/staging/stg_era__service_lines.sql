-- One row per SVC service line payment.
select
    {{ tenant_key('client_id', file_prefix(), 'claim_index', 'line_index') }} as service_line_key,
    {{ tenant_key('client_id', file_prefix(), 'claim_index') }} as remittance_claim_key,
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
    {{ money('charge_amount') }} as charge_amount,
    {{ money('paid_amount') }} as paid_amount,
    {{ money('allowed_amount') }} as allowed_amount,
    cast(units as numeric(18, 4)) as units,
    cast(service_date_from as date) as service_date,
    line_control_number,
    segment_number
from {{ source('era', 'remittance_service_lines') }}
