{{ config(materialized='table') }}
-- One row per CLP: the claim-level contract term that would price it, if any, and its price, before
-- the denial screen (fct_claim_pricing and fct_service_lines drop the term of a fully
-- denied claim). It needs only the claim's payer, plan, dates and codes
-- (int_remittance_claims_sequenced), so it builds beside fct_claim_adjustments.
-- A claim is priced as a whole when it carries a DRG (CLP11) that a drg_case_rate term of its payer
-- names, else when it is inpatient and its payer has a per_diem term; every other claim is priced
-- line by line (int_contract_pricing_lines). Inpatient: CLP08 facility type 11, 18, 21, 41, 65, 66
-- or 86 (hospital/SNF/other inpatient stays), or the 837 has an admission date (DTP*435).
-- The term in effect is the one on the discharge date (statement_to), else the admission or
-- statement start, else the payment date. Per diem days = discharge - admission (or statement from),
-- at least 1 (a same-day stay is one day). Reversals and predeterminations are not priced (a
-- reversal undoes a price; a predetermination is not an adjudication).
-- A plan-specific term (matched to CLP06) wins over one for every plan; then the latest start.
with claims as (
    select
        sequenced.remittance_claim_key,
        sequenced.organization_id,
        sequenced.client_id,
        sequenced.claim_key,
        sequenced.payer_key,
        sequenced.filing_indicator,
        sequenced.billed_amount,
        sequenced.is_reversal,
        sequenced.is_predetermination,
        sequenced.drg_code,
        coalesce(sequenced.statement_to, submitted.statement_to, sequenced.statement_from, sequenced.payment_date)
            as priced_on,
        coalesce(submitted.admission_date, sequenced.statement_from, submitted.statement_from) as stay_from,
        coalesce(sequenced.statement_to, submitted.statement_to) as stay_to,
        (
            sequenced.facility_type_code in ('11', '18', '21', '41', '65', '66', '86')
            or submitted.admission_date is not null
        ) as is_inpatient
    from {{ ref('int_remittance_claims_sequenced') }} as sequenced
    left join {{ ref('int_submitted_claims_deduplicated') }} as submitted
        on submitted.organization_id = sequenced.organization_id
        and submitted.client_id = sequenced.client_id
        and submitted.claim_key = sequenced.claim_key
),
stays as (
    select
        remittance_claim_key,
        greatest(1, coalesce({{ dbt.datediff('stay_from', 'stay_to', 'day') }}, 1)) as stay_days
    from claims
),
terms as (
    select * from {{ ref('int_contract_terms') }}
    where pricing_method in ('drg_case_rate', 'per_diem')
),
candidates as (
    select
        claims.remittance_claim_key,
        terms.term_id,
        terms.term_source,
        terms.pricing_method,
        terms.rate,
        terms.lesser_of,
        terms.effective_from,
        terms.effective_to,
        row_number() over (
            partition by claims.remittance_claim_key
            order by
                case when terms.pricing_method = 'drg_case_rate' then 0 else 1 end asc,
                case when terms.plan_code is not null then 0 else 1 end asc,
                terms.effective_from desc nulls last,
                terms.term_id asc
        ) as term_rank
    from claims
    inner join terms
        on terms.organization_id = claims.organization_id
        and terms.client_id = claims.client_id
        and terms.payer_key = claims.payer_key
        and (terms.plan_code is null or terms.plan_code = claims.filing_indicator)
        and {{ term_in_effect('claims.priced_on', 'terms.effective_from', 'terms.effective_to') }}
        and (
            (terms.pricing_method = 'drg_case_rate' and terms.drg_code = claims.drg_code)
            or (terms.pricing_method = 'per_diem' and claims.is_inpatient)
        )
    where not claims.is_reversal and not claims.is_predetermination
)
select
    claims.remittance_claim_key,
    claims.organization_id,
    claims.client_id,
    claims.drg_code,
    claims.priced_on,
    claims.is_inpatient,
    case when candidates.pricing_method = 'per_diem' then stay.stay_days end as stay_days,
    candidates.term_id,
    candidates.term_source,
    candidates.pricing_method,
    candidates.effective_from,
    candidates.effective_to,
    {{ money(contract_price(
        'candidates.pricing_method', 'candidates.rate', 'null', '1', 'stay.stay_days', 'claims.billed_amount', 'candidates.lesser_of'
    )) }} as contract_allowed_amount
from claims
inner join stays as stay on stay.remittance_claim_key = claims.remittance_claim_key
left join candidates
    on candidates.remittance_claim_key = claims.remittance_claim_key and candidates.term_rank = 1
