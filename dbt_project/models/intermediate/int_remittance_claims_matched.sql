-- Every CLP matched to the submitted (837) claim of the same tenant by patient control number.
-- match_status: matched | charge_mismatch (CLP03 differs from the submitted total charge) |
-- no_submitted_claim (an ERA for a claim we never saw submitted).
with events as (
    select * from {{ ref('int_remittance_claims_summarised') }}
),
submitted as (
    select * from {{ ref('int_submitted_claims_deduplicated') }}
)
select
    events.*,
    submitted.submitted_claim_key,
    submitted.billed_amount as submitted_billed_amount,
    submitted.claim_type,
    submitted.facility_code,
    case
        when submitted.submitted_claim_key is null then 'no_submitted_claim'
        when abs(events.billed_amount) <> submitted.billed_amount then 'charge_mismatch'
        else 'matched'
    end as match_status
from events
left join submitted
    on submitted.organization_id = events.organization_id
    and submitted.client_id = events.client_id
    and submitted.claim_key = events.claim_key
