{{ config(materialized='table') }}
-- Every tenant (organization, client) with any data in the warehouse. A table (a few rows): as a
-- view, each of its readers (the contract terms, read three times, and the CARC and RARC dimensions)
-- scanned every raw claim again.
select distinct organization_id, client_id from {{ ref('stg_era__claims') }}
union
select distinct organization_id, client_id from {{ ref('stg_claims__claims') }}
union
select distinct organization_id, client_id from {{ ref('stg_ops__import_batches') }}
