{{ config(materialized='table') }}
-- A table: three models read it (int_remittance_claims_matched, int_contract_pricing_claim_terms,
-- fct_claim_reconciliation); as a view each of them deduplicated every submitted claim again.
-- One row per submitted (837) claim and tenant: a claim sent again (replacement, frequency 7,
-- or the same export twice) keeps its latest version. payer_key and payer_id are the canonical
-- payer of the tenant's alias table (the NM1*PR PI id first, then the name), as in dim_payers.
with claims as (
    select * from {{ ref('stg_claims__claims') }}
),
-- Most claims are sent once: only the versions of a claim sent several times are ranked (a window
-- over every claim sorted a million one-row partitions with all their columns).
claims_sent_again as (
    select organization_id, client_id, claim_key, true as sent_again
    from claims
    group by organization_id, client_id, claim_key
    having count(*) > 1
),
ranked as (
    select
        claims.*,
        1 as version_rank,
        1 as submissions,
        claims.submission_date as first_submission_date
    from claims
    left join claims_sent_again
        on claims_sent_again.organization_id = claims.organization_id
        and claims_sent_again.client_id = claims.client_id
        and claims_sent_again.claim_key is not distinct from claims.claim_key
    where claims_sent_again.sent_again is null
    union all
    select
        claims.*,
        row_number() over (
            partition by claims.organization_id, claims.client_id, claims.claim_key
            order by
                case when claims.frequency_code = '7' then 1 else 0 end desc,
                claims.statement_to desc,
                claims.submitted_claim_key desc
        ) as version_rank,
        count(*) over (partition by claims.organization_id, claims.client_id, claims.claim_key) as submissions,
        -- The claim left the provider when it was first billed; a replacement does not move that date.
        min(claims.submission_date) over (partition by claims.organization_id, claims.client_id, claims.claim_key)
            as first_submission_date
    from claims
    inner join claims_sent_again
        on claims_sent_again.organization_id = claims.organization_id
        and claims_sent_again.client_id = claims.client_id
        and claims_sent_again.claim_key is not distinct from claims.claim_key
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
