{{ config(materialized='table') }}
-- A table: three models read it (int_claims_latest_status, fct_payer_monthly, fct_service_lines).
-- One row per claim and payer (tenant, CLP01, payer identity): that payer's adjudication history.
-- A claim's history is kept per payer, so a secondary payer's payment is never an overturn of the
-- primary's decision, and a denial by one payer followed by another payer's payment is not an
-- overturn of the first.
--
-- Within one payer (events ordered by event_sequence, see int_remittance_claims_summarised):
--   initial decision   the first non-reversal CLP (CLP02=25 predeterminations are left out);
--   current decision   the last non-reversal CLP (is_current_adjudication, int_remittance_claims_summarised);
--                      a CLP02=22 reversal plus its correction net to
--                      it: final paid and patient share are the sums over the payer's events;
--   overturned         the initial decision was a denial (full or partial) and a later decision of
--                      the same payer has no denial;
--   recovered          what the overturn added over what that payer had paid at its initial
--                      decision: final paid - initial paid (paid 80 with a line denied, reversed,
--                      corrected to 160 -> 80), never below 0;
--   a recoupment that ends denied (paid, reversed, re-adjudicated as denied) has a denied current
--   decision: current_is_denied / current_is_fully_denied say so;
--   reversed out      the payer's last remittance for the claim only reverses (no new decision in
--                      that remittance or after it): the money was taken back and nothing replaces
--                      it yet, so the current state is a full denial of the amount taken back
--                      (current_status_code 22). A correction in the same remittance as its
--                      reversal, before or after it in the file, is a decision, not a reversed-out claim.
--
-- COB chain: a payer is in the chain when it adjudicated the claim as one of its payers (a
-- CLP02 1/2/3/19/20/21 rank, or a decision that is not a full denial); a payer that only denied in
-- full without a rank (typically CLP02=4, "not our member") is outside it. cob_sequence orders the
-- chain by rank (CLP02 1/19 -> 1, 2/20 -> 2, 3/21 -> 3; unranked -> 1) and then by the payer's first
-- event; is_last_in_chain marks the payer whose current decision leaves the patient's balance.
-- claim_payer_count: how many payers have a history for the claim (int_claims_latest_status takes a
-- claim with one as it is).
--
-- Two paths, one result. Most claims have a single CLP (is_only_event, int_remittance_claims_sequenced):
-- its one payer's history is that event (initial = current decision, nothing reversed or overturned,
-- first and last in the chain), so it is projected as it is. The aggregation, joins and chain ranking
-- below run only on the claims with several events; `several_events` and `only_events` give the
-- same columns in the same order. A lone reversal (or a CLP without a status) has no decision and no
-- row on either path.
with events as (
    select * from {{ ref('int_remittance_claims_summarised') }}
    where not is_predetermination and not coalesce(is_only_event, false)
),
-- One aggregate pass per claim and payer (no sorted windows: the history is read with first/last-by
-- aggregates over event_sequence, which is unique within a claim).
per_payer as (
    select
        organization_id,
        client_id,
        claim_key,
        payer_identity,
        {{ first_by('remittance_claim_key', 'event_sequence', 'not is_reversal') }} as initial_key,
        max(case when is_current_adjudication then remittance_claim_key end) as current_key,
        min(event_sequence) as first_event_sequence,
        min(cob_level) as cob_level,
        coalesce(bool_or(is_crossover), false) as is_crossover,
        count(*) as remittance_events,
        sum(case when is_reversal then 1 else 0 end) as reversals,
        sum(paid_amount) as final_paid_amount,
        sum(patient_responsibility) as final_patient_responsibility,
        max(payment_date) as last_payment_date,
        -- decisions without a denial; when the initial decision is a denial (the only case where an
        -- overturn is possible) every one of them is later than it
        sum(case when not is_reversal and not is_denied then 1 else 0 end) as clean_decisions,
        min(case when not is_reversal and not is_denied then payment_date end) as first_clean_payment_date,
        coalesce(bool_or(not is_reversal and not is_fully_denied), false) as has_adjudicated,
        coalesce(
            max(case when is_reversal then remittance_order end)
            > max(case when not is_reversal then remittance_order end),
            false
        ) as is_reversed_out,
        -sum(case when is_reversal and remittance_order = payer_last_remittance_order then paid_amount else 0 end)
            as taken_back_amount
    from events
    group by organization_id, client_id, claim_key, payer_identity
),
decided as (
    select
        per_payer.*,
        initial.payer_key,
        initial.payer_name,
        initial.payer_id,
        initial.payer_class,
        initial.payment_date,
        initial.claim_status_code,
        initial.billed_amount,
        initial.paid_amount,
        initial.patient_responsibility,
        initial.is_denied,
        initial.is_fully_denied,
        initial.denied_amount,
        initial.provider_denied_amount,
        initial.primary_denial_category,
        initial.primary_carc_category,
        initial.primary_denial_group_code,
        initial.primary_denial_carc,
        initial.primary_denial_hard_or_soft,
        initial.primary_denial_preventable,
        initial.statement_from,
        initial.statement_to,
        initial.claim_received_date,
        initial.event_sequence as initial_event_sequence,
        case when per_payer.is_reversed_out then '22' else current_decision.claim_status_code end
            as current_status_code,
        per_payer.is_reversed_out or current_decision.is_denied as current_is_denied,
        per_payer.is_reversed_out or current_decision.is_fully_denied as current_is_fully_denied,
        case
            when per_payer.is_reversed_out then per_payer.taken_back_amount else current_decision.denied_amount
        end as current_denied_amount,
        initial.is_denied and per_payer.clean_decisions > 0 as is_overturned,
        per_payer.cob_level is not null or per_payer.has_adjudicated as in_chain
    from per_payer
    inner join events as initial
        on initial.remittance_claim_key = per_payer.initial_key
    inner join events as current_decision
        on current_decision.remittance_claim_key = per_payer.current_key
),
-- The chain positions, computed on the keys alone and joined back (a window over the full rows sorts
-- every column with them).
chain_positions as (
    select
        initial_key,
        case when in_chain then row_number() over (
            partition by organization_id, client_id, claim_key, in_chain
            order by coalesce(cob_level, 1), first_event_sequence
        ) end as cob_sequence,
        -- the payer deciding the claim's state: the last one in the chain, or, when no payer is in
        -- it (every payer denied in full), the payer with the latest first event
        row_number() over (
            partition by organization_id, client_id, claim_key
            order by
                case when in_chain then 1 else 0 end desc,
                coalesce(cob_level, 1) desc,
                first_event_sequence desc
        ) = 1 as is_last_in_chain,
        count(*) over (partition by organization_id, client_id, claim_key) as claim_payer_count
    from (
        select
            organization_id, client_id, claim_key, initial_key, cob_level, first_event_sequence,
            cob_level is not null or has_adjudicated as in_chain
        from per_payer
        where initial_key is not null  -- as in decided: a payer with only reversals has no decision
    ) as chain_keys
),
chained as (
    select
        decided.*, chain_positions.cob_sequence, chain_positions.is_last_in_chain, chain_positions.claim_payer_count
    from decided
    inner join chain_positions on chain_positions.initial_key = decided.initial_key
),
several_events as (
    select
        {{ tenant_key('organization_id', 'client_id', 'payer_key') }} as payer_sk,
        organization_id,
        client_id,
        claim_key,
        payer_identity,
        payer_key,
        payer_name,
        payer_id,
        payer_class,
        cob_level,
        cob_sequence,
        is_last_in_chain,
        claim_payer_count,
        is_crossover,
        is_reversed_out,
        initial_key as initial_remittance_claim_key,
        current_key as current_remittance_claim_key,
        initial_event_sequence,
        payment_date as initial_payment_date,
        {{ month_of('payment_date') }} as adjudication_month,
        claim_status_code as initial_status_code,
        current_status_code,
        billed_amount as remit_billed_amount,
        paid_amount as initial_paid_amount,
        patient_responsibility as initial_patient_responsibility,
        is_denied as initially_denied,
        is_fully_denied as initially_fully_denied,
        denied_amount as initial_denied_amount,
        provider_denied_amount as initial_provider_denied_amount,
        current_is_denied,
        current_is_fully_denied,
        current_denied_amount,
        primary_denial_category,
        primary_carc_category,
        primary_denial_group_code,
        primary_denial_carc,
        primary_denial_hard_or_soft,
        primary_denial_preventable,
        statement_from,
        statement_to,
        claim_received_date,
        is_overturned as overturned,
        {{ money('case when is_overturned then greatest(final_paid_amount - paid_amount, 0) else 0 end') }}
            as recovered_amount,
        -- the partial-win recovery (truth of the denial cases, docs in _intermediate.yml): what the payer
        -- paid since its initial denial, overturned or not (a later decision that still denies part counts)
        {{ money('case when is_denied then greatest(final_paid_amount - paid_amount, 0) else 0 end') }}
            as recovered_to_date,
        case when is_overturned then first_clean_payment_date end as recovery_date,
        remittance_events,
        reversals,
        {{ money('final_paid_amount') }} as paid_amount,
        {{ money('final_patient_responsibility') }} as patient_responsibility,
        last_payment_date,
        {{ dbt.datediff('coalesce(claim_received_date, statement_to)', 'payment_date', 'day') }} as days_to_pay
    from chained
),
-- A claim's only CLP is its one payer's whole history (see the note at the top). The literals take
-- the type of the aggregate on the other path (union all).
only_events as (
    select
        {{ tenant_key('organization_id', 'client_id', 'payer_key') }} as payer_sk,
        organization_id,
        client_id,
        claim_key,
        payer_identity,
        payer_key,
        payer_name,
        payer_id,
        payer_class,
        cob_level,
        case when cob_level is not null or coalesce(not is_fully_denied, false) then 1 end as cob_sequence,
        true as is_last_in_chain,
        1 as claim_payer_count,
        coalesce(is_crossover, false) as is_crossover,
        false as is_reversed_out,
        remittance_claim_key as initial_remittance_claim_key,
        remittance_claim_key as current_remittance_claim_key,
        event_sequence as initial_event_sequence,
        payment_date as initial_payment_date,
        {{ month_of('payment_date') }} as adjudication_month,
        claim_status_code as initial_status_code,
        claim_status_code as current_status_code,
        billed_amount as remit_billed_amount,
        paid_amount as initial_paid_amount,
        patient_responsibility as initial_patient_responsibility,
        is_denied as initially_denied,
        is_fully_denied as initially_fully_denied,
        denied_amount as initial_denied_amount,
        provider_denied_amount as initial_provider_denied_amount,
        is_denied as current_is_denied,
        is_fully_denied as current_is_fully_denied,
        denied_amount as current_denied_amount,
        primary_denial_category,
        primary_carc_category,
        primary_denial_group_code,
        primary_denial_carc,
        primary_denial_hard_or_soft,
        primary_denial_preventable,
        statement_from,
        statement_to,
        claim_received_date,
        false as overturned,
        {{ money('0') }} as recovered_amount,
        {{ money('0') }} as recovered_to_date,
        cast(null as date) as recovery_date,
        1 as remittance_events,
        0 as reversals,
        {{ money('paid_amount') }} as paid_amount,
        {{ money('patient_responsibility') }} as patient_responsibility,
        payment_date as last_payment_date,
        {{ dbt.datediff('coalesce(claim_received_date, statement_to)', 'payment_date', 'day') }} as days_to_pay
    from {{ ref('int_remittance_claims_summarised') }}
    where is_only_event and not is_predetermination and not is_reversal
)
select * from several_events
union all
select * from only_events
