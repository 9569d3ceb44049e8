-- One row per payer per tenant. payer_key is the canonical payer name: the upper-cased N1*PR (835)
-- or NM1*PR (837) name, unless the tenant's alias table maps the payer's id or name to another
-- canonical payer. payer_id is the canonical id (alias, else the 835's N1*PR N104 / REF*2U / TRN03,
-- else the 837's NM1*PR id); the most frequent one when a payer has several.
-- payer_class: the alias's class when the tenant set one, else the class most of the payer's
-- remitted claims imply by their filing indicator (CLP06, seed claim_filing_indicator_payer_classes),
-- ties to the first in alphabetical order; 'other' when nothing says.
with aliases as (
    select * from {{ ref('stg_ops__payer_aliases') }}
),
submitted as (
    select
        claims.organization_id,
        claims.client_id,
        coalesce(by_id.canonical_payer_key, by_name.canonical_payer_key, claims.payer_key) as payer_key,
        claims.payer_name,
        coalesce(by_id.canonical_payer_id, by_name.canonical_payer_id, nullif(upper(trim(claims.payer_id)), ''))
            as payer_id,
        coalesce(by_id.payer_class, by_name.payer_class) as payer_class,
        claims.statement_to as seen_on
    from {{ ref('stg_claims__claims') }} as claims
    left join aliases as by_id
        on by_id.organization_id = claims.organization_id and by_id.client_id = claims.client_id
        and by_id.alias_kind = 'payer_id' and by_id.payer_alias = upper(trim(claims.payer_id))
    left join aliases as by_name
        on by_name.organization_id = claims.organization_id and by_name.client_id = claims.client_id
        and by_name.alias_kind = 'payer_name' and by_name.payer_alias = claims.payer_key
),
seen as (
    select organization_id, client_id, payer_key, payer_name, payer_id, payer_class, payment_date as seen_on
    from {{ ref('int_remittance_claims_sequenced') }}
    union all
    select organization_id, client_id, payer_key, payer_name, payer_id, payer_class, seen_on
    from submitted
),
ranked_classes as (
    select
        organization_id,
        client_id,
        payer_key,
        payer_class,
        row_number() over (
            partition by organization_id, client_id, payer_key order by count(*) desc, payer_class
        ) as class_rank
    from seen
    where payer_key is not null and payer_class is not null
    group by organization_id, client_id, payer_key, payer_class
),
ranked_ids as (
    select
        organization_id,
        client_id,
        payer_key,
        payer_id,
        row_number() over (
            partition by organization_id, client_id, payer_key order by count(*) desc, payer_id
        ) as id_rank
    from seen
    where payer_key is not null and payer_id is not null
    group by organization_id, client_id, payer_key, payer_id
)
select
    {{ tenant_key('seen.organization_id', 'seen.client_id', 'seen.payer_key') }} as payer_sk,
    seen.organization_id,
    seen.client_id,
    seen.payer_key,
    max(seen.payer_name) as payer_name,
    max(ranked_ids.payer_id) as payer_id,
    coalesce(max(ranked_classes.payer_class), 'other') as payer_class,
    min(seen.seen_on) as first_seen_on,
    max(seen.seen_on) as last_seen_on
from seen
left join ranked_ids
    on ranked_ids.organization_id = seen.organization_id and ranked_ids.client_id = seen.client_id
    and ranked_ids.payer_key = seen.payer_key and ranked_ids.id_rank = 1
left join ranked_classes
    on ranked_classes.organization_id = seen.organization_id and ranked_classes.client_id = seen.client_id
    and ranked_classes.payer_key = seen.payer_key and ranked_classes.class_rank = 1
where seen.payer_key is not null
group by seen.organization_id, seen.client_id, seen.payer_key
