-- In the build file, not the in-memory `scratch` of the other intermediate models: its tests' failing
-- rows are read after the build to quarantine tenants (pipelines/warehouse/quarantine.py).
{{ config(database=target.database) }}
-- One row per submitted (837) claim and tenant (the latest version, int_submitted_claims_deduplicated):
-- the facility and the service line the denial cells of fct_denial_cells_monthly are cut by.
--
-- facility      the billing provider's NPI (X12 837 TR3 005010X222A1 / X223A2, loop 2010AA NM1*85
--               NM109): the claim's billing entity; 'unknown' when the 837 carries none.
-- service_line  the class of the claim's principal line: its line with the highest charge (ties: the
--               lowest line_index), classified by the code ranges of the seed service_line_codes
--               (AMA CPT Category I sections, CMS HCPCS Level II J codes; the NUBC UB-04 revenue code
--               when the line has no procedure code); 'other' when no range holds the code, 'unknown'
--               when the claim has no 837 line. A remitted claim without an 837 has no row here (the
--               mart calls both 'unknown').
with claims as (
    select submitted_claim_key, organization_id, client_id, claim_key, billing_provider_npi
    from {{ ref('int_submitted_claims_deduplicated') }}
),
principal_candidates as (
    select
        claim_lines.submitted_claim_key,
        claim_lines.line_index,
        nullif(upper(trim(claim_lines.procedure_code)), '') as procedure_code,
        nullif(trim(claim_lines.revenue_code), '') as revenue_code,
        row_number() over (
            partition by claim_lines.submitted_claim_key
            order by coalesce(claim_lines.charge_amount, 0) desc, claim_lines.line_index
        ) as charge_rank
    from {{ ref('stg_claims__lines') }} as claim_lines
    inner join claims on claims.submitted_claim_key = claim_lines.submitted_claim_key
),
principal as (
    select
        submitted_claim_key,
        line_index,
        procedure_code,
        -- revenue codes are four digits with a leading zero (NUBC); a three-digit one lost its zero
        case when length(revenue_code) = 3 then '0' || revenue_code else revenue_code end as revenue_code,
        -- which code of the seed's ranges the line is classified by: a five-digit CPT code, a HCPCS
        -- Level II code (a letter and four digits), else the revenue code (a Category II/III CPT code
        -- such as 0001T, or any other procedure code, is 'other')
        case
            when procedure_code is null then 'revenue'
            when length(procedure_code) = 5 and translate(procedure_code, '0123456789', '') = '' then 'cpt'
            when
                length(procedure_code) = 5 and translate(substr(procedure_code, 2), '0123456789', '') = ''
                and translate(substr(procedure_code, 1, 1), '0123456789', '') <> ''
                then 'hcpcs'
            else 'unranged'
        end as code_system
    from principal_candidates
    where charge_rank = 1
),
classified as (
    select
        principal.submitted_claim_key,
        principal.line_index,
        principal.procedure_code,
        principal.revenue_code,
        principal.code_system,
        coalesce(codes.service_line, 'other') as service_line
    from principal
    left join {{ ref('service_line_codes') }} as codes
        on codes.code_system = principal.code_system
        and case when principal.code_system = 'revenue' then principal.revenue_code else principal.procedure_code end
        between codes.range_from and codes.range_to
)
select
    {{ tenant_key('claims.organization_id', 'claims.client_id', 'claims.claim_key') }} as claim_sk,
    claims.organization_id,
    claims.client_id,
    claims.claim_key,
    claims.submitted_claim_key,
    coalesce(nullif(trim(claims.billing_provider_npi), ''), 'unknown') as facility,
    classified.line_index as principal_line_index,
    classified.procedure_code as principal_procedure_code,
    classified.revenue_code as principal_revenue_code,
    coalesce(classified.service_line, 'unknown') as service_line
from claims
left join classified on classified.submitted_claim_key = claims.submitted_claim_key
