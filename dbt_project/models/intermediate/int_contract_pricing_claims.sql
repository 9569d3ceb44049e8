{{ config(materialized='view') }}
-- One row per CLP: the claim-level contract term that prices it, if any, and its price
-- (int_contract_pricing_claim_terms: DRG case rate or per diem, rules there). A fully denied claim
-- is not priced (a denial is a denial, not an underpayment): its term is dropped here. A view:
-- only fct_claim_pricing reads it.
select
    terms.remittance_claim_key,
    terms.organization_id,
    terms.client_id,
    terms.drg_code,
    terms.priced_on,
    terms.is_inpatient,
    case when not summarised.is_fully_denied then terms.stay_days end as stay_days,
    case when not summarised.is_fully_denied then terms.term_id end as term_id,
    case when not summarised.is_fully_denied then terms.term_source end as term_source,
    case when not summarised.is_fully_denied then terms.pricing_method end as pricing_method,
    case when not summarised.is_fully_denied then terms.effective_from end as effective_from,
    case when not summarised.is_fully_denied then terms.effective_to end as effective_to,
    case when not summarised.is_fully_denied then terms.contract_allowed_amount end as contract_allowed_amount
from {{ ref('int_contract_pricing_claim_terms') }} as terms
inner join {{ ref('int_remittance_claims_summarised') }} as summarised
    on summarised.remittance_claim_key = terms.remittance_claim_key
