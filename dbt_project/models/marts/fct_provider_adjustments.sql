-- One row per PLB adjustment pair. Positive amounts reduce the check (e.g. WO overpayment
-- recovery, FB forwarding balance); negative amounts add to it (e.g. L6 interest). Only the first
-- delivery of a remittance counts (int_remittances_identified); payer_key is the canonical payer.
-- X12 835 TR3 (005010X221A1) PLB03-1 gives the meaning (seed plb03_1_provider_adjustment_reason_codes,
-- the same map as pipelines/ingest/plb.py); PLB03-2 names the claim: the reference as sent, without a
-- leading reason-code prefix (WO12345, FB-12345), or its first word (CMS "ICN HIC"), read as a claim key
-- (CLP01) first, else as a payer claim control number (CLP07) of the same payer. A WO/WU, or an FB that
-- withholds money (positive), for a named claim is money taken back for that claim (the ledger posts
-- it as a `recoupment` with the claim key); it stays open until the same payer pays the claim again.
with adjustments as (
    select
        adjustments.*,
        remittances.payer_key,
        remittances.payer_id,
        remittances.payer_identity,
        remittances.payment_date,
        remittances.trace_number,
        trim(adjustments.reference_id) as ref_full,
        case
            when upper(trim(adjustments.reference_id)) like adjustments.reason_code || '%'
                then nullif(
                    ltrim(substr(trim(adjustments.reference_id), length(adjustments.reason_code) + 1), ' -:'), ''
                )
        end as ref_stripped
    from {{ ref('stg_era__provider_adjustments') }} as adjustments
    inner join {{ ref('int_remittances_identified') }} as remittances
        on remittances.remittance_key = adjustments.remittance_key and remittances.is_first_delivery
),
candidates as (
    select provider_adjustment_key, organization_id, client_id, payer_key, 1 as rank_, ref_full as candidate
    from adjustments
    where ref_full is not null
    union all
    select provider_adjustment_key, organization_id, client_id, payer_key, 2 as rank_, ref_stripped as candidate
    from adjustments
    where ref_stripped is not null
    union all
    select
        provider_adjustment_key, organization_id, client_id, payer_key, 3 as rank_,
        split_part(ref_full, ' ', 1) as candidate
    from adjustments
    where ref_full is not null
    union all
    select
        provider_adjustment_key, organization_id, client_id, payer_key, 4 as rank_,
        split_part(ref_stripped, ' ', 1) as candidate
    from adjustments
    where ref_stripped is not null
),
remitted as (
    select organization_id, client_id, claim_key, payer_key, payer_claim_control_number, payment_date, paid_amount
    from {{ ref('int_remittance_claims_sequenced') }}
),
matches as (
    -- a claim key of the tenant first, then a payer claim control number of the same payer
    select candidates.provider_adjustment_key, candidates.rank_, remitted.claim_key
    from candidates
    inner join remitted
        on remitted.organization_id = candidates.organization_id and remitted.client_id = candidates.client_id
        and remitted.claim_key = candidates.candidate
    union all
    select candidates.provider_adjustment_key, 10 + candidates.rank_ as rank_, remitted.claim_key
    from candidates
    inner join remitted
        on remitted.organization_id = candidates.organization_id and remitted.client_id = candidates.client_id
        and remitted.payer_key = candidates.payer_key
        and remitted.payer_claim_control_number = candidates.candidate
),
linked as (
    select provider_adjustment_key, min(claim_key) as linked_claim_key
    from (
        select
            provider_adjustment_key,
            rank_,
            claim_key,
            min(rank_) over (partition by provider_adjustment_key) as best_rank
        from matches
    ) as ranked
    where rank_ = best_rank
    group by provider_adjustment_key
),
meant as (
    select
        adjustments.*,
        coalesce(reasons.meaning, 'adjustment') as meaning,
        reasons.description as reason_description,
        linked.linked_claim_key,
        linked.linked_claim_key is not null
        and adjustments.reason_code in ('WO', 'WU', 'FB') and adjustments.amount > 0 as is_claim_recoupment
    from adjustments
    left join {{ ref('plb03_1_provider_adjustment_reason_codes') }} as reasons
        on trim(reasons.code) = adjustments.reason_code
    left join linked on linked.provider_adjustment_key = adjustments.provider_adjustment_key
),
repaid as (
    -- what the same payer paid the claim after the recoupment (a re-payment recovers it)
    select meant.provider_adjustment_key, sum(remitted.paid_amount) as repaid_amount
    from meant
    inner join remitted
        on remitted.organization_id = meant.organization_id and remitted.client_id = meant.client_id
        and remitted.claim_key = meant.linked_claim_key and remitted.payer_key = meant.payer_key
        and remitted.payment_date > meant.payment_date
    where meant.is_claim_recoupment
    group by meant.provider_adjustment_key
)
select
    meant.provider_adjustment_key,
    meant.remittance_key,
    meant.organization_id,
    meant.client_id,
    {{ tenant_key('meant.organization_id', 'meant.client_id', 'meant.payer_key') }} as payer_sk,
    meant.payer_key,
    meant.payer_id,
    meant.payer_identity,
    meant.payment_date,
    {{ month_of('meant.payment_date') }} as payment_month,
    meant.trace_number,
    meant.provider_id,
    meant.fiscal_period_date,
    meant.reason_code,
    meant.reason_description,
    meant.meaning,
    meant.reference_id,
    meant.linked_claim_key,
    meant.is_claim_recoupment,
    meant.amount,
    case when meant.is_claim_recoupment then meant.amount else 0 end as recouped_amount,
    case
        when meant.is_claim_recoupment then greatest(meant.amount - coalesce(repaid.repaid_amount, 0), 0)
        else 0
    end as open_recouped_amount,
    case when meant.meaning = 'interest' then -meant.amount else 0 end as interest_amount
from meant
left join repaid on repaid.provider_adjustment_key = meant.provider_adjustment_key
