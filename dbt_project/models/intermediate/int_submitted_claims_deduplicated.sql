-- One row per submitted (837) claim and tenant: a claim sent again (replacement, frequency 7,
-- or the same export twice) keeps its latest version.
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
)
select
    submitted_claim_key,
    organization_id,
    client_id,
    claim_key,
    claim_type,
    billed_amount,
    facility_code,
    frequency_code,
    billing_provider_npi,
    payer_key,
    payer_name,
    payer_id,
    statement_from,
    statement_to,
    admission_date,
    has_prior_authorization,
    first_submission_date as submission_date,
    line_count,
    submissions
from ranked
where version_rank = 1
