{{ config(meta={'dagster': {'ref': {'name': 'fct_remittance_claims'}}}) }}
-- Every CLP's adjustment_total equals the sum of its CAS triplets in fct_claim_adjustments (to the cent).
with by_claim as (
    select remittance_claim_key, sum(amount) as amount
    from {{ ref('fct_claim_adjustments') }}
    group by remittance_claim_key
)
select claims.remittance_claim_key, claims.adjustment_total, by_claim.amount
from {{ ref('fct_remittance_claims') }} as claims
left join by_claim on by_claim.remittance_claim_key = claims.remittance_claim_key
where claims.adjustment_total <> coalesce(by_claim.amount, 0)
