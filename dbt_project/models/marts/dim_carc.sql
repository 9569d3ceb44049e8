-- CARC reference per tenant: the seed's codes plus any code seen in a tenant's remittances that the
-- seed does not know yet (category `other`, known = false), so every adjustment has a dimension row.
with codes as (
    select carc, carc_summary, carc_category, carc_is_denial, hard_or_soft, preventable, true as known
    from {{ ref('stg_reference__carc') }}
),
unknown as (
    select distinct adjustments.organization_id, adjustments.client_id, adjustments.carc
    from {{ ref('stg_era__adjustments') }} as adjustments
    left join codes on codes.carc = adjustments.carc
    where codes.carc is null and adjustments.carc is not null
),
rows_per_tenant as (
    select tenants.organization_id, tenants.client_id, codes.*
    from {{ ref('int_tenants') }} as tenants
    cross join codes
    union all
    select
        organization_id,
        client_id,
        carc,
        cast(null as varchar) as carc_summary,
        'unclassified' as carc_category,
        cast(null as boolean) as carc_is_denial,
        cast(null as varchar) as hard_or_soft,
        cast(null as varchar) as preventable,
        false as known
    from unknown
)
select
    {{ tenant_key('rows_per_tenant.organization_id', 'rows_per_tenant.client_id', 'rows_per_tenant.carc') }} as carc_sk,
    rows_per_tenant.organization_id,
    rows_per_tenant.client_id,
    rows_per_tenant.carc,
    rows_per_tenant.carc_summary,
    rows_per_tenant.carc_category as denial_category,
    categories.category_label,
    categories.typical_fix,
    rows_per_tenant.carc_is_denial as is_denial,
    rows_per_tenant.hard_or_soft,
    rows_per_tenant.preventable,
    rows_per_tenant.known
from rows_per_tenant
left join {{ ref('stg_reference__denial_categories') }} as categories
    on categories.category = rows_per_tenant.carc_category
