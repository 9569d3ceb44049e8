-- Every tenant (organization, client) with any data in the warehouse.
select distinct organization_id, client_id from {{ ref('stg_era__claims') }}
union
select distinct organization_id, client_id from {{ ref('stg_claims__claims') }}
union
select distinct organization_id, client_id from {{ ref('stg_ops__import_batches') }}
