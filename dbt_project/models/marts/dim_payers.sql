-- One row per payer per tenant. payer_key is the upper-cased payer name, the one identifier
-- present on both 837 (NM1*PR) and 835 (N1*PR) files.
with seen as (
    select organization_id, client_id, payer_key, payer_name, cast(null as varchar) as payer_id, payment_date as seen_on
    from {{ ref('stg_era__claims') }}
    union all
    select organization_id, client_id, payer_key, payer_name, payer_id, statement_to as seen_on
    from {{ ref('stg_claims__claims') }}
)
select
    {{ tenant_key('organization_id', 'client_id', 'payer_key') }} as payer_sk,
    organization_id,
    client_id,
    payer_key,
    max(payer_name) as payer_name,
    max(payer_id) as payer_id,
    min(seen_on) as first_seen_on,
    max(seen_on) as last_seen_on
from seen
where payer_key is not null
group by organization_id, client_id, payer_key
