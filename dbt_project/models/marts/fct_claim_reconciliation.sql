-- One row per claim and tenant, submitted (837) or remitted (835): billed vs allowed vs paid vs
-- patient responsibility, the initial decision and the outcome, the contract expectation and
-- the ERA-to-claim match status:
--   matched                  submitted and remitted, CLP03 equals the submitted charge
--   charge_mismatch          submitted and remitted, charges differ
--   awaiting_remittance      submitted, no remittance yet
--   remittance_without_claim remitted, never seen submitted
-- With COB, payer_key is the payer of the claim's first decision, last_payer_key the last payer in
-- the chain (whose current decision gives the outcome and the patient's balance), paid_amount all
-- payers' net payments; allowed and contract variance are read from the primary payer's current
-- adjudication only (a line remitted again after a reversal counts once).
-- The claim's facts come from int_claims_reconciled, which every column but the price is computed in.
select
    reconciled.*,
    pricing.allowed_amount,
    pricing.expected_allowed_amount,
    pricing.allowed_variance
from {{ ref('int_claims_reconciled') }} as reconciled
-- The contract price of the primary payer's current adjudication, claim-level terms (DRG, per diem)
-- included.
left join {{ ref('fct_claim_pricing') }} as pricing
    on pricing.remittance_claim_key = reconciled.primary_remittance_claim_key
