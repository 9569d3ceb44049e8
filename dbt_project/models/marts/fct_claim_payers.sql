-- One row per claim and payer of the claim (int_claim_payer_adjudications): each payer's own
-- adjudication of the claim, so a COB secondary payer (a Medigap paying the coinsurance after
-- Medicare) is a payer in its own right in every payer view (payerIntelligence.timeToPay reads it;
-- fct_payer_monthly aggregates the same rows per month), never folded into the primary.
select
    organization_id,
    client_id,
    claim_key,
    payer_sk,
    payer_key,
    payer_id,
    cob_sequence,
    is_last_in_chain,
    adjudication_month,
    initial_payment_date,
    initial_status_code,
    initially_denied,
    initial_denied_amount,
    overturned,
    recovered_amount,
    paid_amount,
    days_to_pay,
    -- revenueSimulation: the denial's category (the most denied money) and when it was overturned
    primary_denial_category,
    recovery_date
from {{ ref('int_claim_payer_adjudications') }}
