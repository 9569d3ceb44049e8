{{ config(materialized='table') }}
-- One row per CLP of a remittance's first delivery with its payer (identity and class), its place
-- in a COB chain and its position in the claim's remittance history: everything about a CLP that
-- does not depend on its adjustments. int_remittance_claims_summarised adds the adjustment sums and
-- the primary denial. Split so that this part, and the models that need only it (the service lines,
-- line contract pricing, dim_payers), build beside fct_claim_adjustments instead of after it.
--
-- Only the first delivery of a remittance counts (int_remittances_identified): a re-delivered
-- remittance in a new envelope is left out here, so every claim-level mart counts it once.
-- Order of events (deterministic, never the file's content hash): payment date, interchange date
-- and time (ISA09/ISA10), interchange control number (ISA13), transaction and claim position in the
-- file, then the batch. event_sequence orders a claim's events across payers, payer_event_sequence
-- within one payer's adjudication history (the key of that history is client, CLP01, payer).
-- cob_level: CLP02 1/19 primary, 2/20 secondary, 3/21 tertiary (19-21: processed and forwarded to
-- the next payer); other statuses (4 denied, 22 reversal, 25) say nothing about the payer's rank.
-- is_crossover: CLP02 19-21 or a crossover remark (MA18, N89: forwarded to the next payer).
with remittance_claims as (
    select
        claims.*,
        deliveries.payer_id,
        deliveries.payer_identity,
        deliveries.interchange_stamp,
        deliveries.interchange_control_number,
        deliveries.alias_payer_class,
        deliveries.payer_key as canonical_payer_key,
        deliveries.delivery_order,
        deliveries.remittance_order
    from {{ ref('int_remittance_claims_dated') }} as claims
    inner join {{ ref('int_remittances_identified') }} as deliveries
        on deliveries.remittance_key = claims.remittance_key
    where deliveries.is_first_delivery
),
crossovers as (
    select distinct remittance_claim_key
    from {{ ref('stg_era__remarks') }}
    where line_index is null and rarc in ('MA18', 'N89')
),
-- A claim's place in its histories. Most claims have one event (sequence 1 in both histories):
-- only the events of claims with several are ranked, on the keys alone, and joined back (a window
-- over every row sorted a million one-row partitions). The order is the one documented above:
-- delivery_order ranks payment date, interchange date and time, ISA13 and transaction position.
claims_with_several_events as (
    select organization_id, client_id, claim_key
    from remittance_claims
    group by organization_id, client_id, claim_key
    having count(*) > 1
),
sequences as (
    select
        events.remittance_claim_key,
        row_number() over (
            partition by events.organization_id, events.client_id, events.claim_key
            order by events.delivery_order, events.claim_index, events.batch_id
        ) as event_sequence,
        row_number() over (
            partition by events.organization_id, events.client_id, events.claim_key, events.payer_identity
            order by events.delivery_order, events.claim_index, events.batch_id
        ) as payer_event_sequence,
        -- the payer's last remittance for the claim among its adjudications (remittance_order ranks
        -- remittances in time; a predetermination is not an adjudication)
        max(case when events.claim_status_code <> '25' then events.remittance_order end) over (
            partition by events.organization_id, events.client_id, events.claim_key, events.payer_identity
        ) as payer_last_remittance_order,
        -- 1 on the payer's last decision (not a CLP02=22 reversal, not a CLP02=25 predetermination)
        row_number() over (
            partition by
                events.organization_id, events.client_id, events.claim_key, events.payer_identity,
                events.claim_status_code not in ('22', '25')
            order by events.delivery_order desc, events.claim_index desc, events.batch_id desc
        ) as payer_decision_rank_from_last
    from remittance_claims as events
    inner join claims_with_several_events
        on claims_with_several_events.organization_id = events.organization_id
        and claims_with_several_events.client_id = events.client_id
        and claims_with_several_events.claim_key = events.claim_key
)

select
    remittance_claims.remittance_claim_key,
    remittance_claims.remittance_key,
    remittance_claims.organization_id,
    remittance_claims.client_id,
    remittance_claims.batch_id,
    remittance_claims.source_file_sha256,
    remittance_claims.transaction_index,
    remittance_claims.claim_index,
    remittance_claims.claim_key,
    remittance_claims.canonical_payer_key as payer_key,
    remittance_claims.payer_name,
    remittance_claims.payer_id,
    remittance_claims.payer_identity,
    coalesce(remittance_claims.alias_payer_class, payer_classes.payer_class, 'other') as payer_class,
    case
        when remittance_claims.claim_status_code in ('1', '19') then 1
        when remittance_claims.claim_status_code in ('2', '20') then 2
        when remittance_claims.claim_status_code in ('3', '21') then 3
    end as cob_level,
    (
        remittance_claims.claim_status_code in ('19', '20', '21') or crossovers.remittance_claim_key is not null
    ) as is_crossover,
    remittance_claims.interchange_stamp,
    remittance_claims.interchange_control_number,
    remittance_claims.payment_date,
    remittance_claims.trace_number,
    remittance_claims.claim_status_code,
    remittance_claims.payer_claim_control_number,
    remittance_claims.filing_indicator,
    -- CLP11 and CLP08 (the claim-level contract terms read them: int_contract_pricing_claim_terms)
    -- and CLP09 (the KPIs tell a corrected claim's adjudication from an overturn)
    remittance_claims.drg_code,
    remittance_claims.facility_type_code,
    remittance_claims.frequency_code,
    remittance_claims.statement_from,
    remittance_claims.statement_to,
    remittance_claims.claim_received_date,
    remittance_claims.billed_amount,
    remittance_claims.paid_amount,
    remittance_claims.patient_responsibility,
    remittance_claims.claim_status_code = '22' as is_reversal,
    -- CLP02=25 prices a service that has not been adjudicated: no denial, no payment, not a decision.
    remittance_claims.claim_status_code = '25' as is_predetermination,
    remittance_claims.remittance_order,
    coalesce(sequences.event_sequence, 1) as event_sequence,
    coalesce(sequences.payer_event_sequence, 1) as payer_event_sequence,
    coalesce(sequences.payer_last_remittance_order, remittance_claims.remittance_order) as payer_last_remittance_order,
    -- The claim's only CLP (most claims): its histories are this one event, so the per-payer history
    -- (int_claim_payer_adjudications) takes it as it is instead of aggregating and ranking it.
    sequences.remittance_claim_key is null as is_only_event,
    -- The payer's current adjudication of the claim: its last decision in the order above (a
    -- reversal plus its correction nets to the correction). The per-payer history
    -- (int_claim_payer_adjudications) takes its current decision from this flag; the service lines
    -- and the claim pricing read it, so they need not wait for that history.
    coalesce(
        remittance_claims.claim_status_code not in ('22', '25')
        and coalesce(sequences.payer_decision_rank_from_last, 1) = 1,
        false
    ) as is_current_adjudication
from remittance_claims
left join sequences on sequences.remittance_claim_key = remittance_claims.remittance_claim_key
left join crossovers on crossovers.remittance_claim_key = remittance_claims.remittance_claim_key
left join {{ ref('stg_reference__payer_classes') }} as payer_classes
    on payer_classes.filing_indicator = remittance_claims.filing_indicator
