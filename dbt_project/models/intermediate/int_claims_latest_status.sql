-- One row per claim (tenant + patient control number) that has an adjudication, built from the
-- claim's per-payer histories (int_claim_payer_adjudications: reversals, corrections, overturns
-- and recovered money are decided within one payer, never across payers).
--   initial decision   the claim's first decision, by whichever payer made it (event order);
--                      payer_key is that payer (a denial by the wrong payer is still the claim's
--                      initial denial);
--   overturned         some payer overturned its own denial; recovered sums what each payer's
--                      overturn added;
--   final paid         all payers' net payments; final patient responsibility comes from the last
--                      payer in the COB chain (a Medigap secondary paying the Medicare coinsurance
--                      leaves 0);
--   claim_outcome      overturned, else the current decision of the last payer in the chain:
--                      denied (in full), partially_denied or paid. A recoupment that ends denied
--                      (paid, reversed, re-adjudicated as denied) is therefore `denied`.
-- Predeterminations (CLP02=25) are left out upstream.
--
-- A claim that only one payer adjudicated (claim_payer_count = 1, most claims) is that payer's
-- history as it is: its initial, last and primary payer are the same row. The aggregation and the
-- joins below run only on the claims with several payers; both paths give the same columns.
with payers as (
    select * from {{ ref('int_claim_payer_adjudications') }}
    where claim_payer_count > 1
),
per_claim as (
    select
        organization_id,
        client_id,
        claim_key,
        min(initial_event_sequence) as first_decision_sequence,
        count(*) as payer_count,
        coalesce(bool_or(overturned), false) as any_overturned,
        sum(recovered_amount) as recovered_amount,
        min(recovery_date) as recovery_date,
        sum(remittance_events) as remittance_events,
        sum(reversals) as reversals,
        sum(paid_amount) as final_paid_amount,
        max(last_payment_date) as last_payment_date
    from payers
    group by organization_id, client_id, claim_key
),
initial as (
    select payers.*
    from payers
    inner join per_claim
        on per_claim.organization_id = payers.organization_id and per_claim.client_id = payers.client_id
        and per_claim.claim_key = payers.claim_key and per_claim.first_decision_sequence = payers.initial_event_sequence
),
last_payer as (
    select * from payers
    where is_last_in_chain
),
primary_payer as (
    select * from payers
    where cob_sequence = 1
),
several_payers as (
    select
        per_claim.organization_id,
        per_claim.client_id,
        per_claim.claim_key,
        initial.payer_key,
        initial.payer_name,
        initial.payer_id,
        initial.payer_class,
        last_payer.payer_key as last_payer_key,
        per_claim.payer_count,
        initial.initial_remittance_claim_key,
        initial.initial_payment_date,
        initial.adjudication_month,
        initial.initial_status_code,
        initial.remit_billed_amount,
        initial.initial_paid_amount,
        initial.initial_patient_responsibility,
        initial.initially_denied,
        initial.initially_fully_denied,
        initial.initial_denied_amount,
        initial.primary_denial_category,
        initial.primary_carc_category,
        initial.primary_denial_group_code,
        initial.primary_denial_carc,
        initial.primary_denial_hard_or_soft,
        initial.primary_denial_preventable,
        initial.statement_from,
        initial.statement_to,
        initial.claim_received_date,
        per_claim.any_overturned as overturned,
        {{ money('per_claim.recovered_amount') }} as recovered_amount,
        per_claim.recovery_date,
        per_claim.remittance_events,
        per_claim.reversals,
        {{ money('per_claim.final_paid_amount') }} as final_paid_amount,
        last_payer.patient_responsibility as final_patient_responsibility,
        per_claim.last_payment_date,
        last_payer.current_status_code as latest_status_code,
        last_payer.current_remittance_claim_key as latest_remittance_claim_key,
        -- the primary payer's current decision: where the contract's allowed amount and variance are read
        coalesce(primary_payer.current_remittance_claim_key, last_payer.current_remittance_claim_key)
            as primary_remittance_claim_key,
        last_payer.current_is_denied,
        last_payer.current_denied_amount,
        {{ claim_outcome(
            'per_claim.any_overturned', 'last_payer.current_is_fully_denied', 'last_payer.current_is_denied'
        ) }} as claim_outcome
    from per_claim
    inner join initial
        on initial.organization_id = per_claim.organization_id and initial.client_id = per_claim.client_id
        and initial.claim_key = per_claim.claim_key
    inner join last_payer
        on last_payer.organization_id = per_claim.organization_id and last_payer.client_id = per_claim.client_id
        and last_payer.claim_key = per_claim.claim_key
    left join primary_payer
        on primary_payer.organization_id = per_claim.organization_id and primary_payer.client_id = per_claim.client_id
        and primary_payer.claim_key = per_claim.claim_key
),
one_payer as (
    select
        organization_id,
        client_id,
        claim_key,
        payer_key,
        payer_name,
        payer_id,
        payer_class,
        payer_key as last_payer_key,
        claim_payer_count as payer_count,
        initial_remittance_claim_key,
        initial_payment_date,
        adjudication_month,
        initial_status_code,
        remit_billed_amount,
        initial_paid_amount,
        initial_patient_responsibility,
        initially_denied,
        initially_fully_denied,
        initial_denied_amount,
        primary_denial_category,
        primary_carc_category,
        primary_denial_group_code,
        primary_denial_carc,
        primary_denial_hard_or_soft,
        primary_denial_preventable,
        statement_from,
        statement_to,
        claim_received_date,
        coalesce(overturned, false) as overturned,
        {{ money('recovered_amount') }} as recovered_amount,
        recovery_date,
        remittance_events,
        reversals,
        {{ money('paid_amount') }} as final_paid_amount,
        patient_responsibility as final_patient_responsibility,
        last_payment_date,
        current_status_code as latest_status_code,
        current_remittance_claim_key as latest_remittance_claim_key,
        current_remittance_claim_key as primary_remittance_claim_key,
        current_is_denied,
        current_denied_amount,
        {{ claim_outcome('overturned', 'current_is_fully_denied', 'current_is_denied') }} as claim_outcome
    from {{ ref('int_claim_payer_adjudications') }}
    where claim_payer_count = 1
)
select * from several_payers
union all
select * from one_payer
