-- RARC reference per tenant: known identifiers (seed rarc_codes), the hint map and any code seen in
-- the tenant's remittances.
with codes as (
    select upper(trim(rarc)) as rarc from {{ ref('rarc_codes') }}
    union
    select rarc from {{ ref('stg_reference__rarc_hints') }}
),
per_tenant as (
    select tenants.organization_id, tenants.client_id, codes.rarc, true as known
    from {{ ref('int_tenants') }} as tenants
    cross join codes
    union all
    select distinct remarks.organization_id, remarks.client_id, remarks.rarc, false as known
    from {{ ref('stg_era__remarks') }} as remarks
    left join codes on codes.rarc = remarks.rarc
    where codes.rarc is null
)
select
    {{ tenant_key('per_tenant.organization_id', 'per_tenant.client_id', 'per_tenant.rarc') }} as rarc_sk,
    per_tenant.organization_id,
    per_tenant.client_id,
    per_tenant.rarc,
    hints.rarc_summary,
    hints.category_hint,
    per_tenant.known
from per_tenant
left join {{ ref('stg_reference__rarc_hints') }} as hints on hints.rarc = per_tenant.rarc
