-- Denial cells for pattern mining and intervention evidence: one row per tenant, adjudication month,
-- payer (and its class), service line, facility, root-cause category and CARC, counting the claims
-- each payer adjudicated. The rows are those of fct_payer_monthly (int_claim_payer_adjudications: one
-- row per claim and payer, in the month of that payer's own initial decision; a claim without an
-- adjudication month is left out as there): a claim the payer initially denied (in whole or in part)
-- is in its primary denial category and CARC exactly as in fct_payer_denials_monthly, a claim it did
-- not deny is in denial_category 'none', carc 'NONE'. So a payer-month's claims add up to
-- fct_payer_monthly.claims_adjudicated, and its denied cells to fct_payer_denials_monthly.denied_claims
-- (tests/assert_denial_cells_match_payer_marts.sql).
-- The service line and facility are the submitted claim's (int_claim_service_lines_classified); a
-- remitted claim without an 837 is 'unknown' in both.
with adjudications as (
    select * from {{ ref('int_claim_payer_adjudications') }}
    where adjudication_month is not null
),
classified as (
    select organization_id, client_id, claim_key, facility, service_line
    from {{ ref('int_claim_service_lines_classified') }}
),
cells as (
    select
        adjudications.organization_id,
        adjudications.client_id,
        adjudications.adjudication_month,
        adjudications.payer_key,
        adjudications.payer_class,
        coalesce(classified.service_line, 'unknown') as service_line,
        coalesce(classified.facility, 'unknown') as facility,
        case
            when adjudications.initially_denied then coalesce(adjudications.primary_denial_category, 'other')
            else 'none'
        end as denial_category,
        case
            when adjudications.initially_denied then coalesce(adjudications.primary_denial_carc, 'NONE')
            else 'NONE'
        end as carc,
        adjudications.initial_denied_amount,
        adjudications.remit_billed_amount
    from adjudications
    left join classified
        on classified.organization_id = adjudications.organization_id
        and classified.client_id = adjudications.client_id
        and classified.claim_key = adjudications.claim_key
),
grouped as (
    select
        organization_id,
        client_id,
        adjudication_month,
        payer_key,
        payer_class,
        service_line,
        facility,
        denial_category,
        carc,
        count(*) as claims,
        sum(initial_denied_amount) as denied_amount,
        sum(remit_billed_amount) as billed_amount
    from cells
    group by
        organization_id, client_id, adjudication_month, payer_key, payer_class, service_line, facility,
        denial_category, carc
)
select
    {{ tenant_key(
        'organization_id', 'client_id', 'adjudication_month', 'payer_key', 'payer_class', 'service_line',
        'facility', 'denial_category', 'carc',
    ) }} as denial_cell_key,
    organization_id,
    client_id,
    adjudication_month,
    payer_key,
    payer_class,
    service_line,
    facility,
    denial_category,
    carc,
    cast(claims as integer) as claims,
    {{ money('denied_amount') }} as denied_amount,
    {{ money('billed_amount') }} as billed_amount
from grouped
