{{ config(materialized='table') }}
-- A table: three models read it (int_remittance_claims_matched, int_contract_pricing_claims,
-- fct_claim_reconciliation); as a view each of them deduplicated every submitted claim again.
-- One row per submitted (837) claim and tenant: a claim sent again (replacement, frequency 7,
-- or the same export twice) keeps its latest version. payer_key and payer_id are the canonical
-- payer of the tenant's alias table (the NM1*PR PI id first, then the name), as in dim_payers.
with ranked as (
    select
        *,
        row_number() over (
            partition by organization_id, client_id, claim_key
            order by case when frequency_code = '7' then 1 else 0 end desc, statement_to desc, submitted_claim_key desc
        ) as version_rank,
        count(*) over (partition by organization_id, client_id, claim_key) as submissions,
        -- The claim left the provider when it was first billed; a replacement does not move that date.
        min(submission_date) over (partition by organization_id, client_id, claim_key) as first_submission_date
    from {{ ref('stg_claims__claims') }}
),
aliases as (
    select * from {{ ref('stg_ops__payer_aliases') }}
)
select
    ranked.submitted_claim_key,
    ranked.organization_id,
    ranked.client_id,
    ranked.claim_key,
    ranked.claim_type,
    ranked.billed_amount,
    ranked.facility_code,
    ranked.frequency_code,
    ranked.billing_provider_npi,
    coalesce(by_id.canonical_payer_key, by_name.canonical_payer_key, ranked.payer_key) as payer_key,
    ranked.payer_name,
    coalesce(by_id.canonical_payer_id, by_name.canonical_payer_id, ranked.payer_id) as payer_id,
    ranked.statement_from,
    ranked.statement_to,
    ranked.admission_date,
    ranked.has_prior_authorization,
    ranked.first_submission_date as submission_date,
    ranked.line_count,
    ranked.submissions
from ranked
left join aliases as by_id
    on by_id.organization_id = ranked.organization_id and by_id.client_id = ranked.client_id
    and by_id.alias_kind = 'payer_id' and by_id.payer_alias = upper(trim(ranked.payer_id))
left join aliases as by_name
    on by_name.organization_id = ranked.organization_id and by_name.client_id = ranked.client_id
    and by_name.alias_kind = 'payer_name' and by_name.payer_alias = ranked.payer_key
where ranked.version_rank = 1
