-- Every CAS triplet (claim or line level) with its classification. The classification is written
-- here once: int_remittance_claims_summarised and fct_service_lines read this mart for their sums
-- (an intermediate table of the same 3.9M rows, copied into this mart, cost a second write of
-- every row: about 6 s of CPU at 1M claims).
-- Every CAS triplet classified with the reference seeds, the same rules as
-- pipelines.ingest.classify (kept in step by tests/integration/pipelines):
--   1. the CARC row gives category, is_denial, hard/soft, preventable; an unknown CARC is
--      `unclassified` (basis unknown_carc) and not a denial: it is reported, never counted as lost money;
--   2. for "see the remark" CARCs the first RARC with a hint refines the category; "first" is file
--      order at the most specific level (classify.ordered_rarcs): the line's LQ codes, then the claim's
--      MOA/MIA codes (a claim-level CAS reads only the claim's);
--   3. the group rule has the last word (PR -> patient_responsibility, not a denial; CR -> not a new denial);
--   4. only a positive amount on an adjudication counts (classify.counts_as_denial): zero is
--      informational, negative gives money back, CLP02=22 reversals and CLP02=25 predeterminations
--      are not new denials.
-- `is_payer_denial` is wider than `is_denial`: the payer refused the service, whoever owes the
-- money (a non-covered service moved to the patient under PR is a payer denial, not a provider loss).
with adjustments as (
    select * from {{ ref('stg_era__adjustments') }}
),
-- Only the first delivery of a remittance (int_remittances_identified): a re-delivered copy's
-- adjustments would count twice. payer_key is the canonical payer (alias table applied).
remittance_claims as (
    select
        claims.remittance_claim_key, claims.claim_key, deliveries.payer_key, claims.payment_date,
        claims.claim_status_code
    from {{ ref('int_remittance_claims_dated') }} as claims
    inner join {{ ref('int_remittances_identified') }} as deliveries
        on deliveries.remittance_key = claims.remittance_key
    where deliveries.is_first_delivery
),
-- The remarks an adjustment reads depend only on its claim and line, so they are listed per claim
-- (MOA/MIA, line_index null) and per claim line (LQ) and joined on those keys: the line's codes
-- first, then the claim's (a claim-level adjustment reads only the claim's). Joining them per
-- adjustment instead cost a hash join keyed on all 4M adjustment keys.
remarks as (
    select
        remittance_claim_key,
        line_index,
        rarc,
        coalesce(remark_index, 0) as remark_index
    from {{ ref('stg_era__remarks') }}
),
remark_lists as (
    select
        remittance_claim_key,
        coalesce(line_index, -1) as line_slot,
        string_agg(rarc, ',' order by remark_index, rarc) as rarc_codes
    from remarks
    group by remittance_claim_key, coalesce(line_index, -1)
),
hinted as (
    select
        remarks.remittance_claim_key,
        coalesce(remarks.line_index, -1) as line_slot,
        remarks.rarc,
        hints.category_hint,
        row_number() over (
            partition by remarks.remittance_claim_key, coalesce(remarks.line_index, -1)
            order by remarks.remark_index, remarks.rarc
        ) as hint_rank
    from remarks
    inner join {{ ref('stg_reference__rarc_hints') }} as hints on hints.rarc = remarks.rarc
),
first_hints as (
    select remittance_claim_key, line_slot, rarc, category_hint from hinted
    where hint_rank = 1
),
joined as (
    select
        adjustments.*,
        remittance_claims.claim_key,
        remittance_claims.payer_key,
        remittance_claims.payment_date,
        remittance_claims.claim_status_code,
        nullif(concat_ws(',', line_remarks.rarc_codes, claim_remarks.rarc_codes), '') as rarc_codes,
        carc.carc is not null as carc_known,
        carc.carc_category,
        carc.carc_is_denial,
        carc.hard_or_soft as carc_hard_or_soft,
        carc.preventable as carc_preventable,
        refinable.carc is not null as carc_is_refinable,
        coalesce(line_hint.rarc, claim_hint.rarc) as hint_rarc,
        case when line_hint.rarc is not null then line_hint.category_hint else claim_hint.category_hint end
            as category_hint,
        group_rules.group_code is not null as group_known,
        group_rules.category_override,
        group_rules.is_denial_override,
        group_rules.unknown_carc_is_denial
    from adjustments
    inner join remittance_claims on remittance_claims.remittance_claim_key = adjustments.remittance_claim_key
    left join remark_lists as line_remarks
        on line_remarks.remittance_claim_key = adjustments.remittance_claim_key
        and line_remarks.line_slot = adjustments.line_index
    left join remark_lists as claim_remarks
        on claim_remarks.remittance_claim_key = adjustments.remittance_claim_key
        and claim_remarks.line_slot = -1
    left join first_hints as line_hint
        on line_hint.remittance_claim_key = adjustments.remittance_claim_key
        and line_hint.line_slot = adjustments.line_index
    left join first_hints as claim_hint
        on claim_hint.remittance_claim_key = adjustments.remittance_claim_key
        and claim_hint.line_slot = -1
    left join {{ ref('stg_reference__carc') }} as carc on carc.carc = adjustments.carc
    left join {{ ref('stg_reference__refinable_carcs') }} as refinable on refinable.carc = adjustments.carc
    left join {{ ref('stg_reference__group_rules') }} as group_rules on group_rules.group_code = adjustments.group_code
),
refined as (
    select
        *,
        case
            when not carc_known then 'unclassified'
            when carc_is_refinable and category_hint is not null then category_hint
            else carc_category
        end as cause_category,
        case
            when not carc_known then coalesce(unknown_carc_is_denial, false)
            else carc_is_denial
        end as carc_says_denial,
        case
            when not carc_known then 'unknown_carc'
            when carc_is_refinable and category_hint is not null then 'rarc_hint:' || hint_rarc
            else 'carc_table'
        end as carc_basis,
        -- classify.counts_as_denial: money counts only when positive and adjudicated
        amount > 0 and coalesce(claim_status_code, '') not in ('22', '25') as amount_counts
    from joined
),
classified as (
    select
        *,
        coalesce(category_override, cause_category) as denial_category,
        amount_counts and coalesce(is_denial_override, carc_says_denial) as is_denial,
        case
            when category_override is not null or is_denial_override is not null then 'group:' || group_code
            else carc_basis
        end as classification_basis,
        (amount_counts and group_code <> 'CR' and carc_says_denial) as is_payer_denial
    from refined
)
select
    adjustment_key,
    remittance_claim_key,
    service_line_key,
    organization_id,
    client_id,
    claim_key,
    {{ tenant_key('organization_id', 'client_id', 'payer_key') }} as payer_sk,
    {{ tenant_key('organization_id', 'client_id', 'carc') }} as carc_sk,
    payer_key,
    payment_date,
    {{ month_of('payment_date') }} as payment_month,
    claim_status_code,
    claim_status_code = '22' as is_reversal,
    adjustment_level,
    line_index,
    group_code,
    carc,
    rarc_codes,
    amount,
    quantity,
    denial_category,
    cause_category,
    coalesce(carc_category, 'unclassified') as carc_category,
    is_denial,
    is_payer_denial,
    case when is_denial then carc_hard_or_soft end as hard_or_soft,
    case when is_denial then carc_preventable end as preventable,
    classification_basis
from classified
